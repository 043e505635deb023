package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * Builds swe_smith conversations from agent trajectories (evalscope's live build and
 * {@code build_swe_smith_dataset.py}, §3.1 of the reference), from user messages only.
 *
 * <p>Pre-filter: a trajectory is a candidate when its raw messages and its user contents both have at least
 * {@code (upper(first) + upper(subsequent)·(maxTurns − 1))·charsPerToken} characters. Candidates are shuffled with
 * the seed and rotated by the offset. For each, in that order, the first-turn length, subsequent-turn length and
 * number of turns {@code U[minTurns, maxTurns]} are drawn (a range [a, b] uniformly, both ends included), from a
 * generator seeded by (seed, position), so the result does not depend on how many workers build. Turn 1 =
 * {@code collectUntil(first)}, later turns {@code collectUntil(subsequent)}: whole messages are added while the
 * turn's token count (bare, no special tokens) stays within the target; the first message that would pass it is cut
 * to the remaining tokens and consumed; when nothing remains it is left for the next turn. A candidate that runs out
 * of messages before its last turn starts is discarded. The first {@code number} conversations built, in candidate
 * order, are the result.
 */
public final class SweSmithBuilder {
    /** What to build. {@code maxTurns} null means {@code minTurns}. */
    public record Settings(Range firstTurnLength, Range subsequentTurnLength, int minTurns, Integer maxTurns,
                           int number, long seed, double charsPerToken, int workers) {
        public Settings {
            if (minTurns < 1) throw new BadInputException("--min-turns must be >= 1, got " + minTurns);
            if (maxTurns != null && maxTurns < minTurns) {
                throw new BadInputException("--max-turns " + maxTurns + " is less than --min-turns " + minTurns);
            }
            if (number < 1) throw new BadInputException("--number must be >= 1, got " + number);
            if (!(charsPerToken > 0)) throw new BadInputException("--chars-per-token must be > 0, got " + charsPerToken);
            if (workers < 1) throw new BadInputException("--num-workers must be >= 1, got " + workers);
        }

        public int maxTurnsOrMin() {
            return maxTurns == null ? minTurns : maxTurns;
        }

        /** The pre-filter's character threshold. */
        public long minChars() {
            return (long) ((firstTurnLength.max() + (double) subsequentTurnLength.max() * (maxTurnsOrMin() - 1))
                    * charsPerToken);
        }
    }

    /** A token length or a range of them, both ends included. */
    public record Range(int min, int max) {
        public Range {
            if (min < 1 || max < min) throw new BadInputException("length [" + min + ", " + max + "]: need 1 <= MIN <= MAX");
        }

        /** {@code N} or {@code [a,b]} / {@code a,b}. */
        public static Range parse(String flag, String text) {
            String t = text.trim();
            if (t.startsWith("[") && t.endsWith("]")) t = t.substring(1, t.length() - 1);
            String[] parts = t.split(",");
            try {
                if (parts.length == 1) {
                    int v = Integer.parseInt(parts[0].trim());
                    return new Range(v, v);
                }
                if (parts.length == 2) return new Range(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
            } catch (NumberFormatException e) {
                // fall through
            } catch (BadInputException e) {
                throw new BadInputException(flag + " '" + text + "': " + e.getMessage());
            }
            throw new BadInputException(flag + " '" + text + "': expected N or [MIN,MAX]");
        }

        int draw(SplittableRandom rng) {
            return min == max ? min : (int) rng.nextLong(min, max + 1L);
        }
    }

    /** One built turn: the delta messages, the targeted and actual new tokens, the accumulated prompt tokens. */
    public record BuiltTurn(List<String> userMessages, int targetTokens, int newTokens, int promptTokens) {}

    /** One built conversation. */
    public record Built(String source, List<BuiltTurn> turns) {
        public List<Turn> toTurns() {
            List<Turn> out = new ArrayList<>(turns.size());
            for (BuiltTurn t : turns) {
                ArrayNode messages = JsonNodeFactory.instance.arrayNode();
                for (String m : t.userMessages()) messages.addObject().put("role", "user").put("content", m);
                out.add(new Turn(messages, null, null, t.targetTokens(), t.newTokens()));
            }
            return out;
        }
    }

    /** Counts for the builder's report. */
    public record Result(List<Built> conversations, int trajectories, int candidates, int tried, int discarded) {}

    private final Tokenizer tokenizer;
    private final Settings settings;

    public SweSmithBuilder(Tokenizer tokenizer, Settings settings) {
        if (tokenizer == null || tokenizer.isEstimate()) {
            throw new BadInputException("building swe_smith conversations needs a real tokenizer: pass --tokenizer-path");
        }
        this.tokenizer = tokenizer;
        this.settings = settings;
    }

