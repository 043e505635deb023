package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.Summary;
import io.unibench.store.ImportedRun;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code vllm bench serve --save-result} JSON (vllm/benchmarks/serve.py): run metadata, aggregate figures
 * ({@code mean_ttft_ms}, {@code p99_tpot_ms}, …) and, with {@code --save-detailed}, per-request arrays
 * ({@code input_lens}, {@code output_lens}, {@code ttfts}, {@code itls}, {@code start_times}, {@code errors}).
 */
final class VllmBenchServe {
    static final List<String> DETAILED = List.of("input_lens", "output_lens", "ttfts", "itls", "errors");
    private static final List<String> ARRAYS = List.of("input_lens", "output_lens", "ttfts", "itls", "start_times",
            "generated_texts", "errors");

    private VllmBenchServe() {}

    /** True when {@code root} looks like a vLLM bench serve result. */
    static boolean recognises(JsonNode root) {
        return root.isObject() && root.has("mean_ttft_ms") && (root.has("backend") || root.has("endpoint_type")
                || root.has("request_throughput"));
    }

    static Foreign read(ForeignFile f, JsonNode root, long nowMillis) {
        if (!root.isObject()) throw f.error("", "expected vLLM bench serve's result object");
        int completed = (int) f.number(root, "/completed");
        double duration = f.number(root, "/duration");
        Double failedField = f.optNumber(root, "/failed");
        int failed = failedField == null ? 0 : failedField.intValue();
        Double concurrency = f.optNumber(root, "/max_concurrency");
        Double rate = f.optNumber(root, "/request_rate");
        Double prompts = f.optNumber(root, "/num_prompts");
        int number = prompts != null ? prompts.intValue() : completed + failed;
        int parallel = concurrency == null ? -1 : concurrency.intValue();
        double rateValue = rate == null || rate.isInfinite() ? -1 : rate;
        String label = parallel > 0 && rateValue < 0 ? "parallel_" + parallel + "_number_" + number
                : "rate_" + (rate == null || rate.isInfinite() ? "inf" : rate) + "_number_" + number;
        RunInfo info = new RunInfo(label, parallel, rateValue, number);

        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put(Summary.TEST_DURATION, duration);
        figures.put(Summary.TOTAL_REQUESTS, (long) (completed + failed));
        figures.put(Summary.SUCCESS_REQUESTS, (long) completed);
        figures.put(Summary.FAILED_REQUESTS, (long) failed);
        figures.put(Summary.REQ_THROUGHPUT, f.optNumber(root, "/request_throughput"));
        figures.put(Summary.OUTPUT_THROUGHPUT, f.optNumber(root, "/output_throughput"));
        figures.put(Summary.TOTAL_THROUGHPUT, f.optNumber(root, "/total_token_throughput"));
        Double e2el = f.optNumber(root, "/mean_e2el_ms");
        figures.put(Summary.AVG_LATENCY, e2el == null ? null : e2el / 1e3);
        figures.put(Summary.AVG_TTFT, f.optNumber(root, "/mean_ttft_ms"));
        figures.put(Summary.AVG_TPOT, f.optNumber(root, "/mean_tpot_ms"));
        figures.put(Summary.AVG_ITL, f.optNumber(root, "/mean_itl_ms"));
        Double in = f.optNumber(root, "/total_input_tokens");
        Double out = f.optNumber(root, "/total_output_tokens");
        figures.put(Summary.TOTAL_INPUT_TOKENS, in == null ? null : in.longValue());
        figures.put(Summary.TOTAL_OUTPUT_TOKENS, out == null ? null : out.longValue());
        figures.put(Summary.AVG_INPUT_TOKENS, in == null || completed == 0 ? null : in / completed);
        figures.put(Summary.AVG_OUTPUT_TOKENS, out == null || completed == 0 ? null : out / completed);
        List<Map<String, Object>> percentiles = percentiles(f, root);

        List<String> lacks = new ArrayList<>(List.of("phases", "cache figures", "server metrics"));
        boolean detailed = DETAILED.stream().allMatch(root::has) && root.has("start_times");
        ImportedRun.Point point;
        if (detailed) {
            point = ForeignPoints.recomputed(info, nowMillis, records(f, root, nowMillis), figures, percentiles);
            // its input_lens are its tokenizer's counts of the dataset's prompts, never the server's; its output_lens
            // the server's usage (vllm/benchmarks/serve.py calculate_metrics, lib/endpoint_request_func.py)
            String tokenizer = root.path("tokenizer_id").asText("its tokenizer");
            point.summary().put(Summary.TOKEN_COUNT_SOURCE, "prompt: tokenizer " + tokenizer
                    + "; output: server usage (else tokenizer " + tokenizer + ")");
            point.summary().put(Summary.FROM_CLIENT_TOKEN_COUNTS, PROMPT_DERIVED);
        } else {
            lacks.addFirst(DETAILED.stream().allMatch(root::has)
                    ? "per-request rows (no start_times: saved by a vLLM that did not keep them)"
                    : "per-request rows (saved without --save-detailed)");
            point = ForeignPoints.figuresOnly(info, nowMillis, figures, percentiles);
        }
        lacks.add(ForeignPoints.NO_START); // its "date" is the machine's local time, without a zone
        ObjectNode args = ((ObjectNode) root).deepCopy();
        ARRAYS.forEach(args::remove);
        return new Foreign(ForeignFormat.VLLM_BENCH_SERVE, null, Map.of(f.path.toString(), f.sha256), args, lacks,
                List.of(point), nowMillis);
    }

