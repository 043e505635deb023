package io.unibench.check;

/** The prompts the checks send: plain requests any chat model answers at length. */
final class Prompts {
    static final String SHORT = "Say hello.";
    static final String STORY = "Write a long story about a lighthouse keeper who finds a message in a bottle. "
            + "Describe the sea, the weather and every room of the lighthouse in detail.";

    private Prompts() {}

    /** A prompt of about {@code words} tokens (one common word with its space is one token in most vocabularies). */
    static String longText(int words) {
        String[] vocabulary = {"river", "stone", "light", "house", "green", "water", "paper", "music", "field", "table"};
        StringBuilder sb = new StringBuilder(words * 6 + 64).append("Summarise this text in one sentence:");
        for (int i = 0; i < words; i++) sb.append(' ').append(vocabulary[(i * 7 + i / 10) % vocabulary.length]);
        return sb.toString();
    }
}
