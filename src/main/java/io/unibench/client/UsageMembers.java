package io.unibench.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The members of one usage object that count, in every vendor shape we read (OpenAI's {@code prompt_tokens} and
 * {@code prompt_tokens_details}, the Responses API's {@code input_tokens} and {@code input_tokens_details},
 * DeepSeek's {@code prompt_cache_hit_tokens}, Anthropic's {@code cache_*_input_tokens}), as {@link ChunkScanner}
 * reads them from the wire or {@link #read(JsonNode)} from a tree; {@link Tally#merge} is the one rule that turns
 * them into a reply's figures ({@link Tally}), whichever reader found them.
 *
 * <p>Each member is {@link #ABSENT}, {@link #NULL} ({@code null}, or for a cached figure any value that is not a
 * number) or its integer value. Not thread-safe: the scanner's, reused for every usage object.
 */
final class UsageMembers {
    static final int ABSENT = Integer.MIN_VALUE;
    static final int NULL = Integer.MIN_VALUE + 1;

    int promptTokens;
    int completionTokens;
    int inputTokens;
    int outputTokens;
    int cacheCreationInputTokens;
    /** {@code cache_read_input_tokens} as a count (added to the prompt) and as the cached figure. */
    int cacheReadInputTokens;
    int cacheReadCached;
    int promptCacheHitTokens;
    /** {@code prompt_tokens_details} is present, whatever its value. */
    boolean promptDetails;
    /** {@code prompt_tokens_details.cached_tokens}, {@code input_tokens_details.cached_tokens}. */
    int promptDetailsCached;
    int inputDetailsCached;
    /** {@code completion_tokens_details.reasoning_tokens}, {@code output_tokens_details.reasoning_tokens}. */
    int completionDetailsReasoning;
    int outputDetailsReasoning;

    UsageMembers() {
        clear();
    }

    void clear() {
        promptTokens = completionTokens = inputTokens = outputTokens = ABSENT;
        cacheCreationInputTokens = cacheReadInputTokens = cacheReadCached = promptCacheHitTokens = ABSENT;
        promptDetails = false;
        promptDetailsCached = inputDetailsCached = ABSENT;
        completionDetailsReasoning = outputDetailsReasoning = ABSENT;
    }

    /** The members of a usage object read as a tree, with Jackson's conversions (a string "12" counts as 12). */
    void read(JsonNode node) {
        clear();
        promptTokens = count(node, "prompt_tokens");
        completionTokens = count(node, "completion_tokens");
        inputTokens = count(node, "input_tokens");
        outputTokens = count(node, "output_tokens");
        cacheCreationInputTokens = count(node, "cache_creation_input_tokens");
        cacheReadInputTokens = count(node, "cache_read_input_tokens");
        cacheReadCached = cached(node.get("cache_read_input_tokens"));
        promptCacheHitTokens = cached(node.get("prompt_cache_hit_tokens"));
        promptDetails = node.has("prompt_tokens_details");
        promptDetailsCached = cached(node.path("prompt_tokens_details").get("cached_tokens"));
        inputDetailsCached = cached(node.path("input_tokens_details").get("cached_tokens"));
        completionDetailsReasoning = cached(node.path("completion_tokens_details").get("reasoning_tokens"));
        outputDetailsReasoning = cached(node.path("output_tokens_details").get("reasoning_tokens"));
    }

    private static int count(JsonNode node, String name) {
        return node.has(name) ? node.path(name).asInt(0) : ABSENT;
    }

    private static int cached(JsonNode value) {
        return value == null ? ABSENT : value.isNumber() ? value.asInt() : NULL;
    }

    /**
     * A reply's usage so far: the usage objects it sent, merged in order (members a later object lacks keep their
     * values, as Anthropic reports the input in {@code message_start} and the output in {@code message_delta}).
     * Prompt tokens: {@code prompt_tokens}, else {@code input_tokens} plus Anthropic's
     * {@code cache_creation_input_tokens} and {@code cache_read_input_tokens}, which its {@code input_tokens} leaves
     * out. Cached tokens, first found: {@code prompt_tokens_details.cached_tokens},
     * {@code input_tokens_details.cached_tokens}, {@code prompt_cache_hit_tokens}, {@code cache_read_input_tokens}
     * (the member is kept as the figure's source); a details object without the figure makes it unknown. Reasoning
     * tokens: {@code completion_tokens_details.reasoning_tokens}, else {@code output_tokens_details.reasoning_tokens};
     * unknown (-1) when neither was sent or it is not a number.
     */
    static final class Tally {
        private boolean seen;
        int prompt;
        int completion;
        private int cached = -1;
        private String cachedField;
        private int reasoning = -1;

        void merge(UsageMembers m) {
            seen = true;
            if (m.promptTokens != ABSENT) {
                prompt = value(m.promptTokens);
            } else if (m.inputTokens != ABSENT) {
                prompt = value(m.inputTokens) + value(m.cacheCreationInputTokens) + value(m.cacheReadInputTokens);
            }
            if (m.completionTokens != ABSENT) {
                completion = value(m.completionTokens);
            } else if (m.outputTokens != ABSENT) {
                completion = value(m.outputTokens);
            }
            if (m.promptDetailsCached != ABSENT) {
                cached(m.promptDetailsCached, Usage.OPENAI_CACHED);
            } else if (m.inputDetailsCached != ABSENT) {
                cached(m.inputDetailsCached, Usage.RESPONSES_CACHED);
            } else if (m.promptCacheHitTokens != ABSENT) {
                cached(m.promptCacheHitTokens, Usage.DEEPSEEK_CACHED);
            } else if (m.cacheReadCached != ABSENT) {
                cached(m.cacheReadCached, Usage.ANTHROPIC_CACHED);
            } else if (m.promptDetails) {
                cached(NULL, null); // a details object without the figure: unknown, as a tree reader sees it
            }
            int r = m.completionDetailsReasoning != ABSENT ? m.completionDetailsReasoning : m.outputDetailsReasoning;
            if (r != ABSENT) reasoning = r == NULL ? -1 : r;
        }

        private void cached(int member, String field) {
            boolean known = member != NULL;
            cached = known ? member : -1;
            cachedField = known ? field : null;
        }

        /** The server's usage, or null when it sent none. */
        Usage usage() {
            return seen ? new Usage(prompt, completion, cached, cachedField, reasoning) : null;
        }
    }

    /** A count's value: {@code null} counts 0. */
    private static int value(int member) {
        return member == ABSENT || member == NULL ? 0 : member;
    }
}
