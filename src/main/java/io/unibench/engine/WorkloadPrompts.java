package io.unibench.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.engine.spec.RunSpec;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.workload.Conversation;
import io.unibench.workload.ConversationDataset;
import io.unibench.workload.Dataset;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.Datasets;
import io.unibench.workload.MultiTurnOptions;
import io.unibench.workload.Prompt;
import io.unibench.workload.PromptSynthesizer;
import io.unibench.workload.Turn;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import java.util.SplittableRandom;

/**
 * The prompts of a workload composed as its {@link RunSpec.Composition} says (a scenario file's: a system message,
 * weighted classes, cache-busting nonces, synthesized conversations), at one level (point) of its series. Lists are views that make the i-th prompt when asked
 * (the engine cycles through them by sequence number), so a cache-busting nonce or a weighted class draw is tied to
 * the request's sequence and the level: deterministic for a seed, different for every request of the run.
 */
public final class WorkloadPrompts {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Large enough that sequence % size never wraps within a level. */
    private static final int UNBOUNDED = Integer.MAX_VALUE;

    private final RunSpec.Workload workload;
    private final String system;
    private final boolean cacheBust;
    private final Integer conversationHistory;
    private final Tokenizer tokenizer;
    /**
     * The one synthesizer of the workload's text (weighted classes, synthesized conversations): it reads the
     * tokenizer's vocabulary once, on first use, not once per conversation.
     */
    private final PromptSynthesizer synth;
    private final long seed;
    /** Base prompts (chat with a dataset or prompt) or one per class (mixed). */
    private final List<Prompt> base;
    private final double[] cumulativeWeights;

    /**
     * @param seed         the series' seed (draws and nonces)
     * @param datasetCount the dataset's items loaded (a level's requests; cycled)
     */
    public WorkloadPrompts(RunSpec.Workload workload, Tokenizer tokenizer, long seed, int datasetCount) {
        RunSpec.Composition c = workload.composition();
        this.workload = workload;
        this.system = c == null ? null : c.system();
        this.cacheBust = c != null && c.cacheBust();
        this.conversationHistory = c == null ? null : c.conversationHistory();
        this.tokenizer = tokenizer;
        this.synth = tokenizer == null ? null : new PromptSynthesizer(tokenizer); // the vocabulary is read when used
        this.seed = seed;
        List<RunSpec.PromptClass> classes = c == null ? List.of() : c.classes();
        if (workload.multiTurn()) {
            base = List.of();
            cumulativeWeights = null;
        } else if (classes.isEmpty()) {
            if (workload.prompt() != null) {
                base = List.of(Prompt.ofMessages(messages(system, workload.prompt()), -1, -1));
            } else {
                Dataset d = Datasets.byName(workload.dataset());
                base = d.load(datasetOptions(), datasetCount);
            }
            cumulativeWeights = null;
        } else {
                base = new ArrayList<>();
                cumulativeWeights = new double[classes.size()];
                double sum = 0;
                for (int i = 0; i < classes.size(); i++) {
                    RunSpec.PromptClass pc = classes.get(i);
                    String text = pc.prompt() != null ? pc.prompt()
                            : synth.synthesize(pc.promptTokens(), new SplittableRandom(seed * 31 + i)).text();
                    ArrayNode msgs = messages(system, text);
                    if (pc.maxTokens() != null) {
                        ObjectNode body = NODES.objectNode();
                        body.set("messages", msgs);
                        body.put("max_tokens", pc.maxTokens()); // the class's own length; generation fills the rest
                        base.add(Prompt.ofBody(body));
                    } else {
                        base.add(Prompt.ofMessages(msgs, pc.promptTokens() == null ? -1 : pc.promptTokens(), -1));
                    }
                    sum += pc.weight();
                    cumulativeWeights[i] = sum;
                }
        }
    }

    /** The seed of a workload's prompts in a run of seed {@code runSeed}: the same for every target. */
    static long seriesSeed(long runSeed, RunSpec.Workload workload) {
        return runSeed * 1_000_003L + workload.name().hashCode();
    }

    private DatasetOptions datasetOptions() {
        return new DatasetOptions(workload.datasetPath(), 0, workload.minPromptLength(), workload.maxPromptLength(), 0,
                tokenizer, true, seed);
    }

    /** Single-turn prompts of level {@code level} (chat and mixed). */
    public List<Prompt> forLevel(int level) {
        return new View<>() {
            @Override
            public Prompt get(int i) {
                Prompt p = base.get(pick(level, i));
                return cacheBust ? bust(p, nonce(level, i)) : p;
            }
        };
    }

    /**
     * The {@code count} prompts {@code point} sends as level {@code level} of its series: from its first request on,
     * its slice's (a shard's, {@link RunSpec.Slice}) every {@code stride}-th. Cache-busting prompts, new for every
     * request, are made when asked for ({@link Dataset#onDemand}), so the request factory prepares them ahead of the
     * dispatcher in its bounded window, as it prepares a synthesized dataset's; the others are the level's prompts
     * as they are (their request bodies are cached by prompt).
     */
    public List<Prompt> forPoint(int level, RunSpec.Point point, int count) {
        long first = point == null ? 0 : point.firstRequest();
        int stride = point == null || point.slice() == null ? 1 : point.slice().stride();
        if (cacheBust) {
            return Dataset.onDemand(Math.max(1, count), j -> {
                int i = (int) (first + (long) j * stride);
                return bust(base.get(pick(level, i)), nonce(level, i));
            }, workload.name() + " level " + level + " (cache-busting)");
        }
        List<Prompt> all = forLevel(level);
        List<Prompt> from = first == 0 ? all : all.subList((int) first, all.size());
        return point == null || point.slice() == null ? from : point.slice().pick(from);
    }

