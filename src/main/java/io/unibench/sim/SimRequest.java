package io.unibench.sim;

import java.util.List;

/**
 * A parsed completion request: what to generate and how to answer, independent of HTTP.
 *
 * @param chat        true for {@code /v1/chat/completions}, false for {@code /v1/completions}
 * @param model       the model named in the body (echoed back), or the server's model when absent
 * @param prompts     one entry per choice: rendered chat text, or one completions prompt
 * @param maxTokens   {@code max_completion_tokens} or {@code max_tokens}; null when absent
 * @param minTokens   {@code min_tokens} (0 when absent)
 * @param seed        the request's {@code seed}, or null
 * @param stop        stop strings ({@code stop}, Anthropic's {@code stop_sequences}); empty when absent
 * @param api         the API the request came in on; {@code chat} says whether the chat template applied
 */
record SimRequest(boolean chat, String model, List<PromptInput> prompts, boolean stream, boolean includeUsage,
                  Integer maxTokens, int minTokens, boolean ignoreEos, Long seed, List<String> stop, WireApi api) {

    /** An OpenAI chat ({@code chat}) or completions request. */
    SimRequest(boolean chat, String model, List<PromptInput> prompts, boolean stream, boolean includeUsage,
               Integer maxTokens, int minTokens, boolean ignoreEos, Long seed, List<String> stop) {
        this(chat, model, prompts, stream, includeUsage, maxTokens, minTokens, ignoreEos, seed, stop,
                chat ? WireApi.CHAT : WireApi.COMPLETIONS);
    }

    /** A prompt given as text (tokenized by the server) or as token ids (used as is). Exactly one is non-null. */
    record PromptInput(String text, int[] tokenIds) {
        static PromptInput ofText(String text) { return new PromptInput(text, null); }

        static PromptInput ofTokens(int[] ids) { return new PromptInput(null, ids); }
    }
}
