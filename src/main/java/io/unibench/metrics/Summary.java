package io.unibench.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

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
 */
public record Summary(
        double testDurationSeconds,
        int concurrency,
        double requestRate,
        long totalRequests,
        long successRequests,
        long failedRequests,
        long streamRequests,
        long nonStreamRequests,
        double reqThroughput,
        double avgLatencySeconds,
        double avgInputTokens,
        double outputThroughput,
        double totalThroughput,
        Double avgTtftMs,
        Double avgTpotMs,
        Double avgItlMs,
        double avgOutputTokens,
        double inputThroughput,
        Double avgTurnsPerRequest,
        Double kvCacheHitRatePercent,
        Double avgFirstTurnTtftMs,
        Double avgSubsequentTurnTtftMs,
        Double avgDecodedTokensPerIter,
        Double specAcceptRate,
        Double successRatePercent,
        long totalInputTokens,
        long totalOutputTokens,
        Long totalCachedTokens,
        Double avgFirstChunkMs,
        Double avgItlPerTokenMs,
        String tokenCountSource,
        boolean scheduled,
        Double avgQueueDelayMs,
        Double avgLatencyInclQueueSeconds,
        Double avgTtftInclQueueMs,
        String cacheHitSource,
        Long completedTraces,
        String percentileMethod,
        long cancelledRequests,
        String cachedTokensSource,
        boolean reasoning,
        Double avgTtfctMs,
        Double avgAnswerTpotMs,
        Long totalReasoningTokens,
        Map<String, Interval> meanIntervals) {

    /**
     * The compact constructor: {@code meanIntervals} (key of an average → its 95 % t-interval, or null when it had
     * fewer than 2 samples) defaults to none.
     */
    public Summary {
        meanIntervals = meanIntervals == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(meanIntervals));
    }

    /** {@link #percentileMethod()} when every percentile is an observed value ({@link Percentiles}). */
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

    /** True when some cached-token figures are the client's estimate, not the server's; reports label them. */
    public boolean cacheHitEstimated() {
        return cacheHitSource != null && !cacheHitSource.equals(SOURCE_SERVER);
    }

    /** True when some token counts were not reported by the server; reports label them. */
    public boolean tokenCountsNotFromServer() {
        // "server", "server timings" and a mix of the two are the server's own counts
        return tokenCountSource != null
                && (tokenCountSource.contains(SOURCE_TOKENIZER) || tokenCountSource.contains(SOURCE_ESTIMATE));
    }

    /** Ordered key → value (Double, Long, String or null) for {@code benchmark_summary.json}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(TEST_DURATION, testDurationSeconds);
        m.put(CONCURRENCY, (long) concurrency);
        m.put(REQUEST_RATE, requestRate);
        m.put(TOTAL_REQUESTS, totalRequests);
        m.put(SUCCESS_REQUESTS, successRequests);
        m.put(FAILED_REQUESTS, failedRequests);
        m.put(STREAM_REQUESTS, streamRequests);
        m.put(NON_STREAM_REQUESTS, nonStreamRequests);
        m.put(REQ_THROUGHPUT, reqThroughput);
        m.put(AVG_LATENCY, avgLatencySeconds);
        m.put(AVG_INPUT_TOKENS, avgInputTokens);
        m.put(OUTPUT_THROUGHPUT, outputThroughput);
        m.put(TOTAL_THROUGHPUT, totalThroughput);
        m.put(AVG_TTFT, avgTtftMs);
        m.put(AVG_TPOT, avgTpotMs);
        m.put(AVG_ITL, avgItlMs);
        m.put(AVG_OUTPUT_TOKENS, avgOutputTokens);
        m.put(INPUT_THROUGHPUT, inputThroughput);
        putIfPresent(m, AVG_TURNS, avgTurnsPerRequest);
        putIfPresent(m, KV_CACHE_HIT_RATE, kvCacheHitRatePercent);
        putIfPresent(m, AVG_FIRST_TURN_TTFT, avgFirstTurnTtftMs);
        putIfPresent(m, AVG_SUBSEQUENT_TURN_TTFT, avgSubsequentTurnTtftMs);
        putIfPresent(m, AVG_DECODED_TOK_PER_ITER, avgDecodedTokensPerIter);
        putIfPresent(m, SPEC_ACCEPT_RATE, specAcceptRate);
        m.put(SUCCESS_RATE, successRatePercent);
        m.put(TOTAL_INPUT_TOKENS, totalInputTokens);
        m.put(TOTAL_OUTPUT_TOKENS, totalOutputTokens);
        m.put(TOTAL_CACHED_TOKENS, totalCachedTokens);
        m.put(AVG_FIRST_CHUNK, avgFirstChunkMs);
        m.put(AVG_ITL_PER_TOKEN, avgItlPerTokenMs);
        m.put(TOKEN_COUNT_SOURCE, tokenCountSource);
        if (tokenCountsNotFromServer()) m.put(FROM_CLIENT_TOKEN_COUNTS, TOKEN_DERIVED);
        putIfPresent(m, CACHE_HIT_SOURCE, cacheHitSource);
        putIfPresent(m, CACHED_TOKENS_SOURCE, cachedTokensSource);
        putIfPresent(m, COMPLETED_TRACES, completedTraces);
        putIfPresent(m, PERCENTILE_METHOD, percentileMethod);
        if (cancelledRequests > 0) m.put(CANCELLED_REQUESTS, cancelledRequests);
        if (reasoning) {
            m.put(AVG_TTFCT, avgTtfctMs);
            m.put(AVG_ANSWER_TPOT, avgAnswerTpotMs);
            m.put(TOTAL_REASONING_TOKENS, totalReasoningTokens);
        }
        if (scheduled) {
            m.put(AVG_QUEUE_DELAY, avgQueueDelayMs);
            m.put(AVG_LATENCY_INCL_QUEUE, avgLatencyInclQueueSeconds);
            m.put(AVG_TTFT_INCL_QUEUE, avgTtftInclQueueMs);
        }
        // ours: each average's 95 % interval (ConfidenceIntervals), after every evalscope key
        meanIntervals.forEach((key, ci) -> {
            if (m.get(key) != null) m.put(key + ConfidenceIntervals.KEY_SUFFIX, ci == null ? null : ci.toList());
        });
        return Collections.unmodifiableMap(m);
    }

    private static void putIfPresent(Map<String, Object> m, String key, Object value) {
        if (value != null) m.put(key, value);
    }

    /** A summary built by name: with nine adjacent doubles among its values, positions would be easy to swap. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds a {@link Summary} value by value. The nullable values (the optional keys) are absent until set,
     * {@code scheduled} is false and {@code cancelledRequests} 0; every other value must be set, or {@link #build()}
     * names the one that was not.
     */
    public static final class Builder {
        private Double testDurationSeconds;
        private Integer concurrency;
        private Double requestRate;
        private Long totalRequests;
        private Long successRequests;
        private Long failedRequests;
        private Long streamRequests;
        private Long nonStreamRequests;
        private Double reqThroughput;
        private Double avgLatencySeconds;
        private Double avgInputTokens;
        private Double outputThroughput;
        private Double totalThroughput;
        private Double avgTtftMs;
        private Double avgTpotMs;
        private Double avgItlMs;
        private Double avgOutputTokens;
        private Double inputThroughput;
        private Double avgTurnsPerRequest;
        private Double kvCacheHitRatePercent;
        private Double avgFirstTurnTtftMs;
        private Double avgSubsequentTurnTtftMs;
        private Double avgDecodedTokensPerIter;
        private Double specAcceptRate;
        private Double successRatePercent;
        private Long totalInputTokens;
        private Long totalOutputTokens;
        private Long totalCachedTokens;
        private Double avgFirstChunkMs;
        private Double avgItlPerTokenMs;
        private String tokenCountSource;
        private boolean scheduled;
        private Double avgQueueDelayMs;
        private Double avgLatencyInclQueueSeconds;
        private Double avgTtftInclQueueMs;
        private String cachedTokensSource;
        private String cacheHitSource;
        private Long completedTraces;
        private String percentileMethod;
        private long cancelledRequests;
        private Map<String, Interval> meanIntervals;
        private boolean reasoning;
        private Double avgTtfctMs;
        private Double avgAnswerTpotMs;
        private Long totalReasoningTokens;

        private Builder() {}

        public Builder testDurationSeconds(double v) { testDurationSeconds = v; return this; }
        public Builder concurrency(int v) { concurrency = v; return this; }
        public Builder requestRate(double v) { requestRate = v; return this; }
        public Builder totalRequests(long v) { totalRequests = v; return this; }
        public Builder successRequests(long v) { successRequests = v; return this; }
        public Builder failedRequests(long v) { failedRequests = v; return this; }
        public Builder streamRequests(long v) { streamRequests = v; return this; }
        public Builder nonStreamRequests(long v) { nonStreamRequests = v; return this; }
        public Builder reqThroughput(double v) { reqThroughput = v; return this; }
        public Builder avgLatencySeconds(double v) { avgLatencySeconds = v; return this; }
        public Builder avgInputTokens(double v) { avgInputTokens = v; return this; }
        public Builder outputThroughput(double v) { outputThroughput = v; return this; }
        public Builder totalThroughput(double v) { totalThroughput = v; return this; }
        public Builder avgTtftMs(Double v) { avgTtftMs = v; return this; }
        public Builder avgTpotMs(Double v) { avgTpotMs = v; return this; }
        public Builder avgItlMs(Double v) { avgItlMs = v; return this; }
        public Builder avgOutputTokens(double v) { avgOutputTokens = v; return this; }
        public Builder inputThroughput(double v) { inputThroughput = v; return this; }
        public Builder avgTurnsPerRequest(Double v) { avgTurnsPerRequest = v; return this; }
        public Builder kvCacheHitRatePercent(Double v) { kvCacheHitRatePercent = v; return this; }
        public Builder avgFirstTurnTtftMs(Double v) { avgFirstTurnTtftMs = v; return this; }
        public Builder avgSubsequentTurnTtftMs(Double v) { avgSubsequentTurnTtftMs = v; return this; }
        public Builder avgDecodedTokensPerIter(Double v) { avgDecodedTokensPerIter = v; return this; }
        public Builder specAcceptRate(Double v) { specAcceptRate = v; return this; }
        public Builder successRatePercent(Double v) { successRatePercent = v; return this; }
        public Builder totalInputTokens(long v) { totalInputTokens = v; return this; }
        public Builder totalOutputTokens(long v) { totalOutputTokens = v; return this; }
        public Builder totalCachedTokens(Long v) { totalCachedTokens = v; return this; }
        public Builder avgFirstChunkMs(Double v) { avgFirstChunkMs = v; return this; }
        public Builder avgItlPerTokenMs(Double v) { avgItlPerTokenMs = v; return this; }
        public Builder tokenCountSource(String v) { tokenCountSource = v; return this; }
        public Builder scheduled(boolean v) { scheduled = v; return this; }
        public Builder avgQueueDelayMs(Double v) { avgQueueDelayMs = v; return this; }
        public Builder avgLatencyInclQueueSeconds(Double v) { avgLatencyInclQueueSeconds = v; return this; }
        public Builder avgTtftInclQueueMs(Double v) { avgTtftInclQueueMs = v; return this; }
        public Builder cacheHitSource(String v) { cacheHitSource = v; return this; }
        public Builder completedTraces(Long v) { completedTraces = v; return this; }
        public Builder percentileMethod(String v) { percentileMethod = v; return this; }
        public Builder cancelledRequests(long v) { cancelledRequests = v; return this; }
        public Builder cachedTokensSource(String v) { cachedTokensSource = v; return this; }
        public Builder meanIntervals(Map<String, Interval> v) { meanIntervals = v; return this; }
        public Builder reasoning(boolean v) { reasoning = v; return this; }
        public Builder avgTtfctMs(Double v) { avgTtfctMs = v; return this; }
        public Builder avgAnswerTpotMs(Double v) { avgAnswerTpotMs = v; return this; }
        public Builder totalReasoningTokens(Long v) { totalReasoningTokens = v; return this; }

        public Summary build() {
            return new Summary(set(testDurationSeconds, "testDurationSeconds"), set(concurrency, "concurrency"),
                    set(requestRate, "requestRate"), set(totalRequests, "totalRequests"),
                    set(successRequests, "successRequests"), set(failedRequests, "failedRequests"),
                    set(streamRequests, "streamRequests"), set(nonStreamRequests, "nonStreamRequests"),
                    set(reqThroughput, "reqThroughput"), set(avgLatencySeconds, "avgLatencySeconds"),
                    set(avgInputTokens, "avgInputTokens"), set(outputThroughput, "outputThroughput"),
                    set(totalThroughput, "totalThroughput"), avgTtftMs, avgTpotMs, avgItlMs,
                    set(avgOutputTokens, "avgOutputTokens"), set(inputThroughput, "inputThroughput"),
                    avgTurnsPerRequest, kvCacheHitRatePercent, avgFirstTurnTtftMs, avgSubsequentTurnTtftMs,
                    avgDecodedTokensPerIter, specAcceptRate, successRatePercent,
                    set(totalInputTokens, "totalInputTokens"), set(totalOutputTokens, "totalOutputTokens"),
                    totalCachedTokens, avgFirstChunkMs, avgItlPerTokenMs, tokenCountSource, scheduled,
                    avgQueueDelayMs, avgLatencyInclQueueSeconds, avgTtftInclQueueMs, cacheHitSource, completedTraces,
                    percentileMethod, cancelledRequests, cachedTokensSource, reasoning, avgTtfctMs, avgAnswerTpotMs,
                    totalReasoningTokens, meanIntervals);
        }

        private static <T> T set(T value, String name) {
            if (value == null) throw new IllegalStateException("Summary." + name + " was not set");
            return value;
        }
    }
}
