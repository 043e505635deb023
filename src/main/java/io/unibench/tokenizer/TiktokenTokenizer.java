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

    private TiktokenTokenizer(String name, Encoding encoding, int vocabSize) {
        this.name = name;
        this.encoding = encoding;
        this.vocabSize = vocabSize;
    }

    /** The encoding called {@code name}, if jtokkit bundles it. */
    public static Optional<Tokenizer> byName(String name) {
        Optional<EncodingType> type = EncodingType.fromName(name);
        if (type.isEmpty()) return Optional.empty();
        Encoding encoding = Encodings.newDefaultEncodingRegistry().getEncoding(type.get());
        return Optional.of(new TiktokenTokenizer(name, encoding, ordinaryVocabSize(type.get())));
    }

    // Ordinary (non-special) token ids are dense from 0 in every tiktoken encoding; these are their counts.
    private static int ordinaryVocabSize(EncodingType type) {
        return switch (type) {
            case R50K_BASE -> 50_256;
            case P50K_BASE, P50K_EDIT -> 50_280;
            case CL100K_BASE -> 100_256;
            case O200K_BASE -> 199_998;
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
            list.add(id);
        }
        return encoding.decode(list);
    }

    @Override public int vocabSize() { return vocabSize; }

    @Override public String toString() { return "TiktokenTokenizer[" + name + "]"; }

    static int[] copy(int[] ids) { return Arrays.copyOf(ids, ids.length); }
}
