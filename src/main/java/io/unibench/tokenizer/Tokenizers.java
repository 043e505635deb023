package io.unibench.tokenizer;

import io.unibench.BadInputException;

/** Finds a tokenizer from the value of {@code --tokenizer-path}. */
public final class Tokenizers {
    /** The tokenizer used when none is given and one is needed (random prompts, the simulator). */
    public static final String DEFAULT = "cl100k_base";

    private Tokenizers() {}

    public static Tokenizer load(String nameOrPath) {
        return TiktokenTokenizer.byName(nameOrPath).orElseThrow(() -> new BadInputException(
                "--tokenizer-path '" + nameOrPath + "': unknown tokenizer; use a bundled tiktoken encoding "
                        + "(cl100k_base, o200k_base, p50k_base, r50k_base)"));
    }

    public static Tokenizer defaultTokenizer() {
        return load(DEFAULT);
    }
}
