package io.unibench.tokenizer;

/**
 * Turns text into token ids and back. Implementations are thread-safe.
 * A tokenizer that only estimates ({@link #isEstimate()}) must have every count it produces
 * labelled as an estimate wherever it is shown.
 */
public interface Tokenizer {
    /** Name shown in reports, e.g. {@code cl100k_base} or a path. */
    String name();

    /** Token ids of {@code text}, without special tokens. */
    int[] encode(String text);

    /** Text of the ids; ids outside the vocabulary are an {@link IllegalArgumentException}. */
    String decode(int[] ids);

    /** Number of tokens of {@code text}; may be cheaper than {@code encode(text).length}. */
    default int count(String text) {
        return encode(text).length;
    }

    /**
     * One past the highest ordinary (not special) token id: every ordinary id is in 0..vocabSize()-1.
     * {@link #decode} rejects ids that are not ordinary tokens, including the rare special id inside that range
     * (p50k's {@code <|endoftext|>} = 50256), so callers drawing random ids skip ids that {@code decode} rejects.
     */
    int vocabSize();

    /**
     * True when the pre-tokenizer ends a piece after an ASCII letter followed by a space and an ASCII letter, and
     * starts the next piece at that space whatever follows (tiktoken's split patterns): the count of such a text is
     * then the sum of the counts of its parts cut there, which lets prompt synthesis count each part once.
     */
    default boolean splitsBeforeSpaceLetter() {
        return false;
    }

    /** True when counts are a character-based estimate rather than a real tokenizer. */
    default boolean isEstimate() {
        return false;
    }
}
