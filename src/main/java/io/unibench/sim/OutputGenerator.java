package io.unibench.sim;

import io.unibench.tokenizer.Tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Decides how many tokens a choice gets and which text they carry.
 *
 * <p>Length: with {@code ignore_eos} exactly the max; otherwise a natural EOS length, geometric on 1, 2, … with mean
 * {@code meanOutputTokens}, clamped to [max(1, min_tokens), max]. The max is {@code max_tokens} or, when absent,
 * 16 × meanOutputTokens. {@code finish_reason} is "length" when the max is reached, else "stop".
 *
 * <p>Text: one word per token, from common English words with a leading space that are exactly ONE token in the
 * configured tokenizer, so {@code completion_tokens} equals the number of chunks and re-tokenizing the text gives
 * the same count (word-initial spaces keep tokenizer pre-splitting at word boundaries).
 *
 * <p>Determinism: the draws come from a RNG seeded by the server seed, the request's {@code seed} (if any), a hash
 * of the prompt's token ids and the choice index, so the same request always gets the same output.
 */
final class OutputGenerator {
    private static final String[] COMMON_WORDS = {
            "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not",
            "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they", "you", "were",
            "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would",
            "who", "so", "no", "she", "other", "its", "may", "these", "about", "than", "into", "them", "time", "some",
            "could", "only", "new", "people", "two", "first", "also", "any", "like", "over", "such", "our", "then",
            "what", "most", "made", "after", "many", "where", "should", "those", "just", "must", "work", "well",
            "state", "world", "year", "way", "long", "good", "day", "man", "even", "much", "life", "back", "under",
            "system", "great", "still", "between", "own", "each", "same", "another", "know", "while", "last",
            "might", "us", "through", "water", "model", "light", "small", "large", "city", "house", "number", "part",
            "place", "point", "case", "group", "problem", "fact", "hand", "high", "home", "public", "order", "power",
            "line", "end", "change", "game", "party", "name", "side", "book", "area", "word", "level", "idea",
            "story", "team", "family", "music", "school", "river", "market", "field", "road", "table", "paper",
            "value", "data", "energy", "simple", "clear", "green", "blue", "open", "early", "real", "true", "free",
    };

    private final byte[][] words;
    /** The token id of each word (each is one token). */
    private final int[] wordIds;
    private final long serverSeed;
    private final int meanOutputTokens;
    private final SimConfig.Misbehaviour bad;
    /** Misbehaviour nondeterministic: mixed into every draw, so no two requests get the same output. */
    private final java.util.concurrent.atomic.AtomicLong draws = new java.util.concurrent.atomic.AtomicLong();

    OutputGenerator(Tokenizer tokenizer, long serverSeed, int meanOutputTokens) {
        this(tokenizer, serverSeed, meanOutputTokens, SimConfig.Misbehaviour.none());
    }

    OutputGenerator(Tokenizer tokenizer, long serverSeed, int meanOutputTokens, SimConfig.Misbehaviour bad) {
        this.bad = bad;
        List<byte[]> kept = new ArrayList<>();
        for (String w : COMMON_WORDS) {
            String token = " " + w;
            if (tokenizer.count(token) == 1) kept.add(token.getBytes(StandardCharsets.UTF_8));
        }
        if (kept.size() < 8) {
            throw new IllegalStateException("tokenizer " + tokenizer.name() + " has only " + kept.size()
                    + " of the simulator's words as single tokens; output token counts would not be exact");
        }
        this.words = kept.toArray(new byte[0][]);
        this.wordIds = new int[words.length];
        for (int i = 0; i < words.length; i++) wordIds[i] = tokenizer.encode(new String(words[i], StandardCharsets.UTF_8))[0];
        this.serverSeed = serverSeed;
        this.meanOutputTokens = meanOutputTokens;
    }

    /** Number of usable one-token words (for tests). */
    int vocabularySize() { return words.length; }

    /** The UTF-8 bytes of word {@code index}: plain ASCII letters after a space, so they need no JSON escaping. */
    byte[] word(int index) { return words[index]; }

    int maxTokens(SimRequest request) {
        return request.maxTokens() != null && !bad.ignoreMaxTokens() ? request.maxTokens() : 16 * meanOutputTokens;
    }

