package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;

/**
 * evalscope's {@code check_prompt_length}: a prompt is kept iff {@code min <= length <= max}, where length is
 * tokens when a tokenizer is given and characters (Unicode code points, as Python's {@code len}) otherwise.
 *
 * @param tokenizer null to measure characters
 */
record LengthFilter(int min, int max, Tokenizer tokenizer) {

    static LengthFilter of(DatasetOptions options) {
        requireValidBounds(options);
        return new LengthFilter(options.minPromptLength(), options.maxPromptLength(), options.tokenizer());
    }

    static void requireValidBounds(DatasetOptions options) {
        if (options.minPromptLength() < 0) {
            throw new BadInputException("--min-prompt-length must be >= 0, got " + options.minPromptLength());
        }
        if (options.maxPromptLength() < options.minPromptLength()) {
            throw new BadInputException("--max-prompt-length " + options.maxPromptLength()
                    + " is less than --min-prompt-length " + options.minPromptLength());
        }
    }

    /** Tokens of {@code text} with a tokenizer, else its characters. */
    int length(String text) {
        return tokenizer != null ? tokenizer.count(text) : text.codePointCount(0, text.length());
    }

    boolean accepts(int length) {
        return length >= min && length <= max;
    }

    /** E.g. {@code [0, 131072] tokens (cl100k_base)}, for messages. */
    String describe() {
        return "[" + min + ", " + max + "] " + (tokenizer != null ? "tokens (" + tokenizer.name() + ")" : "characters");
    }

    /** The error when a file had lines but none passed. */
    BadInputException nothingPassed(String path, long linesRead) {
        return BadInputException.at(path, 0, null, "no prompt passes the length filter: read " + linesRead
                + " non-blank line(s), none with length in " + describe()
                + "; adjust --min-prompt-length/--max-prompt-length");
    }
}
