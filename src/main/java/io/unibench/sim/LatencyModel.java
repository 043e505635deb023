package io.unibench.sim;

/**
 * When tokens are ready, llm-d's "per-token" model without load factor or jitter:
 * first token after {@code ttftMs + (promptTokens − cachedTokens) × prefillMsPerToken}, then one token every
 * {@code itlMs}. The timers use exactly these delays, so client tests can check TTFT and TPOT against them.
 */
record LatencyModel(double ttftMs, double prefillMsPerToken, double itlMs) {

    static LatencyModel of(SimConfig config) {
        return new LatencyModel(config.ttftMs(), config.prefillMsPerToken(), config.itlMs());
    }

    long firstTokenDelayNanos(long promptTokens, long cachedTokens) {
        return millisToNanos(ttftMs + Math.max(0, promptTokens - cachedTokens) * prefillMsPerToken);
    }

    long interTokenDelayNanos() {
        return millisToNanos(itlMs);
    }

    /** Time from request arrival to the last of {@code outputTokens} tokens (the non-streamed response time). */
    long totalNanos(long promptTokens, long cachedTokens, int outputTokens) {
        return firstTokenDelayNanos(promptTokens, cachedTokens) + Math.max(0, outputTokens - 1) * interTokenDelayNanos();
    }

    private static long millisToNanos(double ms) {
        return Math.round(ms * 1_000_000.0);
    }
}
