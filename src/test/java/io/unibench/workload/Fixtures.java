package io.unibench.workload;

import io.unibench.tokenizer.Tokenizer;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Test fixtures of src/test/resources/workload and option presets. */
final class Fixtures {
    private Fixtures() {}

    static String path(String name) {
        try {
            return Path.of(Fixtures.class.getResource("/workload/" + name).toURI()).toString();
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing fixture " + name, e);
        }
    }

    /** evalscope's defaults: lengths [0, 131072], no prefix, offset 0. */
    static DatasetOptions file(String path, Tokenizer tokenizer, boolean chat) {
        return new DatasetOptions(path, 0, 0, 131072, 0, tokenizer, chat, 42);
    }

    static DatasetOptions filtered(String path, int min, int max, Tokenizer tokenizer) {
        return new DatasetOptions(path, 0, min, max, 0, tokenizer, true, 42);
    }

    static DatasetOptions random(Tokenizer tokenizer, int min, int max, int prefix, long offset, long seed, boolean chat) {
        return new DatasetOptions(null, offset, min, max, prefix, tokenizer, chat, seed);
    }

    /** The content of the single user message of a chat prompt. */
    static String userContent(Prompt prompt) {
        if (prompt.messages() == null || prompt.messages().size() != 1) {
            throw new AssertionError("expected one message: " + prompt);
        }
        if (!"user".equals(prompt.messages().get(0).get("role").asText())) throw new AssertionError("not user: " + prompt);
        return prompt.messages().get(0).get("content").asText();
    }

    /** Text of a prompt of either text shape. */
    static String textOf(Prompt prompt) {
        return prompt.text() != null ? prompt.text() : userContent(prompt);
    }
}
