package io.unibench.importer;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Summary;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every key {@code evalscope perf} has written to {@code benchmark_summary.json} and {@code benchmark_percentile.json},
 * with the versions that wrote it (modelscope/evalscope's history: {@code create_message}/{@code get_percentile_results}
 * in {@code evalscope/perf/utils/benchmark_util.py} and {@code db_util.py}, from v1.7.0 the {@code Metrics} and
 * {@code PercentileMetrics} constants of {@code perf_constants.py}), and what it is of ours: our key and the power of
 * ten from its unit to ours (seconds → ms: 3), or no key of ours where evalscope's definition is not ours (the figure
 * is kept under evalscope's own name, never shown as ours). One table; which key set a summary is of is read from it
 * too: the set that names most of the summary's keys.
 */
final class EvalscopeKeys {
    /** The key sets evalscope has written, oldest first, by the releases that wrote them. */
    enum KeySet {
        V0_7("v0.7.0 – v0.8.0"),
        V0_8_1("v0.8.1 – v0.13.x"),
        V0_14("v0.14.0 – v0.17.0"),
        V0_17_1("v0.17.1 – v1.6.x"),
        V1_7("v1.7.0 – v1.9.x"),
        V1_10("v1.10.0 and later");

        final String versions;

        KeySet(String versions) {
            this.versions = versions;
        }
    }

    enum File { SUMMARY, PERCENTILES }

    /**
     * One key of one file, written by the key sets {@code from} … {@code to}.
     *
     * @param ours  our key, or null: kept under evalscope's name (its definition is not ours, or we have none)
     * @param shift the power of ten from evalscope's unit to ours (3: seconds → milliseconds), applied exactly
     */
    record Key(File file, String name, KeySet from, KeySet to, String ours, int shift) {
        boolean writtenBy(KeySet set) {
            return set.compareTo(from) >= 0 && set.compareTo(to) <= 0;
        }
    }

    private static final File S = File.SUMMARY;
    private static final File P = File.PERCENTILES;
    private static final KeySet A = KeySet.V0_7;
    private static final KeySet B = KeySet.V0_8_1;
    private static final KeySet C = KeySet.V0_14;
    private static final KeySet D = KeySet.V0_17_1;
    private static final KeySet E = KeySet.V1_7;
    private static final KeySet F = KeySet.V1_10;

