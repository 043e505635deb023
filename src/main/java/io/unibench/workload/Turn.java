package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * One turn of a {@link Conversation}: the messages this turn appends to the running context (usually one user
 * message; a custom dataset may add system or tool messages too). The model's reply is appended by the runner,
 * never taken from the dataset.
 *
 * @param messages                the delta appended before the turn is sent; stored and handed out as copies
 * @param maxTokens               {@code max_tokens} for this turn, overriding {@code --max-tokens}; {@code null} = none
 * @param toolCallLatencySeconds  pause before sending this turn (a tool call the agent waited for); {@code null} = none
 * @param targetTokens            tokens the dataset aimed the new message at (synthetic turns); -1 when it did not aim
 * @param actualTokens            tokens of the new message's text as the dataset's tokenizer counts it; -1 unknown
 */
public record Turn(ArrayNode messages, Integer maxTokens, Double toolCallLatencySeconds, int targetTokens,
                   int actualTokens) {
    /** A turn with no length target. */
    public Turn(ArrayNode messages, Integer maxTokens, Double toolCallLatencySeconds) {
        this(messages, maxTokens, toolCallLatencySeconds, -1, -1);
    }

    public Turn {
        if (messages == null || messages.isEmpty()) throw new IllegalArgumentException("a turn needs at least one message");
        if (maxTokens != null && maxTokens < 1) throw new IllegalArgumentException("maxTokens must be >= 1: " + maxTokens);
        if (toolCallLatencySeconds != null && !(toolCallLatencySeconds >= 0)) {
            throw new IllegalArgumentException("toolCallLatencySeconds must be >= 0: " + toolCallLatencySeconds);
        }
        messages = messages.deepCopy(); // JSON nodes are mutable; a turn must not change under the runner
    }

    /** A turn of one user message. */
    public static Turn user(String content) {
        return new Turn(Prompts.userMessage(content), null, null);
    }

    /** A copy of the delta: callers append it to their own history. */
    @Override
    public ArrayNode messages() {
        return messages.deepCopy();
    }

    /** The content of the first user message of the delta, or {@code null}; for length filters and tests. */
    public String firstUserText() {
        for (var m : messages) {
            if ("user".equals(m.path("role").asText()) && m.path("content").isTextual()) return m.get("content").asText();
        }
        return null;
    }
}
