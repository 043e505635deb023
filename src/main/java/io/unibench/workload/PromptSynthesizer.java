package io.unibench.workload;

import io.unibench.tokenizer.Tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Random text of an exact token length, as the given tokenizer re-encodes it. Instances are thread-safe; reuse one
 * per tokenizer (the vocabulary is read once, on first use).
 *
 * <p>Under a tiktoken encoding ({@link Tokenizer#encodesSpaceWordsAsDrawn}) no text is encoded at all: the ids are
 * drawn uniformly from the vocabulary's "space words" ({@code " the"}, {@code " Paris"}, {@code " HTTP"}: a space,
 * ASCII capitals, ASCII small letters — 39,435 of cl100k_base's ids, 15.3 bits a token) and joined, and any run of
 * them re-encodes to exactly the drawn ids ({@link #words}); after a prefix that ends in an ASCII letter too, the
 * prefix's own tokens staying the first ones.
 *
 * <p>Other tokenizers (Hugging Face {@code tokenizer.json}), and a prefix that does not end in a letter: random token
 * ids rarely survive decode → encode unchanged (neighbouring tokens merge or split at their boundaries, which is why
 * evalscope's random prompts re-tokenize longer than asked), so we draw ids, decode, re-encode and correct (cut
 * surplus tokens, append fresh ones) for up to {@link #MAX_ADJUSTMENTS} rounds, keeping the closest text seen when it
 * does not converge. Those ids are drawn from the ordinary tokens whose text is whole (no U+FFFD from a partial UTF-8
 * sequence) and has no control characters, so any concatenation of them decodes to clean text.
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
    /** The last prefix counted: a run passes the same one for every prompt. */
    private volatile PrefixCount lastPrefix;

    private record PrefixCount(String prefix, int tokens) {}

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
        int prefixTokens = prefixTokens(prefix);
        if (totalTokens == 0 && prefixTokens == 0) return new Synthesized(prefix, 0, 0);
        if (totalTokens <= prefixTokens) {
            throw new IllegalArgumentException("target " + totalTokens + " tokens leaves no room after a prefix of "
                    + prefixTokens + " tokens");
        }
        Vocabulary v = vocabulary();
        if (v.words().count() > 0 && (prefix.isEmpty() || endsWithAsciiLetter(prefix))) {
            return words(prefix, totalTokens - prefixTokens, totalTokens, rng, v);
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

    private int prefixTokens(String prefix) {
        if (prefix.isEmpty()) return 0;
        PrefixCount last = lastPrefix;
        if (last != null && (last.prefix() == prefix || last.prefix().equals(prefix))) return last.tokens();
        int tokens = tokenizer.count(prefix);
        lastPrefix = new PrefixCount(prefix, tokens);
        return tokens;
    }

    /**
     * {@code prefix} and {@code n} space words drawn uniformly, joined: exactly {@code n} tokens after the prefix's own,
     * by construction ({@link Tokenizer#encodesSpaceWordsAsDrawn}, checked on this tokenizer when the vocabulary is
     * read). No tokenizer call: ~2.5 µs a 128-token prompt under C1 (the BPE path took 170–300 µs).
     */
    private static Synthesized words(String prefix, int n, int totalTokens, RandomGenerator rng, Vocabulary v) {
        SpaceWords w = v.words();
        int[] picks = new int[n];
        int length = 0;
        long bits = 0;
        int left = 0; // unused 32-bit halves of bits
        for (int i = 0; i < n; i++) {
            int k;
            for (;;) { // Lemire's multiply-shift with rejection on 32-bit halves of nextLong: exactly uniform
                if (left == 0) {
                    bits = rng.nextLong();
                    left = 2;
                }
                long m = (bits & 0xffffffffL) * w.count();
                bits >>>= 32;
                left--;
                if ((m & 0xffffffffL) >= w.threshold()) {
                    k = (int) (m >>> 32);
                    break;
                }
            }
            picks[i] = k;
            length += w.starts()[k + 1] - w.starts()[k];
        }
        byte[] text = new byte[length];
        byte[] pool = w.pool();
        int[] starts = w.starts();
        int at = 0;
        for (int k : picks) {
            int len = starts[k + 1] - starts[k];
            System.arraycopy(pool, starts[k], text, at, len);
            at += len;
        }
        String random = new String(text, StandardCharsets.ISO_8859_1); // ASCII: one copy into a Latin-1 string
        return new Synthesized(prefix.isEmpty() ? random : prefix + random, totalTokens, totalTokens);
    }

    /**
     * The space words' texts back to back in {@code pool} (ASCII), word {@code k} at {@code starts[k] ..
     * starts[k+1]}; {@code threshold} = 2^32 mod count, Lemire's rejection bound.
     */
    private record SpaceWords(int[] ids, byte[] pool, int[] starts, long threshold) {
        static final SpaceWords NONE = new SpaceWords(new int[0], new byte[0], new int[] {0}, 0);

        static SpaceWords of(int[] ids, String[] texts) {
            if (ids.length == 0) return NONE;
            int[] starts = new int[ids.length + 1];
            for (int k = 0; k < ids.length; k++) starts[k + 1] = starts[k] + texts[ids[k]].length();
            byte[] pool = new byte[starts[ids.length]];
            for (int k = 0; k < ids.length; k++) {
                byte[] b = texts[ids[k]].getBytes(StandardCharsets.ISO_8859_1);
                System.arraycopy(b, 0, pool, starts[k], b.length);
            }
            return new SpaceWords(ids, pool, starts, (1L << 32) % ids.length);
        }

        int count() {
            return ids.length;
        }
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean endsWithAsciiLetter(String s) {
        return !s.isEmpty() && isAsciiLetter(s.charAt(s.length() - 1));
    }

    /** A space, then ASCII capitals, then ASCII small letters, at least one letter: a "space word". */
    static boolean isSpaceWord(String text) {
        if (text.length() < 2 || text.charAt(0) != ' ' || !isAsciiLetter(text.charAt(1))) return false;
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

    /** Number of ids {@link #randomText} (and synthesis under a tokenizer without space words) draws from. */
    public int allowedIdCount() {
        return vocabulary().allowedIds().length;
    }

    /** Number of ids a prompt's tokens are drawn from: the space words when they are used, else the allowed ids. */
    public int drawnIdCount() {
        Vocabulary v = vocabulary();
        return v.words().count() > 0 ? v.words().count() : v.allowedIds().length;
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
    private record Vocabulary(int[] allowedIds, String[] texts, SpaceWords words) {
        Vocabulary(int[] allowedIds, String[] texts) {
            this(allowedIds, texts, SpaceWords.NONE);
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
        if (!decodeJoins(allowedIds, texts)) return new Vocabulary(allowedIds, null);
        int[] words = tokenizer.encodesSpaceWordsAsDrawn()
                ? Arrays.stream(allowedIds).filter(id -> texts[id] != null && isSpaceWord(texts[id])).toArray()
                : new int[0];
        return new Vocabulary(allowedIds, texts,
                words.length > 0 && wordsEncodeAsDrawn(words, texts) ? SpaceWords.of(words, texts) : SpaceWords.NONE);
    }

    /**
     * The tokenizer's promise ({@link Tokenizer#encodesSpaceWordsAsDrawn}) tried once on fixed random runs, alone and
     * after a letter (a few ms): a tokenizer that breaks it is synthesized the general way instead.
     */
    private boolean wordsEncodeAsDrawn(int[] words, String[] texts) {
        SplittableRandom rng = new SplittableRandom(0x776f726473L);
        for (int trial = 0; trial < 32; trial++) {
            int[] ids = new int[1 + rng.nextInt(64)];
            StringBuilder sb = new StringBuilder(trial % 2 == 0 ? "" : "x");
            for (int i = 0; i < ids.length; i++) sb.append(texts[ids[i] = words[rng.nextInt(words.length)]]);
            int[] encoded = tokenizer.encode(sb.toString());
            int from = trial % 2; // "x" is one token in every encoding that makes this promise
            if (!Arrays.equals(encoded, from, encoded.length, ids, 0, ids.length)) return false;
        }
        return true;
    }

    /**
     * Whether decoding runs of whole tokens gives their texts joined (byte-level BPE: tiktoken, GPT-2), tried on
     * fixed random runs: then a text can be made by joining cached texts, and is what decoding the drawn ids gives.
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
