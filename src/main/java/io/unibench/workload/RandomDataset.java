package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;

import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code --dataset random}: prompts of random tokens with exact lengths.
 *
 * <p>Prompt {@code i} is the run's shared prefix ({@code --prefix-length} random tokens, fixed by the seed) followed
 * by random tokens, {@code prefix + L} tokens in all as the tokenizer re-encodes it, where {@code L} is uniform in
 * {@code [--min-prompt-length, --max-prompt-length]} (inclusive; 0 becomes 1). Everything about prompt {@code i}
 * comes from its own generator seeded by (seed, {@code --dataset-offset}, i): the same seed gives the same prompts,
 * and another offset gives other prompts, so consecutive sweep runs do not hit each other's prefix cache.
 *
 * <p>Unlike evalscope, the length does not subtract a chat template's tokens: tiktoken encodings have none.
 *
 * <p>The returned list is lazy: each {@code get(i)} synthesizes prompt {@code i} (pure in {@code i}, thread-safe,
 * not cached), because {@code count} prompts of up to 131072 tokens would not fit in memory.
 */
public final class RandomDataset implements Dataset {
    public static final String NAME = "random";

    // Salt separating the prefix's random stream from the per-prompt streams of the same seed.
    private static final long PREFIX_STREAM = 0x7072656669785eedL;

    @Override public String name() { return NAME; }

    @Override public List<Prompt> load(DatasetOptions options, int count) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        Tokenizer tokenizer = options.tokenizer();
        if (tokenizer == null) {
            throw new BadInputException("--dataset random needs a tokenizer to make prompts of exact token lengths: "
                    + "pass --tokenizer-path, e.g. --tokenizer-path cl100k_base");
        }
        LengthFilter.requireValidBounds(options);
        if (options.prefixLength() < 0) {
            throw new BadInputException("--prefix-length must be >= 0, got " + options.prefixLength());
        }
        if ((long) options.prefixLength() + options.maxPromptLength() > Integer.MAX_VALUE) {
            throw new BadInputException("--prefix-length plus --max-prompt-length exceeds " + Integer.MAX_VALUE);
        }
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer);
        String prefix = synthesizer.prefix(options.prefixLength(), prefixSeed(options.seed()));
        int prefixTokens = prefix.isEmpty() ? 0 : tokenizer.count(prefix);
        return GeneratedList.of(count, index -> {
            SplittableRandom rng = new SplittableRandom(itemSeed(options.seed(), options.offset(), index));
            int length = (int) rng.nextLong(options.minPromptLength(), options.maxPromptLength() + 1L);
            PromptSynthesizer.Synthesized s = synthesizer.synthesize(prefix, prefixTokens + Math.max(1, length), rng);
            return Prompts.userPrompt(s.text(), options.chat(), s.targetTokens(), s.actualTokens());
        }, NAME + " dataset, " + count + " prompts");
    }

    /** The seed of the run's shared prefix: the seed alone, so every sweep run (other offsets) shares it. */
    static long prefixSeed(long seed) {
        return mix(seed ^ PREFIX_STREAM);
    }

    /** The seed of prompt {@code index}: every input changes it, none is a simple shift of another. */
    static long itemSeed(long seed, long offset, long index) {
        return mix(mix(mix(seed) + offset) + index);
    }

    // SplitMix64's finalizer: a bijection that spreads every input bit over the output.
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
