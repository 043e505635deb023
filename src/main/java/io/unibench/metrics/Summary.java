package io.unibench.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The run summary ({@code benchmark_summary.json}), values already rounded as evalscope rounds them: 4 decimals,
 * milliseconds 2 decimals. {@link #toMap()} gives evalscope's keys verbatim and in its order, then our additions.
 *
 * <p>Conventions. As in evalscope, throughputs and averages over successes are −1 when nothing succeeded.
 * Unlike evalscope, a value that is undefined for other reasons (TPOT when every reply had ≤ 1 token or nothing
 * streamed, ITL without intervals, TTFT without successes) is {@code null}, never NaN, 0 or −1000.
 * Optional evalscope keys (multi-turn, cache, speculative decoding) are omitted when null, like evalscope;
 * scheduled-run keys appear only when the run had a schedule, reasoning keys ({@link #AVG_TTFCT}) only when some
 * reply reasoned.
 *
 * <p>Differences in meaning from evalscope, on purpose: {@code Avg TTFT (ms)} is to the first chunk carrying
 * content or reasoning text (evalscope's first-chunk time is {@code Avg First Chunk (ms)}); {@code Avg TPOT (ms)}
 * leaves out replies of ≤ 1 token instead of averaging in zeros; {@code Avg ITL (ms)} is per chunk as in
 * evalscope and {@code Avg ITL per Token (ms)} divides each interval by its request's tokens per chunk.
 *
 * <p>The values come in groups by meaning, each a small record, as {@link RequestRecord}'s do: the point's load
 * ({@link Load}), request counts ({@link Requests}), throughputs ({@link Throughput}), latency means
 * ({@link Latency}), token figures ({@link TokenCounts}), multi-turn ({@link MultiTurn}), prefix cache
 * ({@link Cache}), speculative decoding ({@link Speculative}), reasoning ({@link Reasoning}), scheduled-run queueing
 * ({@link Queueing}) and how the statistics were computed ({@link Statistics}); e.g.
 * {@code s.latency().avgTtftMs()}. A new value belongs in the group it describes; its key is placed in
 * {@link #toMap()}, which alone fixes the file's order.
 */
public record Summary(Load load, Requests requests, Throughput throughput, Latency latency, TokenCounts tokens,
                      MultiTurn multiTurn, Cache cache, Speculative speculative, Reasoning reasoning,
                      Queueing queueing, Statistics stats) {

    /** Every group is present (a group's optional values are null inside it). */
    public Summary {
        Objects.requireNonNull(load, "Summary.load");
        Objects.requireNonNull(requests, "Summary.requests");
        Objects.requireNonNull(throughput, "Summary.throughput");
        Objects.requireNonNull(latency, "Summary.latency");
        Objects.requireNonNull(tokens, "Summary.tokens");
        Objects.requireNonNull(multiTurn, "Summary.multiTurn");
        Objects.requireNonNull(cache, "Summary.cache");
        Objects.requireNonNull(speculative, "Summary.speculative");
        Objects.requireNonNull(reasoning, "Summary.reasoning");
        Objects.requireNonNull(queueing, "Summary.queueing");
        Objects.requireNonNull(stats, "Summary.stats");
    }

    /** The point's load: how long it ran, its concurrency and its request rate (−1: as fast as possible). */
    public record Load(double testDurationSeconds, int concurrency, double requestRate) {}

    /**
     * Request counts. {@code cancelledRequests}: cancelled in flight by the stop, in the total, not failed;
     * {@code successRatePercent}: success / (success + failed), null when nothing ended.
     */
    public record Requests(long totalRequests, long successRequests, long failedRequests, long cancelledRequests,
                           long streamRequests, long nonStreamRequests, Double successRatePercent) {}

    /**
     * Wall-clock throughputs (−1 when nothing succeeded); {@code inputThroughput}: embeddings/rerank only, null (not
     * measured) for generation, where evalscope writes its default 0.0.
     */
    public record Throughput(double reqThroughput, double outputThroughput, double totalThroughput,
                             Double inputThroughput) {}

    /** Means over the successes: latency (s, −1 when none), TTFT, TPOT, ITL, first chunk, ITL per token (ms). */
    public record Latency(double avgLatencySeconds, Double avgTtftMs, Double avgTpotMs, Double avgItlMs,
                          Double avgFirstChunkMs, Double avgItlPerTokenMs) {}

    /** Token figures over the successes (means −1 when none) and where the counts came from. */
    public record TokenCounts(double avgInputTokens, double avgOutputTokens, long totalInputTokens,
                              long totalOutputTokens, String tokenCountSource) {
        /** True when some token counts were not reported by the server; reports label them. */
        public boolean tokenCountsNotFromServer() {
            // "server", "server timings" and a mix of the two are the server's own counts
            return tokenCountSource != null
                    && (tokenCountSource.contains(SOURCE_TOKENIZER) || tokenCountSource.contains(SOURCE_ESTIMATE));
        }
    }

    /** Multi-turn figures; each null when the run had no conversations (or no such turn). */
    public record MultiTurn(Double avgTurnsPerRequest, Double avgFirstTurnTtftMs, Double avgSubsequentTurnTtftMs,
                            Long completedTraces) {}

    /** The prefix cache: hit rate, cached tokens and their sources; null when no reply had a cached figure. */
    public record Cache(Double kvCacheHitRatePercent, Long totalCachedTokens, String cacheHitSource,
                        String cachedTokensSource) {
        /** True when some cached-token figures are the client's estimate, not the server's; reports label them. */
        public boolean cacheHitEstimated() {
            return cacheHitSource != null && !cacheHitSource.equals(SOURCE_SERVER);
        }
    }

    /** Speculative decoding (tokens per chunk after the first); null when no reply had two chunks. */
    public record Speculative(Double avgDecodedTokensPerIter, Double specAcceptRate) {}

    /** Reasoning models: written only when {@code reasoned} (some reply reasoned before its answer). */
    public record Reasoning(boolean reasoned, Double avgTtfctMs, Double avgAnswerTpotMs, Long totalReasoningTokens) {}

    /** A scheduled (open-loop) run's queueing: written only when {@code scheduled}. */
    public record Queueing(boolean scheduled, Double avgQueueDelayMs, Double avgLatencyInclQueueSeconds,
                           Double avgTtftInclQueueMs) {}

    /**
     * How the figures were computed: the percentiles' method, and each average's 95 % t-interval by its key (null
     * for fewer than 2 samples; none by default).
     */
    public record Statistics(String percentileMethod, Map<String, Interval> meanIntervals) {
        public Statistics {
            meanIntervals = meanIntervals == null ? Map.of()
                    : Collections.unmodifiableMap(new LinkedHashMap<>(meanIntervals));
        }
    }

    /** {@link Statistics#percentileMethod()} when every percentile is an observed value ({@link Percentiles}). */
    public static final String PERCENTILES_EXACT = "exact (nearest rank)";

    // evalscope's keys, verbatim.
    public static final String TEST_DURATION = "Test Duration (s)";
    public static final String CONCURRENCY = "Concurrency";
    public static final String REQUEST_RATE = "Request Rate (req/s)";
    public static final String TOTAL_REQUESTS = "Total Requests";
    public static final String SUCCESS_REQUESTS = "Success Requests";
    public static final String FAILED_REQUESTS = "Failed Requests";
    public static final String STREAM_REQUESTS = "Stream Requests";
    public static final String NON_STREAM_REQUESTS = "Non-Stream Requests";
    public static final String REQ_THROUGHPUT = "Req Throughput (req/s)";
    public static final String AVG_LATENCY = "Avg Latency (s)";
    public static final String AVG_INPUT_TOKENS = "Avg Input Tokens";
    public static final String OUTPUT_THROUGHPUT = "Output Throughput (tok/s)";
    public static final String TOTAL_THROUGHPUT = "Total Throughput (tok/s)";
    public static final String AVG_TTFT = "Avg TTFT (ms)";
    public static final String AVG_TPOT = "Avg TPOT (ms)";
    public static final String AVG_ITL = "Avg ITL (ms)";
    public static final String AVG_OUTPUT_TOKENS = "Avg Output Tokens";
    public static final String INPUT_THROUGHPUT = "Input Throughput (tok/s)";
    public static final String AVG_TURNS = "Avg Turns/Request";
    public static final String KV_CACHE_HIT_RATE = "KV Cache Hit Rate (%)";
    public static final String AVG_FIRST_TURN_TTFT = "Avg First-Turn TTFT (ms)";
    public static final String AVG_SUBSEQUENT_TURN_TTFT = "Avg Subsequent-Turn TTFT (ms)";
    public static final String AVG_DECODED_TOK_PER_ITER = "Avg Decoded Tok/Iter";
    public static final String SPEC_ACCEPT_RATE = "Spec. Accept Rate";

    // Our additions.
    public static final String SUCCESS_RATE = "Success Rate (%)";
    public static final String TOTAL_INPUT_TOKENS = "Total Input Tokens";
    public static final String TOTAL_OUTPUT_TOKENS = "Total Output Tokens";
    /** Σ cached prompt tokens over successes whose server reported them; null when none did. */
    public static final String TOTAL_CACHED_TOKENS = "Total Cached Tokens";
    public static final String AVG_FIRST_CHUNK = "Avg First Chunk (ms)";
    public static final String AVG_ITL_PER_TOKEN = "Avg ITL per Token (ms)";
    /**
     * "server" ({@code usage}), "server timings" (llama.cpp's {@code timings} without a usage), "client tokenizer",
     * "estimated" or "mixed: server 90, estimated 10".
     */
    public static final String TOKEN_COUNT_SOURCE = "Token Count Source";
    public static final String AVG_QUEUE_DELAY = "Avg Queue Delay (ms)";
    public static final String AVG_LATENCY_INCL_QUEUE = "Avg Latency incl. Queue (s)";
    public static final String AVG_TTFT_INCL_QUEUE = "Avg TTFT incl. Queue (ms)";
    /**
     * Where the cached-token figures behind {@link #KV_CACHE_HIT_RATE} came from: "server", "estimated" (multi-turn
     * client estimate: history tokens / input tokens, an upper bound) or "mixed: server N, estimated M".
     */
    public static final String CACHE_HIT_SOURCE = "Cache Hit Source";
    /**
     * Where {@link #TOTAL_CACHED_TOKENS} came from, by the reply's member: {@code prompt_tokens_details.cached_tokens}
     * (OpenAI, vLLM, SGLang), {@code input_tokens_details.cached_tokens} (Responses), {@code prompt_cache_hit_tokens}
     * (DeepSeek), {@code cache_read_input_tokens} (Anthropic), {@code timings.cache_n} (llama.cpp), "client estimate"
     * (multi-turn), or "mixed: A 12, B 3" (most replies first). Beside {@link #CACHE_HIT_SOURCE}, which it refines.
     */
    public static final String CACHED_TOKENS_SOURCE = "Cached Tokens Source";
    /**
     * Reasoning models (written only when some streamed reply reasoned before its answer, or its server counted
     * reasoning tokens): mean time to the first content (answer) token, after the reasoning; {@link #AVG_TTFT} counts
     * the first reasoning token.
     */
    public static final String AVG_TTFCT = "Avg TTFCT (ms)";
    /** Reasoning models: TPOT of the answer part, (latency − TTFCT) / (answer tokens − 1). */
    public static final String AVG_ANSWER_TPOT = "Avg Answer TPOT (ms)";
    /** Reasoning models: Σ the successes' counted reasoning tokens (the servers' {@code reasoning_tokens}); null when none. */
    public static final String TOTAL_REASONING_TOKENS = "Total Reasoning Tokens";
    /** Multi-turn: conversations whose last turn succeeded. */
    public static final String COMPLETED_TRACES = "Completed Traces";
    /**
     * Requests the benchmark's stop (Ctrl-C) cancelled in flight: counted in {@link #TOTAL_REQUESTS}, not in
     * {@link #FAILED_REQUESTS} nor in the {@link #SUCCESS_RATE} denominator (success / (success + failed)). Written
     * only when some were.
     */
    public static final String CANCELLED_REQUESTS = "Cancelled Requests";
    /**
     * Ours, present when some token counts were not the server's ({@link #TOKEN_COUNT_SOURCE} is not "server"): the
     * keys of this file and the columns of {@code benchmark_percentile.json} computed from those counts, which carry
     * the same source (estimated, or the client's tokenizer) as the counts.
     */
    public static final String FROM_CLIENT_TOKEN_COUNTS = "From Client Token Counts";
    /** The value of {@link #FROM_CLIENT_TOKEN_COUNTS}: every figure that divides or sums token counts. */
    public static final String TOKEN_DERIVED = String.join(", ", AVG_INPUT_TOKENS, AVG_OUTPUT_TOKENS,
            OUTPUT_THROUGHPUT, TOTAL_THROUGHPUT, AVG_TPOT, AVG_ITL_PER_TOKEN, AVG_DECODED_TOK_PER_ITER,
            SPEC_ACCEPT_RATE, TOTAL_INPUT_TOKENS, TOTAL_OUTPUT_TOKENS, PercentileRow.TPOT,
            PercentileRow.INPUT_TOKENS, PercentileRow.OUTPUT_TOKENS, PercentileRow.OUTPUT_THROUGHPUT,
            PercentileRow.TOTAL_THROUGHPUT, PercentileRow.DECODE_THROUGHPUT, PercentileRow.ITL_PER_TOKEN);
    /** Ours: how the percentiles were computed (exact, or which columns came from a histogram). */
    public static final String PERCENTILE_METHOD = "Percentile Method";

    public static final String SOURCE_SERVER = "server";
    /** llama.cpp's {@code timings} (no usage): exact. */
    public static final String SOURCE_SERVER_TIMINGS = "server timings";
    public static final String SOURCE_TOKENIZER = "client tokenizer";
    public static final String SOURCE_ESTIMATE = "estimated";

    /** Ordered key → value (Double, Long, String or null) for {@code benchmark_summary.json}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(TEST_DURATION, load.testDurationSeconds());
        m.put(CONCURRENCY, (long) load.concurrency());
        m.put(REQUEST_RATE, load.requestRate());
        m.put(TOTAL_REQUESTS, requests.totalRequests());
        m.put(SUCCESS_REQUESTS, requests.successRequests());
        m.put(FAILED_REQUESTS, requests.failedRequests());
        m.put(STREAM_REQUESTS, requests.streamRequests());
        m.put(NON_STREAM_REQUESTS, requests.nonStreamRequests());
        m.put(REQ_THROUGHPUT, throughput.reqThroughput());
        m.put(AVG_LATENCY, latency.avgLatencySeconds());
        m.put(AVG_INPUT_TOKENS, tokens.avgInputTokens());
        m.put(OUTPUT_THROUGHPUT, throughput.outputThroughput());
        m.put(TOTAL_THROUGHPUT, throughput.totalThroughput());
        m.put(AVG_TTFT, latency.avgTtftMs());
        m.put(AVG_TPOT, latency.avgTpotMs());
        m.put(AVG_ITL, latency.avgItlMs());
        m.put(AVG_OUTPUT_TOKENS, tokens.avgOutputTokens());
        m.put(INPUT_THROUGHPUT, throughput.inputThroughput());
        putIfPresent(m, AVG_TURNS, multiTurn.avgTurnsPerRequest());
        putIfPresent(m, KV_CACHE_HIT_RATE, cache.kvCacheHitRatePercent());
        putIfPresent(m, AVG_FIRST_TURN_TTFT, multiTurn.avgFirstTurnTtftMs());
        putIfPresent(m, AVG_SUBSEQUENT_TURN_TTFT, multiTurn.avgSubsequentTurnTtftMs());
        putIfPresent(m, AVG_DECODED_TOK_PER_ITER, speculative.avgDecodedTokensPerIter());
        putIfPresent(m, SPEC_ACCEPT_RATE, speculative.specAcceptRate());
        m.put(SUCCESS_RATE, requests.successRatePercent());
        m.put(TOTAL_INPUT_TOKENS, tokens.totalInputTokens());
        m.put(TOTAL_OUTPUT_TOKENS, tokens.totalOutputTokens());
        m.put(TOTAL_CACHED_TOKENS, cache.totalCachedTokens());
        m.put(AVG_FIRST_CHUNK, latency.avgFirstChunkMs());
        m.put(AVG_ITL_PER_TOKEN, latency.avgItlPerTokenMs());
        m.put(TOKEN_COUNT_SOURCE, tokens.tokenCountSource());
        if (tokens.tokenCountsNotFromServer()) m.put(FROM_CLIENT_TOKEN_COUNTS, TOKEN_DERIVED);
        putIfPresent(m, CACHE_HIT_SOURCE, cache.cacheHitSource());
        putIfPresent(m, CACHED_TOKENS_SOURCE, cache.cachedTokensSource());
        putIfPresent(m, COMPLETED_TRACES, multiTurn.completedTraces());
        putIfPresent(m, PERCENTILE_METHOD, stats.percentileMethod());
        if (requests.cancelledRequests() > 0) m.put(CANCELLED_REQUESTS, requests.cancelledRequests());
        if (reasoning.reasoned()) {
            m.put(AVG_TTFCT, reasoning.avgTtfctMs());
            m.put(AVG_ANSWER_TPOT, reasoning.avgAnswerTpotMs());
            m.put(TOTAL_REASONING_TOKENS, reasoning.totalReasoningTokens());
        }
        if (queueing.scheduled()) {
            m.put(AVG_QUEUE_DELAY, queueing.avgQueueDelayMs());
            m.put(AVG_LATENCY_INCL_QUEUE, queueing.avgLatencyInclQueueSeconds());
            m.put(AVG_TTFT_INCL_QUEUE, queueing.avgTtftInclQueueMs());
        }
        // ours: each average's 95 % interval (ConfidenceIntervals), after every evalscope key
        stats.meanIntervals().forEach((key, ci) -> {
            if (m.get(key) != null) m.put(key + ConfidenceIntervals.KEY_SUFFIX, ci == null ? null : ci.toList());
        });
        return Collections.unmodifiableMap(m);
    }

    private static void putIfPresent(Map<String, Object> m, String key, Object value) {
        if (value != null) m.put(key, value);
    }
}
