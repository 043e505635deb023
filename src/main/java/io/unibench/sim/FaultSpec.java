package io.unibench.sim;

/**
 * The fault applied to one request (from the {@code X-Unibench-Fault} header or drawn from the configured rates).
 *
 * @param kind             the fault, or null for none (delays may still apply)
 * @param firstChunkDelayMs extra wait before the first chunk (0 = none)
 * @param chunkDelayMs     minimum gap between two chunks of this stream (0 = none)
 * @param afterChunks      for fail-midstream, disconnect and malformed-json: how many token chunks go out first
 * @param retryAfterS      {@code Retry-After} of 429/503 answers
 * @param finishReason     for missing-done: whether the finish_reason chunk is still sent
 */
record FaultSpec(FaultKind kind, long firstChunkDelayMs, long chunkDelayMs, int afterChunks, int retryAfterS,
                 boolean finishReason) {
    static final FaultSpec NONE = new FaultSpec(null, 0, 0, 0, 1, true);

    boolean is(FaultKind k) { return kind == k; }

    /** Token chunks after which the engine stops this sequence, or -1. */
    int stopAfterChunks() {
        return kind == FaultKind.FAIL_MIDSTREAM || kind == FaultKind.DISCONNECT ? afterChunks : -1;
    }
}
