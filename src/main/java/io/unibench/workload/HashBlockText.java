package io.unibench.workload;

import io.unibench.tokenizer.Tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Prompt text made of hash blocks, so that equal block ids are equal token blocks on the server: each block is
 * {@link MooncakeTrace#BLOCK_TOKENS} tokens drawn (seeded by the block's id alone) from "words", tokens whose text
 * is a space and lowercase letters and that the tokenizer encodes back to exactly themselves. A word is a whole
 * pre-token of byte-level BPE tokenizers (cl100k, o200k, Llama 3's), so a run of words encodes to exactly those
 * tokens, with no merge across a block's edge: the text of blocks a, b, c is the tokens of a, then b, then c.
 */
final class HashBlockText {
    private static final Pattern WORD = Pattern.compile(" [a-z]{2,12}");
    /** Fewer would make two different blocks' first tokens collide too often for an exact prefix match. */
    static final int MIN_WORDS = 256;

    private final String[] words;
    private final long seed;

    /** @param seed mixed into every block's draw (a different seed gives other text for the same ids) */
    HashBlockText(Tokenizer tokenizer, long seed) {
        List<String> found = new ArrayList<>();
        int[] one = new int[1];
        for (int id = 0; id < tokenizer.vocabSize() && found.size() < 8192; id++) {
            one[0] = id;
            String text;
            try {
                text = tokenizer.decode(one);
            } catch (IllegalArgumentException notAToken) {
                continue;
            }
            if (!WORD.matcher(text).matches()) continue;
            int[] back = tokenizer.encode(text);
            if (back.length == 1 && back[0] == id) found.add(text);
        }
        if (found.size() < MIN_WORDS) {
            throw new io.unibench.BadInputException("--tokenizer-path " + tokenizer.name() + ": has " + found.size()
                    + " single-token words (' ' + letters); mooncake_trace needs " + MIN_WORDS
                    + " to synthesize its blocks");
        }
        this.words = found.toArray(String[]::new);
        this.seed = seed;
        // the construction's promise, checked once: two blocks and a partial one encode to exactly their tokens
        int[] sample = tokenizer.encode(text(new long[] {1, 2, 3}, 2 * MooncakeTrace.BLOCK_TOKENS + 7));
        int[] first = tokenizer.encode(text(new long[] {1}, MooncakeTrace.BLOCK_TOKENS));
        if (sample.length != 2 * MooncakeTrace.BLOCK_TOKENS + 7
                || !java.util.Arrays.equals(sample, 0, first.length, first, 0, first.length)) {
            throw new io.unibench.BadInputException("--tokenizer-path " + tokenizer.name() + ": its words merge "
                    + "across block edges, so mooncake_trace blocks would not be exact; use a BPE tokenizer");
        }
    }

    /** The text of the first {@code tokens} tokens of the blocks {@code hashIds}, in order. */
    String text(long[] hashIds, int tokens) {
        StringBuilder sb = new StringBuilder(tokens * 7);
        int left = tokens;
        for (int b = 0; b < hashIds.length && left > 0; b++) {
            SplittableRandom rng = new SplittableRandom(mix64(mix64(seed) + hashIds[b]));
            int n = Math.min(left, MooncakeTrace.BLOCK_TOKENS);
            // the whole block is drawn whatever its length, so a partial last block is a prefix of the full one
            for (int i = 0; i < n; i++) sb.append(words[rng.nextInt(words.length)]);
            left -= n;
        }
        return sb.toString();
    }

    /**
     * Stafford's mix13 (SplittableRandom's own finalizer): seeds of nearby ids land far apart on SplittableRandom's
     * one gamma orbit, so no block's draw is a shifted copy of another's (seeds k·γ apart would be).
     */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
