package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** The two shapes of a single-turn text prompt: one user message (chat endpoint) or bare text (completions). */
final class Prompts {
    private Prompts() {}

    static Prompt userPrompt(String text, boolean chat, int targetTokens, int actualTokens) {
        return chat ? Prompt.ofMessages(userMessage(text), targetTokens, actualTokens)
                : Prompt.ofText(text, targetTokens, actualTokens);
    }

    /** {@code [{"role":"user","content":text}]}. */
    static ArrayNode userMessage(String text) {
        ArrayNode messages = JsonNodeFactory.instance.arrayNode();
        messages.addObject().put("role", "user").put("content", text);
        return messages;
    }
}
