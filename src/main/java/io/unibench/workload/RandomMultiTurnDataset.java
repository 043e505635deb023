package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code --dataset random_multi_turn}: conversations of random-token user messages (evalscope §3.1).
 *
 * <p>Conversation {@code i} has {@code U[max(1, --min-turns), --max-turns]} turns; each turn is one user message of
 * the run's shared {@code --prefix-length} prefix followed by {@code U[--min-prompt-length, --max-prompt-length]}
 * random tokens (0 becomes 1), as {@code --dataset random} makes them. As in evalscope, the prefix starts every
 * turn's message, so only the first turn's copy sits at the start of the context where a prefix cache can match it
 * across conversations. Everything about conversation {@code i} comes from a generator seeded by
 * (seed, {@code --dataset-offset}, i), so the same flags give the same conversations.
 *
 * <p>The list is lazy: {@code get(i)} synthesizes conversation {@code i} when a worker claims it (pure, thread-safe,
 * not cached), so a large {@code --number} does not hold every conversation's text in memory.
 */
public final class RandomMultiTurnDataset implements ConversationDataset {
    public static final String NAME = "random_multi_turn";

    // Keeps conversation i's stream apart from prompt i of --dataset random with the same seed and offset.
    private static final long CONVERSATION_STREAM = 0x6d756c7469L;

    @Override public String name() { return NAME; }

    @Override public List<Conversation> load(MultiTurnOptions options, int count) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        DatasetOptions base = options.base();
        Tokenizer tokenizer = base.tokenizer();
        if (tokenizer == null) {
            throw new BadInputException("--dataset " + NAME + " needs a tokenizer to make messages of exact token "
                    + "lengths: pass --tokenizer-path, e.g. --tokenizer-path cl100k_base");
        }
        if (options.maxTurns() == null) {
            throw new BadInputException("--dataset " + NAME + " needs --max-turns (turns per conversation are drawn "
                    + "from [--min-turns, --max-turns])");
        }
        if (options.maxTurns() < options.minTurns()) {
            throw new BadInputException("--max-turns " + options.maxTurns() + " is less than --min-turns "
                    + options.minTurns());
        }
        LengthFilter.requireValidBounds(base);
        if (base.prefixLength() < 0) throw new BadInputException("--prefix-length must be >= 0, got " + base.prefixLength());
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer);
        String prefix = synthesizer.prefix(base.prefixLength(), RandomDataset.prefixSeed(base.seed()));
        int prefixTokens = prefix.isEmpty() ? 0 : tokenizer.count(prefix);
        return GeneratedList.of(count, index -> {
            SplittableRandom rng = new SplittableRandom(
                    RandomDataset.itemSeed(base.seed() ^ CONVERSATION_STREAM, base.offset(), index));
            int turns = (int) rng.nextLong(options.minTurns(), options.maxTurns() + 1L);
            List<Turn> list = new ArrayList<>(turns);
            for (int t = 0; t < turns; t++) {
                int length = Math.max(1, (int) rng.nextLong(base.minPromptLength(), base.maxPromptLength() + 1L));
                PromptSynthesizer.Synthesized s = synthesizer.synthesize(prefix, prefixTokens + length, rng);
                list.add(Turn.user(s.text()));
            }
            return new Conversation(NAME + "#" + index, list);
        }, NAME + " dataset, " + count + " conversations");
    }
}
