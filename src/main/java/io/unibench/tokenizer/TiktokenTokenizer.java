package io.unibench.tokenizer;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import com.knuddels.jtokkit.api.IntArrayList;

import java.util.Arrays;
import java.util.Optional;

/** A tiktoken encoding bundled by jtokkit ({@code cl100k_base}, {@code o200k_base}, {@code p50k_base}, {@code r50k_base}). */
public final class TiktokenTokenizer implements Tokenizer {
    private final String name;
    private final Encoding encoding;
    private final int vocabSize;
    /** A special token id inside 0..vocabSize-1 that {@link #decode} must reject, or -1. */
    private final int specialIdInside;

    private TiktokenTokenizer(String name, Encoding encoding, int vocabSize, int specialIdInside) {
        this.name = name;
        this.encoding = encoding;
        this.vocabSize = vocabSize;
        this.specialIdInside = specialIdInside;
    }

    /** The encoding called {@code name}, if jtokkit bundles it. */
    public static Optional<Tokenizer> byName(String name) {
        Optional<EncodingType> type = EncodingType.fromName(name);
        if (type.isEmpty()) return Optional.empty();
        // The lazy registry reads only the vocabulary asked for; the default one parses all four (~0.7 s).
        Encoding encoding = Encodings.newLazyEncodingRegistry().getEncoding(type.get());
        return Optional.of(new TiktokenTokenizer(name, encoding, ordinaryIdEnd(type.get()), specialIdInside(type.get())));
    }

    // One past the highest ordinary (non-special) token id, from the bundled .tiktoken files. Ordinary ids are dense
    // from 0 except in p50k, whose 24 whitespace tokens 50257..50280 come after <|endoftext|> = 50256.
    private static int ordinaryIdEnd(EncodingType type) {
        return switch (type) {
            case R50K_BASE -> 50_256;
            case P50K_BASE, P50K_EDIT -> 50_281;
            case CL100K_BASE -> 100_256;
            case O200K_BASE -> 199_998;
        };
    }

    private static int specialIdInside(EncodingType type) {
        return switch (type) {
            case P50K_BASE, P50K_EDIT -> 50_256;
            default -> -1;
        };
    }

    @Override public String name() { return name; }

    @Override public int[] encode(String text) {
        return encoding.encodeOrdinary(text).toArray();
    }

    @Override public int count(String text) {
        return encoding.countTokensOrdinary(text);
    }

    @Override public String decode(int[] ids) {
        IntArrayList list = new IntArrayList(ids.length);
        for (int id : ids) {
            if (id < 0 || id >= vocabSize) throw new IllegalArgumentException("token id out of range: " + id);
            if (id == specialIdInside) throw new IllegalArgumentException("token id is a special token: " + id);
            list.add(id);
        }
        return encoding.decode(list);
    }

    @Override public int vocabSize() { return vocabSize; }

    /**
     * cl100k, o200k and the GPT-2 pattern (p50k, r50k) all make " " + capitals + small letters one piece when a space
     * or the end follows, and end a piece at a letter followed by a space; jtokkit, like tiktoken, encodes a piece
     * that is a vocabulary entry as that one token.
     */
    @Override public boolean encodesSpaceWordsAsDrawn() { return true; }

    @Override public String toString() { return "TiktokenTokenizer[" + name + "]"; }

    static int[] copy(int[] ids) { return Arrays.copyOf(ids, ids.length); }
}
