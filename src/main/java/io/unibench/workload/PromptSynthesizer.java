package io.unibench.workload;

import io.unibench.tokenizer.Tokenizer;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Random text of an exact token length, as the given tokenizer re-encodes it.
 *
 * <p>Random token ids rarely survive decode → encode unchanged: neighbouring tokens merge or split at their
 * boundaries, which is why evalscope's random prompts re-tokenize longer than asked. So we draw ids, decode,
 * re-encode and correct (cut surplus tokens, append fresh ones) for up to {@link #MAX_ADJUSTMENTS} rounds,
 * keeping the closest text seen when it does not converge.
 *
 * <p>Ids are drawn only from ordinary tokens whose text is whole (no U+FFFD from a partial UTF-8 sequence) and has
 * no control characters, so any concatenation of them decodes to clean text. That list is computed once per
 * synthesizer, on first use. Instances are thread-safe; reuse one per tokenizer.
 *
 * <p>Under a tiktoken encoding ({@link Tokenizer#splitsBeforeSpaceLetter}) the text is counted in segments instead ({@link #segmented}): the same random ids,
 * joined, but counted piece-group by piece-group as they are drawn, so each part of the text goes through the BPE
 * once (the decode → encode → cut → count path encoded it twice, ~0.2–0.5 ms per 128-token prompt under C1).
 */
public final class PromptSynthesizer {
    /** Decode/re-encode corrections after the first draw. */
    public static final int MAX_ADJUSTMENTS = 10;

    /**
     * @param text          the synthesized text (starting with the fixed prefix when one was given)
     * @param targetTokens  the token count asked for
     * @param actualTokens  the token count of {@code text} as the tokenizer encodes it
     */
    public record Synthesized(String text, int targetTokens, int actualTokens) {
        public boolean exact() {
            return targetTokens == actualTokens;
        }
    }

    private final Tokenizer tokenizer;
    private volatile Vocabulary vocabulary;

    public PromptSynthesizer(Tokenizer tokenizer) {
        if (tokenizer == null) throw new IllegalArgumentException("tokenizer is required");
        this.tokenizer = tokenizer;
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** Text of exactly {@code n} tokens when it converges; {@code n == 0} gives the empty text. */
    public Synthesized synthesize(int n, RandomGenerator rng) {
        return synthesize("", n, rng);
    }

    /**
     * {@code prefix} followed by random text, {@code totalTokens} tokens in all (prefix included).
     * The prefix is kept verbatim; only the part after it is drawn and corrected, also until the prefix's own tokens
     * are the first tokens of the whole text (so a server's prefix cache can match it).
     *
     * @throws IllegalArgumentException when {@code totalTokens} does not leave room for at least one token after a
     *                                  non-empty prefix
     */
    public Synthesized synthesize(String prefix, int totalTokens, RandomGenerator rng) {
        if (totalTokens < 0) throw new IllegalArgumentException("negative token count: " + totalTokens);
        int prefixTokens = prefix.isEmpty() ? 0 : tokenizer.count(prefix);
        if (totalTokens == 0 && prefixTokens == 0) return new Synthesized(prefix, 0, 0);
        if (totalTokens <= prefixTokens) {
            throw new IllegalArgumentException("target " + totalTokens + " tokens leaves no room after a prefix of "
                    + prefixTokens + " tokens");
        }
        Vocabulary v = vocabulary();
        if (v.segmentable(tokenizer) && (prefix.isEmpty() || endsWithAsciiLetter(prefix))) {
            Synthesized s = segmented(prefix, prefixTokens, totalTokens, rng, v);
            if (s != null) return s;
        }
        int[] prefixIds = prefix.isEmpty() ? new int[0] : tokenizer.encode(prefix);
        String text = prefix + randomText(totalTokens - prefixTokens, rng);
        String best = null;
        int bestCount = -1;
        long bestScore = Long.MAX_VALUE;
        for (int round = 0; ; round++) {
            // After the first round the text is usually right, and counting is cheaper than encoding (no id list):
            // count first, and encode only when the ids are needed to correct it.
            if (round > 0 && prefix.isEmpty() && tokenizer.count(text) == totalTokens) {
                return new Synthesized(text, totalTokens, totalTokens);
            }
            int[] ids = tokenizer.encode(text);
            // A server caches the prefix by its tokens, so the prefix's own tokens must open the text's tokens: a
            // merge across the prefix's end would make it a different (uncached) token sequence.
            boolean prefixKept = Arrays.equals(ids, 0, Math.min(prefixIds.length, ids.length), prefixIds, 0,
                    prefixIds.length);
            long score = 2L * Math.abs(ids.length - totalTokens) + (prefixKept ? 0 : 1);
            if (score < bestScore) {
                best = text;
                bestCount = ids.length;
                bestScore = score;
            }
            if (score == 0 || round == MAX_ADJUSTMENTS) break;
            if (!prefixKept) {
                text = prefix + randomText(totalTokens - prefixTokens, rng); // draw the part after it again
            } else if (ids.length < totalTokens) {
                text = text + randomText(totalTokens - ids.length, rng);
            } else {
                String cut = decodeWholePrefix(ids, totalTokens);
                // prefixKept and totalTokens > prefix tokens, so the cut keeps the whole prefix and more.
                text = cut.startsWith(prefix) && cut.length() > prefix.length()
                        ? cut
                        : prefix + randomText(totalTokens - prefixTokens, rng);
            }
        }
        return new Synthesized(best, totalTokens, bestCount);
    }

    /**
     * Random ids joined into text, counted segment by segment. A segment ends where the text has an ASCII letter, a
     * space and an ASCII letter (the space opening a drawn token): every tiktoken split pattern (cl100k, o200k,
     * p50k/r50k) ends a piece at that space and starts the next one there whatever follows, so the text's token
     * count is the sum of its segments' counts and a segment is counted once, when it closes. The segment that would
     * pass the target is drawn again as the text's tail (its first token again one that opens with a space and a
     * letter, so the boundary stays), with fewer or more ids until it has exactly the tokens left; after
     * {@link #MAX_ADJUSTMENTS} tries the tail is words that are one token each. Null when even that is not exact
     * (the caller falls back to re-encoding).
     */
    private Synthesized segmented(String prefix, int prefixTokens, int totalTokens, RandomGenerator rng, Vocabulary v) {
        int want = totalTokens - prefixTokens;
        String[] texts = v.texts();
        int[] allowed = v.allowedIds();
        StringBuilder sb = new StringBuilder(prefix.length() + want * 6).append(prefix);
        int counted = 0; // tokens of the closed segments after the prefix
        int pending = -1; // a drawn id that opens the next segment
        for (;;) {
            int left = want - counted;
            int start = sb.length();
            int first = pending >= 0 ? pending : start > 0 ? draw(v.spaceLetterIds(), rng) : draw(allowed, rng);
            pending = -1;
            String text = texts[first];
            sb.append(text);
            for (int drawn = 1; drawn < left; drawn++) {
                boolean afterLetter = isAsciiLetter(text.charAt(text.length() - 1)); // texts are never empty
                int id = draw(allowed, rng);
                text = texts[id];
                if (afterLetter && opensWithSpaceLetter(text)) {
                    pending = id;
                    break;
                }
                sb.append(text);
            }
            int c = tokenizer.count(sb.substring(start));
            if (c == left) return new Synthesized(sb.toString(), totalTokens, totalTokens);
            if (c < left && pending >= 0) {
                counted += c;
                continue;
            }
            return tail(sb, start, left, totalTokens, rng, v);
        }
    }

    private Synthesized tail(StringBuilder sb, int start, int left, int totalTokens, RandomGenerator rng, Vocabulary v) {
        String[] texts = v.texts();
        int ids = left;
        for (int attempt = 0; attempt < MAX_ADJUSTMENTS; attempt++) {
            sb.setLength(start);
            sb.append(texts[start > 0 ? draw(v.spaceLetterIds(), rng) : draw(v.allowedIds(), rng)]);
            for (int i = 1; i < ids; i++) sb.append(texts[draw(v.allowedIds(), rng)]);
            int c = tokenizer.count(sb.substring(start));
            if (c == left) return new Synthesized(sb.toString(), totalTokens, totalTokens);
            ids = Math.max(1, ids + left - c); // fewer ids when it re-encoded longer, more when shorter
        }
        sb.setLength(start);
        for (int i = 0; i < left; i++) sb.append(texts[draw(v.wordIds(), rng)]);
        return tokenizer.count(sb.substring(start)) == left
                ? new Synthesized(sb.toString(), totalTokens, totalTokens) : null;
    }

    private static int draw(int[] ids, RandomGenerator rng) {
        return ids[rng.nextInt(ids.length)];
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean endsWithAsciiLetter(String s) {
        return !s.isEmpty() && isAsciiLetter(s.charAt(s.length() - 1));
    }

    private static boolean opensWithSpaceLetter(String text) {
        return text.length() > 1 && text.charAt(0) == ' ' && isAsciiLetter(text.charAt(1));
    }

    /** A space, then ASCII capitals, then ASCII small letters: one piece (so one token) under every tiktoken split. */
    private static boolean isWord(String text) {
        if (!opensWithSpaceLetter(text)) return false;
        int i = 1;
        while (i < text.length() && text.charAt(i) >= 'A' && text.charAt(i) <= 'Z') i++;
        while (i < text.length() && text.charAt(i) >= 'a' && text.charAt(i) <= 'z') i++;
        return i == text.length();
    }

    /** The shared prefix of a run: {@code n} random tokens determined by {@code seed} alone ("" for 0). */
    public String prefix(int n, long seed) {
        if (n == 0) return "";
        return synthesize(n, new SplittableRandom(seed)).text();
    }

    /** The text of {@code n} random allowed ids (token boundaries may merge; callers re-encode). */
    public String randomText(int n, RandomGenerator rng) {
        Vocabulary vocabulary = vocabulary();
        int[] allowed = vocabulary.allowedIds();
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = allowed[rng.nextInt(allowed.length)];
        String text = vocabulary.join(ids, n);
        return text != null ? text : tokenizer.decode(ids);
    }

    /** Number of ids random text is drawn from. */
    public int allowedIdCount() {
        return vocabulary().allowedIds().length;
    }

    /**
     * Text of the first {@code n} of {@code ids}, shortened by a token or more when the cut falls inside a multi-byte
     * character (the decoder would show it as U+FFFD).
     */
    private String decodeWholePrefix(int[] ids, int n) {
        String joined = vocabulary().join(ids, n);
        if (joined != null) return joined; // every token whole, so the cut falls between characters
        for (int k = n; k > 0; k--) {
            String text = tokenizer.decode(Arrays.copyOf(ids, k));
            if (text.indexOf('\uFFFD') < 0) return text;
        }
        return "";
    }

    /**
     * The ids random text is drawn from, and the decoded text of every id whose text is whole (no U+FFFD), or null
     * when the tokenizer's decode is not the concatenation of its tokens' texts (decoders that strip or join).
     * Joining cached texts is what makes synthesis cheap: a decode costs as much as a third of an encode.
     */
    private record Vocabulary(int[] allowedIds, String[] texts, int[] spaceLetterIds, int[] wordIds) {
        Vocabulary(int[] allowedIds, String[] texts) {
            this(allowedIds, texts, filter(allowedIds, texts, false), filter(allowedIds, texts, true));
        }

        /** Whether {@link #segmented} applies: a tiktoken split pattern, and texts to join. */
        boolean segmentable(Tokenizer tokenizer) {
            return tokenizer.splitsBeforeSpaceLetter() && texts != null && spaceLetterIds.length > 0
                    && wordIds.length > 0;
        }

        private static int[] filter(int[] allowedIds, String[] texts, boolean words) {
            if (texts == null) return new int[0];
            return Arrays.stream(allowedIds)
                    .filter(id -> texts[id] != null && (words ? isWord(texts[id]) : opensWithSpaceLetter(texts[id])))
                    .toArray();
        }

        /** The decoded text of {@code ids[0..n)} by concatenation, or null when that would not be the decode. */
        String join(int[] ids, int n) {
            if (texts == null) return null;
            StringBuilder sb = new StringBuilder(n * 4);
            for (int i = 0; i < n; i++) {
                String text = texts[ids[i]];
                if (text == null) return null;
                sb.append(text);
            }
            return sb.toString();
        }
    }

    private Vocabulary vocabulary() {
        Vocabulary v = vocabulary;
        if (v == null) {
            synchronized (this) {
                v = vocabulary;
                if (v == null) {
                    v = computeVocabulary();
                    vocabulary = v;
                }
            }
        }
        return v;
    }

    private Vocabulary computeVocabulary() {
        int vocab = tokenizer.vocabSize();
        int[] allowed = new int[vocab];
        String[] texts = new String[vocab];
        int count = 0;
        int[] one = new int[1];
        for (int id = 0; id < vocab; id++) {
            one[0] = id;
            String text;
            try {
                text = tokenizer.decode(one);
            } catch (IllegalArgumentException e) {
                continue; // a hole in the vocabulary: never drawn
            }
            if (text.indexOf('\uFFFD') < 0) texts[id] = text;
            if (isWholeVisibleText(text)) allowed[count++] = id;
        }
        if (count == 0) throw new IllegalStateException("tokenizer " + tokenizer.name() + " has no usable token id");
        int[] allowedIds = Arrays.copyOf(allowed, count);
        return new Vocabulary(allowedIds, decodeJoins(allowedIds, texts) ? texts : null);
    }

    /**
     * Whether decoding runs of whole tokens gives their texts joined (byte-level BPE: tiktoken, GPT-2), tried on
     * fixed random runs. Exactness never rests on this (every text is re-counted); only that text is what decoding
     * the drawn ids gives.
     */
    private boolean decodeJoins(int[] allowedIds, String[] texts) {
        SplittableRandom rng = new SplittableRandom(0x6a6f696eL);
        Vocabulary joiner = new Vocabulary(allowedIds, texts);
        for (int trial = 0; trial < 64; trial++) {
            int[] ids = new int[1 + trial % 8];
            for (int i = 0; i < ids.length; i++) ids[i] = allowedIds[rng.nextInt(allowedIds.length)];
            if (!tokenizer.decode(ids).equals(joiner.join(ids, ids.length))) return false;
        }
        return true;
    }

    private static boolean isWholeVisibleText(String text) {
        if (text.isEmpty()) return false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\uFFFD' || Character.getType(c) == Character.CONTROL) return false;
        }
        return true;
    }
}
