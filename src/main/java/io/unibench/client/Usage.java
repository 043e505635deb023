package io.unibench.client;

/**
 * The server's {@code usage} object.
 *
 * @param promptTokens     {@code prompt_tokens}
 * @param completionTokens {@code completion_tokens}
 * @param cachedTokens     {@code prompt_tokens_details.cached_tokens}; -1 when the server did not report it
 */
public record Usage(int promptTokens, int completionTokens, int cachedTokens) {}
