package io.unibench.workload;

import io.unibench.BadInputException;

/**
 * {@code --prompt TEXT} or {@code --prompt @FILE}: one prompt sent by every request, in place of a dataset.
 * A file's content is used verbatim (a trailing newline included), as evalscope reads it.
 */
public final class FixedPrompt {
    private FixedPrompt() {}

    /**
     * The prompt of the flag's value: one user message when {@code options.chat()}, else text.
     * {@code actualTokens} is the tokenizer's count when {@code options.tokenizer()} is given, else -1.
     */
    public static Prompt load(String value, DatasetOptions options) {
        if (value == null) throw new IllegalArgumentException("value is required");
        String text;
        if (value.startsWith("@")) {
            String path = value.substring(1);
            if (path.isBlank()) throw new BadInputException("--prompt @FILE: the file name after '@' is missing");
            text = DatasetFile.readAll(path);
            if (text.isBlank()) throw BadInputException.at(path, 0, null, "--prompt file has only blank text");
        } else {
            text = value;
            if (text.isBlank()) throw new BadInputException("--prompt is empty");
        }
        int tokens = options.tokenizer() != null ? options.tokenizer().count(text) : -1;
        return Prompts.userPrompt(text, options.chat(), -1, tokens);
    }
}