    /**
     * The table. Where a name meant different things in different versions it has one row per meaning:
     * <ul>
     * <li>the summary's {@code "Average time per output token (s)"} was the run's duration / all output tokens up to
     * v0.11.x, each request's latency / its output tokens (first token included) from v0.12.0 (commit 5bc798a7), and
     * ours, (latency − first chunk) / (output tokens − 1), from v0.17.1 (7ff9c551); v0.8.1 – v0.13.x are one key
     * set, so it is ours only from v0.17.1;</li>
     * <li>the percentile column {@code "TPOT (s)"} held the inter-chunk gaps (our ITL) in v0.8.1 – v0.13.x, (last
     * chunk but one − first chunk) / output tokens in v0.15.0 – v0.17.0, and ours from v0.17.1;</li>
     * <li>the summary's and the percentiles' {@code "TTFT (ms)"} (v1.7.0 – v1.9.x) are the average and the
     * percentile column: one name in two files.</li>
     * </ul>
     * The multi-turn and speculative-decoding keys appear only in runs that measured them (v1.6.1 and later), the
     * input throughput only in embedding/rerank runs before v1.7.0.
     */
    static final List<Key> TABLE = List.of(
            new Key(S, "Time taken for tests (senconds)", A, A, Summary.TEST_DURATION, 0),
            new Key(S, "Time taken for tests (s)", B, D, Summary.TEST_DURATION, 0),
            new Key(S, "Test Duration (s)", E, F, Summary.TEST_DURATION, 0),
            new Key(S, "Number of concurrency", A, D, Summary.CONCURRENCY, 0),
            new Key(S, "Concurrency", E, F, Summary.CONCURRENCY, 0),
            new Key(S, "Request rate (req/s)", D, D, Summary.REQUEST_RATE, 0), // from v1.4.1
            new Key(S, "Request Rate (req/s)", E, F, Summary.REQUEST_RATE, 0),
            new Key(S, "Total requests", A, D, Summary.TOTAL_REQUESTS, 0),
            new Key(S, "Total Requests", E, F, Summary.TOTAL_REQUESTS, 0),
            new Key(S, "Succeed requests", A, D, Summary.SUCCESS_REQUESTS, 0),
            new Key(S, "Success Requests", E, F, Summary.SUCCESS_REQUESTS, 0),
            new Key(S, "Failed requests", A, D, Summary.FAILED_REQUESTS, 0),
            new Key(S, "Failed Requests", E, F, Summary.FAILED_REQUESTS, 0),
            new Key(S, "Stream Requests", F, F, Summary.STREAM_REQUESTS, 0),
            new Key(S, "Non-Stream Requests", F, F, Summary.NON_STREAM_REQUESTS, 0),
            new Key(S, "Average QPS", A, B, Summary.REQ_THROUGHPUT, 0),
            new Key(S, "Request throughput (req/s)", C, D, Summary.REQ_THROUGHPUT, 0),
            new Key(S, "Req Throughput (req/s)", E, F, Summary.REQ_THROUGHPUT, 0),
            new Key(S, "Average latency (s)", A, D, Summary.AVG_LATENCY, 0),
            new Key(S, "Avg Latency (s)", E, F, Summary.AVG_LATENCY, 0),
            new Key(S, "Average input tokens per request", A, D, Summary.AVG_INPUT_TOKENS, 0),
            new Key(S, "Avg Input Tokens", E, F, Summary.AVG_INPUT_TOKENS, 0),
            new Key(S, "Throughput(average output tokens per second)", A, A, Summary.OUTPUT_THROUGHPUT, 0),
            new Key(S, "Throughput(average tokens/s)", B, B, Summary.OUTPUT_THROUGHPUT, 0),
            new Key(S, "Output token throughput (tok/s)", C, D, Summary.OUTPUT_THROUGHPUT, 0),
            new Key(S, "Output Throughput (tok/s)", E, F, Summary.OUTPUT_THROUGHPUT, 0),
            new Key(S, "Total token throughput (tok/s)", C, D, Summary.TOTAL_THROUGHPUT, 0),
            new Key(S, "Total Throughput (tok/s)", E, F, Summary.TOTAL_THROUGHPUT, 0),
            new Key(S, "Average time to first token (s)", A, D, Summary.AVG_TTFT, 3),
            new Key(S, "TTFT (ms)", E, E, Summary.AVG_TTFT, 0),
            new Key(S, "Avg TTFT (ms)", F, F, Summary.AVG_TTFT, 0),
            new Key(S, "Average time per output token (s)", A, C, null, 0),
            new Key(S, "Average time per output token (s)", D, D, Summary.AVG_TPOT, 3),
            new Key(S, "TPOT (ms)", E, E, Summary.AVG_TPOT, 0),
            new Key(S, "Avg TPOT (ms)", F, F, Summary.AVG_TPOT, 0),
            new Key(S, "Average inter-token latency (s)", D, D, Summary.AVG_ITL, 3),
            new Key(S, "ITL (ms)", E, E, Summary.AVG_ITL, 0),
            new Key(S, "Avg ITL (ms)", F, F, Summary.AVG_ITL, 0),
            new Key(S, "Average output tokens per request", A, D, Summary.AVG_OUTPUT_TOKENS, 0),
            new Key(S, "Avg Output Tokens", E, F, Summary.AVG_OUTPUT_TOKENS, 0),
            new Key(S, "Input token throughput (tok/s)", D, D, Summary.INPUT_THROUGHPUT, 0), // from v1.4.2
            new Key(S, "Input Throughput (tok/s)", E, F, Summary.INPUT_THROUGHPUT, 0),
            new Key(S, "Average package latency (s)", A, C, null, 0),
            new Key(S, "Average package per request", A, C, null, 0),
            new Key(S, "Expected number of requests", A, C, null, 0), // to v0.15.1
            new Key(S, "Result DB path", A, C, null, 0), // to v0.15.1
            new Key(S, "Average input turns per request", D, D, Summary.AVG_TURNS, 0), // v1.6.1
            new Key(S, "Avg Turns/Request", E, F, Summary.AVG_TURNS, 0),
            new Key(S, "Average approx KV cache hit rate (%)", D, D, Summary.KV_CACHE_HIT_RATE, 0),
            new Key(S, "KV Cache Hit Rate (%)", E, F, Summary.KV_CACHE_HIT_RATE, 0),
            new Key(S, "First-Turn TTFT (ms)", E, E, Summary.AVG_FIRST_TURN_TTFT, 0), // from v1.8.0
            new Key(S, "Avg First-Turn TTFT (ms)", F, F, Summary.AVG_FIRST_TURN_TTFT, 0),
            new Key(S, "Subsequent-Turn TTFT (ms)", E, E, Summary.AVG_SUBSEQUENT_TURN_TTFT, 0),
            new Key(S, "Avg Subsequent-Turn TTFT (ms)", F, F, Summary.AVG_SUBSEQUENT_TURN_TTFT, 0),
            new Key(S, "Average decoded tokens per iter (tok/iter)", D, D, Summary.AVG_DECODED_TOK_PER_ITER, 0),
            new Key(S, "Decoded Tok/Iter", E, E, Summary.AVG_DECODED_TOK_PER_ITER, 0),
            new Key(S, "Avg Decoded Tok/Iter", F, F, Summary.AVG_DECODED_TOK_PER_ITER, 0),
            new Key(S, "Approx speculative decoding acceptance rate", D, D, Summary.SPEC_ACCEPT_RATE, 0),
            new Key(S, "Spec. Accept Rate", E, F, Summary.SPEC_ACCEPT_RATE, 0),

            new Key(P, "Percentile", A, C, PercentileRow.PERCENTILES, 0), // to v0.15.1
            new Key(P, "Percentiles", C, F, PercentileRow.PERCENTILES, 0), // from v0.16.0
            new Key(P, "First Chunk Latency (s)", A, A, PercentileRow.TTFT, 3),
            new Key(P, "TTFT (s)", B, D, PercentileRow.TTFT, 3),
            new Key(P, "TTFT (ms)", E, F, PercentileRow.TTFT, 0),
            new Key(P, "TPOT (s)", B, B, PercentileRow.ITL, 3),
            new Key(P, "TPOT (s)", C, C, null, 0), // from v0.15.0
            new Key(P, "TPOT (s)", D, D, PercentileRow.TPOT, 3),
            new Key(P, "TPOT (ms)", E, F, PercentileRow.TPOT, 0),
            new Key(P, "ITL (s)", C, D, PercentileRow.ITL, 3),
            new Key(P, "ITL (ms)", E, F, PercentileRow.ITL, 0),
            new Key(P, "Latency (s)", A, F, PercentileRow.LATENCY, 0),
            new Key(P, "Input tokens", B, F, PercentileRow.INPUT_TOKENS, 0),
            new Key(P, "Output tokens", B, F, PercentileRow.OUTPUT_TOKENS, 0),
            new Key(P, "Throughput(tokens/s)", B, C, PercentileRow.OUTPUT_THROUGHPUT, 0), // to v0.14.0
            new Key(P, "Output throughput(tok/s)", C, C, PercentileRow.OUTPUT_THROUGHPUT, 0), // v0.15.x
            new Key(P, "Total throughput(tok/s)", C, C, PercentileRow.TOTAL_THROUGHPUT, 0), // v0.15.x
            new Key(P, "Output (tok/s)", C, F, PercentileRow.OUTPUT_THROUGHPUT, 0), // from v0.16.0
            new Key(P, "Total (tok/s)", C, F, PercentileRow.TOTAL_THROUGHPUT, 0),
            new Key(P, "Input (tok/s)", D, F, PercentileRow.INPUT_THROUGHPUT, 0), // from v1.4.2, embedding/rerank
            new Key(P, "Decode (tok/s)", E, F, PercentileRow.DECODE_THROUGHPUT, 0));

