package io.unibench.tokenizer;

/**
 * Counts by characters: {@code ceil(chars / charsPerToken)}. Used where no tokenizer was given and the server
 * reports no usage; {@link #isEstimate()} is true, so every figure made with it is labelled estimated. It cannot
 * encode or decode (prompt synthesis needs a real tokenizer).
 */
public final class CharEstimateTokenizer implements Tokenizer {
    /** evalscope's {@code chars_per_token} default (its swe_smith pre-filter). */
    public static final double DEFAULT_CHARS_PER_TOKEN = 3.0;

    private final double charsPerToken;

    public CharEstimateTokenizer(double charsPerToken) {
        if (!(charsPerToken > 0) || Double.isInfinite(charsPerToken)) {
            throw new IllegalArgumentException("charsPerToken must be > 0: " + charsPerToken);
        }
        this.charsPerToken = charsPerToken;
    }

    public double charsPerToken() {
        return charsPerToken;
    }

    @Override public String name() {
        return "estimate (" + charsPerToken + " chars/token)";
    }

    /** Code points, not UTF-16 units: a CJK character or an emoji is one character. */
    @Override public int count(String text) {
        if (text == null || text.isEmpty()) return 0;
        return (int) Math.ceil(text.codePointCount(0, text.length()) / charsPerToken);
    }

    @Override public int[] encode(String text) {
        throw new UnsupportedOperationException("a character estimate has no token ids; pass --tokenizer-path");
    }

    @Override public String decode(int[] ids) {
        throw new UnsupportedOperationException("a character estimate has no token ids; pass --tokenizer-path");
    }

    @Override public int vocabSize() {
        return 0;
    }

    @Override public boolean isEstimate() {
        return true;
    }
}
