package io.unibench.client;

/**
 * The server's {@code usage} object, read from whichever vendor shape it came in.
 *
 * @param promptTokens     {@code prompt_tokens}; the Responses API's {@code input_tokens}; Anthropic's
 *                         {@code input_tokens + cache_creation_input_tokens + cache_read_input_tokens} (its
 *                         {@code input_tokens} leaves out what the cache read or wrote)
 * @param completionTokens {@code completion_tokens}, or {@code output_tokens}
 * @param cachedTokens     prompt tokens served from the prefix cache; -1 when the server did not report it
 * @param cachedField      the usage member {@code cachedTokens} came from (its source, shown in reports):
 *                         {@link #OPENAI_CACHED}, {@link #RESPONSES_CACHED}, {@link #DEEPSEEK_CACHED} or
 *                         {@link #ANTHROPIC_CACHED}; null when {@code cachedTokens} is -1
 * @param reasoningTokens  the completion tokens spent on reasoning ({@code completion_tokens_details.reasoning_tokens},
 *                         the Responses API's {@code output_tokens_details.reasoning_tokens}); -1 when not sent
 */
public record Usage(int promptTokens, int completionTokens, int cachedTokens, String cachedField, int reasoningTokens) {
    public static final String OPENAI_CACHED = "prompt_tokens_details.cached_tokens";
    public static final String RESPONSES_CACHED = "input_tokens_details.cached_tokens";
    public static final String DEEPSEEK_CACHED = "prompt_cache_hit_tokens";
    public static final String ANTHROPIC_CACHED = "cache_read_input_tokens";

    public Usage {
        if (cachedTokens < 0) cachedField = null;
    }

    /** Without a reasoning figure. */
    public Usage(int promptTokens, int completionTokens, int cachedTokens, String cachedField) {
        this(promptTokens, completionTokens, cachedTokens, cachedField, -1);
    }

    /** OpenAI's shape: the cached figure, when there is one, from {@code prompt_tokens_details.cached_tokens}. */
    public Usage(int promptTokens, int completionTokens, int cachedTokens) {
        this(promptTokens, completionTokens, cachedTokens, OPENAI_CACHED);
    }
}