    /**
     * Our keys of the figures v1.7.0 and later write as {@code 0.0} for an embedding or rerank run, which does not
     * measure them: {@code BenchmarkSummary}'s pydantic defaults ({@code perf_models.py}), written because only
     * {@code None} is left out. Absent for such a run.
     */
    static final List<String> GENERATION_ONLY = List.of(Summary.OUTPUT_THROUGHPUT, Summary.TOTAL_THROUGHPUT,
            Summary.AVG_TTFT, Summary.AVG_TPOT, Summary.AVG_ITL, Summary.AVG_OUTPUT_TOKENS);

    private EvalscopeKeys() {}

    /**
     * An embedding or rerank run: its {@code api} as evalscope's {@code Metrics.is_embedding_or_rerank} reads it, or,
     * without its arguments, a measured input throughput (from v1.7.0 measured for those runs only).
     */
    static boolean inputOnly(com.fasterxml.jackson.databind.JsonNode args, Map<String, Object> figures) {
        if (args != null && args.path("api").isTextual()) {
            String api = args.path("api").asText().toLowerCase(java.util.Locale.ROOT);
            return api.contains("embedding") || api.contains("rerank") || api.contains("embed");
        }
        return figures.get(Summary.INPUT_THROUGHPUT) instanceof Number n && n.doubleValue() > 0;
    }

