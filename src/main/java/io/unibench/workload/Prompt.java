package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One single-turn request's input, exactly one of three shapes.
 *
 * @param messages      OpenAI chat messages (chat endpoint); or {@code null}
 * @param text          a plain prompt string (legacy completions endpoint); or {@code null}
 * @param body          a complete request body given by the dataset (a JSON-object line of {@code line_by_line});
 *                      generation parameters fill only its missing keys; or {@code null}
 * @param targetTokens  the token length the dataset aimed for (random prompts); -1 when it did not aim
 * @param actualTokens  the token length of the prompt text as the dataset's tokenizer counts it; -1 unknown
 */
public record Prompt(ArrayNode messages, String text, ObjectNode body, int targetTokens, int actualTokens) {

    public Prompt {
        int shapes = (messages != null ? 1 : 0) + (text != null ? 1 : 0) + (body != null ? 1 : 0);
        if (shapes != 1) throw new IllegalArgumentException("a prompt has exactly one of messages, text, body");
    }

    public static Prompt ofMessages(ArrayNode messages, int targetTokens, int actualTokens) {
        return new Prompt(messages, null, null, targetTokens, actualTokens);
    }

    public static Prompt ofText(String text, int targetTokens, int actualTokens) {
        return new Prompt(null, text, null, targetTokens, actualTokens);
    }

    public static Prompt ofBody(ObjectNode body) {
        return new Prompt(null, null, body, -1, -1);
    }
}
