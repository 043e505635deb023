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
     * True when any run of this tokenizer's "space words" — vocabulary entries that are a space, ASCII capitals, then
     * ASCII small letters ({@code " the"}, {@code " Paris"}, {@code " HTTP"}, {@code " Http"}) — joined as text, alone
     * or after text that ends in an ASCII letter, encodes to exactly those entries, one token each, without the text
     * before it changing its own tokens. tiktoken's split patterns (cl100k, o200k, p50k/r50k) make each such entry one
     * piece (a piece never holds a letter followed by a space), and a piece that is a vocabulary entry is that one
     * token; {@code PromptSynthesizerTest} checks every entry and random runs of them under each bundled encoding.
     * Prompt synthesis then makes text of an exact length without encoding it.
     */
    default boolean encodesSpaceWordsAsDrawn() {
        return false;
    }

    /** True when counts are a character-based estimate rather than a real tokenizer. */
    default boolean isEstimate() {
        return false;
    }
}
