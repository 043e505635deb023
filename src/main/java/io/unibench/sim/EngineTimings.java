package io.unibench.sim;

/**
 * The engine's own account of one finished request, sent as llama.cpp's {@code timings} object when
 * {@code llamacpp-timings} is on. Measured on the engine's clock: prefill from admission to the end of the step that
 * produced the first token, decode from that step's end to the end of the last token's step.
 *
 * @param promptN     prompt tokens computed (not served from the prefix cache)
 * @param promptMs    prefill time, ms
 * @param predictedN  tokens generated (first choice)
 * @param predictedMs time from the first generated token to the last, ms
 * @param cacheN      prompt tokens served from the prefix cache
 */
record EngineTimings(int promptN, double promptMs, int predictedN, double predictedMs, int cacheN) {

    /** llama.cpp's object: its five figures and the per-token / per-second rates it derives from them. */
    String json() {
        return "{\"cache_n\":" + cacheN + ",\"prompt_n\":" + promptN + ",\"prompt_ms\":" + promptMs
                + ",\"prompt_per_token_ms\":" + (promptN > 0 ? promptMs / promptN : 0)
                + ",\"prompt_per_second\":" + (promptMs > 0 ? 1e3 * promptN / promptMs : 0)
                + ",\"predicted_n\":" + predictedN + ",\"predicted_ms\":" + predictedMs
                + ",\"predicted_per_token_ms\":" + (predictedN > 0 ? predictedMs / predictedN : 0)
                + ",\"predicted_per_second\":" + (predictedMs > 0 ? 1e3 * predictedN / predictedMs : 0) + "}";
    }
}
