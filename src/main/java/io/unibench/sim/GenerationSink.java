package io.unibench.sim;

/**
 * Where a sequence's output goes: the SSE stream or the full JSON body. Called on the channel's event loop only.
 * Separates "when tokens appear" (the engine) from "how they are written" (HTTP).
 */
interface GenerationSink {
    /** The prompt tokens the prefix cache served, known at admission (right before {@link #admitted}). */
    void cachedTokens(int cached);

    /** The engine admitted the request (streams send their response head here). */
    void admitted();

    /** Right before the first token (chat streams send the role-only chunk here). */
    void firstToken();

    /** One output token of choice {@code choice}; {@code word} is JSON-safe UTF-8. */
    void token(int choice, byte[] word);

    /**
     * One reasoning token of choice {@code choice} (a reasoning model's, before its answer: see
     * {@link SimConfig.Reasoning}); a sink that has no place for reasoning writes it as an output token.
     */
    default void reasoningToken(int choice, byte[] word) {
        token(choice, word);
    }

    /** The reasoning tokens among the completion's, told right before {@link #completed}; 0 without reasoning. */
    default void reasoningTokens(int count) {}

    /** The malformed-json fault: one broken event (stream) or a cut body at the end (non-stream). */
    void malformed();

    void choiceFinished(int choice, String finishReason);

    /** End of one delivery: push what was written to the client. */
    void flush();

    /**
     * All choices finished; {@code completionTokens} is the total emitted; {@code timings} the engine's own, to send
     * as llama.cpp's {@code timings} object, or null (not asked for).
     */
    void completed(int completionTokens, EngineTimings timings);

    /** The request failed after it was admitted (fail-midstream fault, server closing). */
    void failed(ApiException error);
}