    /** The figures of a vLLM run that sum or divide its tokenizer's prompt counts. */
    static final String PROMPT_DERIVED = String.join(", ", Summary.AVG_INPUT_TOKENS, Summary.TOTAL_INPUT_TOKENS,
            Summary.INPUT_THROUGHPUT,
            Summary.TOTAL_THROUGHPUT, PercentileRow.INPUT_TOKENS, PercentileRow.INPUT_THROUGHPUT,
            PercentileRow.TOTAL_THROUGHPUT);

    /** vLLM's percentiles ({@code p50_ttft_ms}, {@code p99.9_itl_ms}, … as {@code --metric-percentiles} chose) as our rows. */
    private static List<Map<String, Object>> percentiles(ForeignFile f, JsonNode root) {
        Map<String, String> columns = Map.of("ttft", PercentileRow.TTFT, "tpot", PercentileRow.TPOT,
                "itl", PercentileRow.ITL, "e2el", PercentileRow.LATENCY);
        ForeignPoints.Rows rows = new ForeignPoints.Rows();
        root.properties().forEach(e -> {
            String k = e.getKey();
            int cut = k.indexOf('_');
            if (cut < 0 || !k.endsWith("_ms")) return;
            String label = ForeignPoints.percentileLabel(k.substring(0, cut));
            String metric = k.substring(cut + 1, k.length() - 3);
            if (label == null || !columns.containsKey(metric)) return;
            double v = f.number(root, "/" + k);
            rows.put(label, columns.get(metric), metric.equals("e2el") ? v / 1e3 : v);
        });
        return rows.list();
    }

    private static List<RequestRecord> records(ForeignFile f, JsonNode root, long nowMillis) {
        int n = root.get("input_lens").size();
        JsonNode inputs = f.array(root, "/input_lens", n);
        JsonNode outputs = f.array(root, "/output_lens", n);
        JsonNode ttfts = f.array(root, "/ttfts", n);
        JsonNode itls = f.array(root, "/itls", n);
        JsonNode starts = f.array(root, "/start_times", n);
        JsonNode errors = f.array(root, "/errors", n);
        double base = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) base = Math.min(base, f.number(root, "/start_times/" + i));
        boolean stream = !root.path("backend").asText("").contains("no-stream");
        List<RequestRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String error = errors.get(i).asText("");
            boolean ok = error.isEmpty();
            double ttft = ok ? f.number(root, "/ttfts/" + i) : Double.NaN;
            JsonNode gapsNode = f.array(root, "/itls/" + i, -1);
            double[] gaps = new double[gapsNode.size()];
            double latency = ok ? ttft : 0;
            for (int j = 0; j < gaps.length; j++) {
                gaps[j] = f.number(root, "/itls/" + i + "/" + j);
                latency += gaps[j];
            }
            // vLLM's latency is its last chunk's arrival: the first chunk (ttft) and every interval after it
            records.add(ForeignPoints.record(i, base, nowMillis, starts.get(i).asDouble(), ttft, gaps, latency,
                    (int) f.number(root, "/input_lens/" + i), (int) f.number(root, "/output_lens/" + i),
                    RequestRecord.TokenSource.SERVER, stream, ok ? null : error));
        }
        if (inputs.size() != outputs.size() || ttfts.size() != itls.size()) throw f.error("/input_lens", "lengths differ");
        return records;
    }
}
