package io.unibench.tokenizer;

import io.unibench.BadInputException;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds a tokenizer from the value of {@code --tokenizer-path}. */
public final class Tokenizers {
    /** The tokenizer used when none is given and one is needed (random prompts, the simulator). */
    public static final String DEFAULT = "cl100k_base";

    private Tokenizers() {}

    /**
     * A bundled tiktoken encoding by name ({@code cl100k_base}, {@code o200k_base}, {@code p50k_base},
     * {@code r50k_base}), else a Hugging Face {@code tokenizer.json} file or a folder holding one.
     */
    public static Tokenizer load(String nameOrPath) {
        var tiktoken = TiktokenTokenizer.byName(nameOrPath);
        if (tiktoken.isPresent()) return tiktoken.get();
        Path path;
        try {
            path = Path.of(nameOrPath);
        } catch (RuntimeException e) {
            path = null;
        }
        if (path != null && Files.exists(path)) return HfTokenizer.load(path);
        throw new BadInputException("--tokenizer-path '" + nameOrPath + "': unknown tokenizer; use a bundled "
                + "tiktoken encoding (cl100k_base, o200k_base, p50k_base, r50k_base) or a local Hugging Face "
                + "tokenizer.json file or model folder (nothing is downloaded)");
    }

    public static Tokenizer defaultTokenizer() {
        return load(DEFAULT);
    }
}