    ChoiceOutput plan(SimRequest request, int[] promptTokens, int choiceIndex) {
        long seed = Mix.combine(serverSeed, request.seed() == null ? 0x5EED_AB5E_17L : Mix.combine(1, request.seed()));
        seed = Mix.combine(Mix.combine(seed, Mix.hashTokens(promptTokens)), choiceIndex);
        if (bad.nondeterministic()) seed = Mix.combine(seed, draws.incrementAndGet());
        SplittableRandom rng = new SplittableRandom(seed);
        long wordSeed = Mix.combine(seed, 0x30AD5L);
        int max = maxTokens(request);
        int length;
        if (request.ignoreEos() && !bad.ignoreIgnoreEos()) {
            length = max;
        } else {
            int natural = naturalLength(rng);
            length = Math.min(max, Math.max(Math.max(1, request.minTokens()), natural));
        }
        String finishReason = length == max ? "length" : "stop";
        int cut = -1;
        if (!request.stop().isEmpty() && !bad.ignoreStop()) {
            int[] stopAt = findStop(request.stop(), wordSeed, length, request.minTokens());
            if (stopAt != null) {
                length = stopAt[0];
                cut = stopAt[1];
                finishReason = "stop";
            }
        }
        return new ChoiceOutput(length, finishReason, wordSeed, words.length, cut);
    }

    /**
     * Replays the words of a choice to find the first stop string: {token index (1-based), bytes of that token to
     * send}, or null. The reply ends at the token that completes the stop string, and the text stops right before
     * the stop string (OpenAI semantics: the stop string is not returned). A stop string that began in an earlier,
     * already streamed token cannot be taken back; that token's text stays as sent (vLLM holds such text back).
     * Stops are looked for from token {@code minTokens} on, as min_tokens asks.
     */
    private int[] findStop(java.util.List<String> stops, long wordSeed, int length, int minTokens) {
        SplittableRandom rng = new SplittableRandom(wordSeed);
        int longest = 0;
        for (String s : stops) longest = Math.max(longest, s.length());
        StringBuilder text = new StringBuilder();
        for (int k = 1; k <= length; k++) {
            int wordStart = text.length();
            text.append(new String(words[rng.nextInt(words.length)], StandardCharsets.US_ASCII));
            if (k < minTokens) continue;
            int from = Math.max(0, wordStart - longest + 1);
            int best = -1;
            for (String s : stops) {
                int i = text.indexOf(s, from);
                if (i >= 0 && (best < 0 || i < best)) best = i;
            }
            if (best >= 0) return new int[]{k, Math.max(0, best - wordStart)};
        }
        return null;
    }

    /**
     * The token ids of the first {@code count} words {@code choice} sends, replayed from its seed (thread-safe: the
     * choice's own RNG, on its event loop, is not touched). Whole words: a stop string's cut of the last one is not
     * applied.
     */
    int[] tokenIds(ChoiceOutput choice, int count) {
        SplittableRandom rng = new SplittableRandom(choice.wordSeed);
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) ids[i] = wordIds[rng.nextInt(words.length)];
        return ids;
    }

    /** Geometric on {1, 2, …} with success probability 1/mean, hence mean {@code meanOutputTokens}. */
    private int naturalLength(SplittableRandom rng) {
        if (meanOutputTokens <= 1) return 1;
        double p = 1.0 / meanOutputTokens;
        double u = rng.nextDouble(); // [0, 1)
        double n = 1 + Math.floor(Math.log1p(-u) / Math.log1p(-p));
        return n >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    /** One choice being generated: its fixed length and the RNG that picks its words. Confined to one event loop. */
    static final class ChoiceOutput {
        final int length;
        final String finishReason;
        private final SplittableRandom rng;
        /** The seed of {@link #rng}, to replay the words elsewhere ({@link OutputGenerator#tokenIds}). */
        private final long wordSeed;
        private final int vocabulary;
        /** Bytes of the last token's word to send (a stop string cuts it), or -1 for all. */
        final int lastTokenBytes;
        private int emitted;

        private ChoiceOutput(int length, String finishReason, long wordSeed, int vocabulary, int lastTokenBytes) {
            this.length = length;
            this.finishReason = finishReason;
            this.rng = new SplittableRandom(wordSeed);
            this.wordSeed = wordSeed;
            this.vocabulary = vocabulary;
            this.lastTokenBytes = lastTokenBytes;
        }

        boolean finished() { return emitted >= length; }

        /** Index of the next word; call only while not finished. */
        int nextWord() {
            emitted++;
            return rng.nextInt(vocabulary);
        }
    }
}