    /** The key set that names most of {@code summaryKeys} (the newer on a tie), or null when it names none. */
    static KeySet keySet(Iterable<String> summaryKeys) {
        KeySet best = null;
        int most = 0;
        for (KeySet set : KeySet.values()) {
            int n = 0;
            for (String key : summaryKeys) if (key(File.SUMMARY, key, set) != null) n++;
            if (n > 0 && n >= most) {
                best = set;
                most = n;
            }
        }
        return best;
    }

    /** The table's row for {@code name} in {@code file} as {@code set} wrote it, or null. */
    static Key key(File file, String name, KeySet set) {
        for (Key k : TABLE) if (k.file == file && k.name.equals(name) && k.writtenBy(set)) return k;
        return null;
    }

    /** The name {@code set} wrote our {@code ours} under in {@code file} (for a located "missing" line). */
    static String nameOf(File file, String ours, KeySet set) {
        for (Key k : TABLE) if (k.file == file && ours.equals(k.ours) && k.writtenBy(set)) return k.name;
        return ours;
    }

    /**
     * One object of evalscope's (the summary, or one percentile row) under our keys, values converted exactly; a key
     * the table does not map (evalscope's own figure, or one newer than the table) is kept under its name; a figure
     * the file does not hold (or holds as NaN, null here) is not added.
     */
    static Map<String, Object> ours(File file, KeySet set, Map<String, Object> theirs) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<String> own = new ArrayList<>();
        theirs.forEach((name, value) -> {
            if (value == null) return;
            Key k = key(file, name, set);
            if (k == null || k.ours == null) {
                own.add(name);
                return;
            }
            out.put(k.ours, shifted(value, k.shift));
        });
        for (String name : own) if (theirs.get(name) != null) out.putIfAbsent(name, theirs.get(name));
        return out;
    }

    private static Object shifted(Object value, int shift) {
        if (shift == 0 || !(value instanceof Number n)) return value;
        BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
        return d.movePointRight(shift);
    }
}
