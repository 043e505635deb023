package io.unibench.sim;

/**
 * Where a {@link Generation} sends its tokens: the SSE stream or the full JSON body. Called on the channel's event
 * loop only. Separates "when tokens appear" (the generation and its timers) from "how they are written" (HTTP).
 */
interface GenerationSink {
    /** Right before the first token of the first tick (chat streams send the role-only chunk here). */
    void firstToken();

    /** One output token of choice {@code choice}; {@code word} is JSON-safe UTF-8. */
    void token(int choice, byte[] word);

    void choiceFinished(int choice, String finishReason);

    /** End of one tick: push what was written to the client. */
    void flush();

    /** All choices finished; {@code completionTokens} is the total emitted. */
    void completed(int completionTokens);
}
