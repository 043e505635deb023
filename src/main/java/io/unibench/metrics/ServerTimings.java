package io.unibench.metrics;

/**
 * What the server said about its own timing for one request: llama.cpp's {@code timings} object. The client's
 * figures for the same request are measured independently; the two side by side show what lies between the
 * server's compute and the client's clock (network, queueing before the server's slot, the client itself).
 *
 * @param promptN     prompt tokens the server computed ({@code prompt_n}; its cache served the rest); -1 unknown
 * @param promptMs    its prefill time for them, ms ({@code prompt_ms}); NaN unknown
 * @param predictedN  tokens it generated ({@code predicted_n}); -1 unknown
 * @param predictedMs its time from the first generated token to the last, ms ({@code predicted_ms}); NaN unknown
 * @param cacheN      prompt tokens it served from its cache ({@code cache_n}); -1 unknown
 */
public record ServerTimings(int promptN, double promptMs, int predictedN, double predictedMs, int cacheN) {

    /**
     * The server's decode time per token, {@code predicted_ms / (predicted_n − 1)}: its clock starts at the first
     * generated token, so n tokens span n − 1 intervals, the same division as the client's TPOT. NaN when there
     * is no interval.
     */
    public double decodeMsPerToken() {
        if (predictedN <= 1 || !Double.isFinite(predictedMs)) return Double.NaN;
        return predictedMs / (predictedN - 1);
    }
}