    /** The class index of request {@code i} (mixed), or the base prompt cycled in order. */
    public int pick(int level, int i) {
        if (cumulativeWeights == null) return i % base.size();
        double total = cumulativeWeights[cumulativeWeights.length - 1];
        double x = new SplittableRandom(mix(seed, level, i)).nextDouble() * total;
        for (int c = 0; c < cumulativeWeights.length; c++) if (x < cumulativeWeights[c]) return c;
        return cumulativeWeights.length - 1;
    }

    /**
     * Conversations of level {@code level} (multi-turn): the conversation dataset's, or synthesized
     * ({@code conversation_history}) when the workload names none.
     */
    public List<Conversation> conversationsForLevel(int level, int count) {
        List<Conversation> source;
        if (Datasets.conversationNames().contains(workload.dataset())) {
            ConversationDataset d = Datasets.conversationByName(workload.dataset());
            int maxTurns = conversationHistory == null ? 4 : conversationHistory + 1;
            source = d.load(new MultiTurnOptions(datasetOptions(), Math.min(2, maxTurns), maxTurns, null),
                    Math.max(1, count));
        } else {
            source = null;
        }
        return new View<>() {
            @Override
            public Conversation get(int i) {
                Conversation c = source != null ? source.get(i % source.size()) : synthesized(level, i);
                return cacheBust ? bust(c, nonce(level, i)) : c;
            }
        };
    }

    /** conversation_history N: N + 1 turns, each one user message (the scenario's prompt, or synthesized text). */
    private Conversation synthesized(int level, int i) {
        int turns = conversationHistory + 1;
        List<Turn> out = new ArrayList<>(turns);
        SplittableRandom rng = new SplittableRandom(mix(seed, level, i));
        for (int t = 0; t < turns; t++) {
            String text;
            if (workload.prompt() != null) {
                text = workload.prompt() + " (" + (t + 1) + "/" + turns + ")";
            } else {
                int len = workload.minPromptLength()
                        + rng.nextInt(workload.maxPromptLength() - workload.minPromptLength() + 1);
                text = synth.synthesize(len, rng).text();
            }
            ArrayNode msgs = t == 0 ? messages(system, text) : messages(null, text);
            out.add(new Turn(msgs, null, null));
        }
        return new Conversation("conversation_history", out);
    }

    /** Unique per request of the run: level, sequence and a seeded random part. */
    public String nonce(int level, int i) {
        long r = new SplittableRandom(mix(seed ^ 0x6e6f6e6365L, level, i)).nextLong();
        return "[nonce " + level + "-" + i + "-" + Long.toHexString(r) + "]";
    }

    private static Prompt bust(Prompt p, String nonce) {
        if (p.messages() != null) return Prompt.ofMessages(bust(p.messages(), nonce), p.targetTokens(), p.actualTokens());
        if (p.text() != null) return Prompt.ofText(nonce + " " + p.text(), p.targetTokens(), p.actualTokens());
        ObjectNode body = p.body().deepCopy();
        if (body.get("messages") instanceof ArrayNode m) body.set("messages", bust(m, nonce));
        else if (body.has("prompt")) body.put("prompt", nonce + " " + body.get("prompt").asText());
        return Prompt.ofBody(body);
    }

    private static Conversation bust(Conversation c, String nonce) {
        List<Turn> turns = new ArrayList<>(c.turns().size());
        for (Turn t : c.turns()) turns.add(new Turn(bust(t.messages(), nonce), t.maxTokens(), t.toolCallLatencySeconds()));
        return new Conversation(c.source(), turns);
    }

    /** The nonce goes first in every user message: a prefix-keyed cache misses from the first token. */
    private static ArrayNode bust(ArrayNode messages, String nonce) {
        ArrayNode out = messages.deepCopy();
        for (var m : out) {
            if ("user".equals(m.path("role").asText()) && m.path("content").isTextual()) {
                ((ObjectNode) m).put("content", nonce + " " + m.get("content").asText());
            }
        }
        return out;
    }

    private static ArrayNode messages(String system, String user) {
        ArrayNode a = NODES.arrayNode();
        if (system != null) a.addObject().put("role", "system").put("content", system);
        a.addObject().put("role", "user").put("content", user);
        return a;
    }

    private static long mix(long seed, int level, int i) {
        return (seed * 0x9E3779B97F4A7C15L + level) * 0xBF58476D1CE4E5B9L + i;
    }

    /** An effectively unbounded list whose elements are made on demand. */
    private abstract static class View<T> extends AbstractList<T> implements RandomAccess {
        @Override
        public int size() {
            return UNBOUNDED;
        }
    }
}