    /** The trajectories that pass the pre-filter, shuffled with the seed and rotated by {@code offset}. */
    public List<Trajectory> candidates(List<Trajectory> all, long offset) {
        long minChars = settings.minChars();
        List<Trajectory> kept = new ArrayList<>();
        for (Trajectory t : all) if (t.rawLength() >= minChars && t.userChars() >= minChars) kept.add(t);
        SplittableRandom rng = new SplittableRandom(settings.seed());
        for (int i = kept.size() - 1; i > 0; i--) { // Fisher-Yates
            int j = rng.nextInt(i + 1);
            Trajectory tmp = kept.get(i);
            kept.set(i, kept.get(j));
            kept.set(j, tmp);
        }
        if (kept.isEmpty()) return kept;
        int start = (int) Math.floorMod(offset, (long) kept.size());
        List<Trajectory> rotated = new ArrayList<>(kept.subList(start, kept.size()));
        rotated.addAll(kept.subList(0, start));
        return rotated;
    }

    /**
     * Builds up to {@code settings.number()} conversations from the candidates of {@code all}, with
     * {@code settings.workers()} threads; {@code progress} is told the number built so far.
     */
    public Result build(List<Trajectory> all, long offset, IntConsumer progress) throws InterruptedException {
        List<Trajectory> candidates = candidates(all, offset);
        List<Built> out = new ArrayList<>();
        int tried = 0;
        int discarded = 0;
        int batch = Math.max(1, settings.workers() * 2);
        try (ExecutorService pool = settings.workers() == 1 ? Executors.newSingleThreadExecutor()
                : Executors.newFixedThreadPool(settings.workers())) {
            for (int from = 0; from < candidates.size() && out.size() < settings.number(); from += batch) {
                List<Future<Built>> futures = new ArrayList<>();
                for (int i = from; i < Math.min(candidates.size(), from + batch); i++) {
                    int position = i;
                    Trajectory t = candidates.get(i);
                    futures.add(pool.submit(() -> buildOne(t, position)));
                }
                for (Future<Built> f : futures) { // in candidate order: the result does not depend on timing
                    Built b;
                    try {
                        b = f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof RuntimeException re) throw re;
                        throw new IllegalStateException(e.getCause());
                    }
                    if (out.size() >= settings.number()) break;
                    tried++;
                    if (b == null) {
                        discarded++;
                    } else {
                        out.add(b);
                        progress.accept(out.size());
                    }
                }
            }
        }
        return new Result(out, all.size(), candidates.size(), tried, discarded);
    }

    /** The conversation of candidate {@code position}, or null when it runs out of messages. */
    Built buildOne(Trajectory t, int position) {
        SplittableRandom rng = new SplittableRandom(RandomDataset.itemSeed(settings.seed(), 0, position));
        int first = settings.firstTurnLength().draw(rng);
        int subsequent = settings.subsequentTurnLength().draw(rng);
        int turns = (int) rng.nextLong(settings.minTurns(), settings.maxTurnsOrMin() + 1L);
        Cursor cursor = new Cursor(t.userContents());
        List<BuiltTurn> built = new ArrayList<>(turns);
        int prompt = 0;
        for (int k = 0; k < turns; k++) {
            if (!cursor.hasMore()) return null;
            int target = k == 0 ? first : subsequent;
            List<String> delta = new ArrayList<>();
            int added = collectUntil(cursor, target, delta);
            if (delta.isEmpty()) return null;
            prompt += added;
            built.add(new BuiltTurn(delta, target, added, prompt));
        }
        return new Built(t.source(), built);
    }

    /** Adds messages to {@code delta} up to {@code target} tokens; returns the tokens added. */
    private int collectUntil(Cursor cursor, int target, List<String> delta) {
        int total = 0;
        while (cursor.hasMore()) {
            int remaining = target - total;
            if (remaining <= 0) break; // left for the next turn
            int[] ids = cursor.ids();
            if (ids.length <= remaining) {
                delta.add(cursor.text());
                total += ids.length;
                cursor.advance();
            } else {
                String cut = decodeWhole(ids, remaining);
                cursor.advance(); // consumed, as the reference does
                if (cut.isEmpty()) continue;
                delta.add(cut);
                total += tokenizer.count(cut);
                break;
            }
        }
        return total;
    }

    /** The text of the first {@code n} ids, one fewer at a time while the cut splits a character. */
    private String decodeWhole(int[] ids, int n) {
        for (int k = n; k > 0; k--) {
            String s = safeDecode(Arrays.copyOf(ids, k));
            if (s != null && s.indexOf('\uFFFD') < 0) return s;
        }
        return "";
    }

    private String safeDecode(int[] ids) {
        try {
            return tokenizer.decode(ids);
        } catch (IllegalArgumentException specialToken) {
            int[] ordinary = Arrays.stream(ids).filter(id -> id < tokenizer.vocabSize()).toArray();
            try {
                return tokenizer.decode(ordinary);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /** Walks a trajectory's user messages, tokenizing each once. */
    private final class Cursor {
        private final List<String> messages;
        private int index;
        private int[] ids;

        Cursor(List<String> messages) {
            this.messages = messages;
        }

        boolean hasMore() {
            return index < messages.size();
        }

        String text() {
            return messages.get(index);
        }

        int[] ids() {
            if (ids == null) ids = tokenizer.encode(messages.get(index));
            return ids;
        }

        void advance() {
            index++;
            ids = null;
        }
    }
}
