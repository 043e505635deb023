package io.unibench.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.scenario.BenchConfig.PromptClass;
import io.unibench.scenario.BenchConfig.Scenario;
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
 * The prompts of one scenario at one concurrency level. Lists are views that make the i-th prompt when asked
 * (the engine cycles through them by sequence number), so a cache-busting nonce or a weighted class draw is tied to
 * the request's sequence and the level: deterministic for a seed, different for every request of the run.
 */
final class ScenarioPrompts {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Large enough that sequence % size never wraps within a level. */
    private static final int UNBOUNDED = Integer.MAX_VALUE;

    private final Scenario scenario;
    private final Tokenizer tokenizer;
    private final long seed;
    /** Base prompts (chat with a dataset or prompt) or one per class (mixed). */
    private final List<Prompt> base;
    private final double[] cumulativeWeights;

    ScenarioPrompts(Scenario scenario, Tokenizer tokenizer, long seed, int datasetCount) {
        this.scenario = scenario;
        this.tokenizer = tokenizer;
        this.seed = seed;
        switch (scenario.type()) {
            case CHAT -> {
                if (scenario.prompt() != null) {
                    base = List.of(Prompt.ofMessages(messages(scenario.system(), scenario.prompt()), -1, -1));
                } else {
                    Dataset d = Datasets.byName(scenario.dataset());
                    base = d.load(datasetOptions(), datasetCount);
                }
                cumulativeWeights = null;
            }
            case MIXED -> {
                base = new ArrayList<>();
                cumulativeWeights = new double[scenario.classes().size()];
                PromptSynthesizer synth = new PromptSynthesizer(tokenizer);
                double sum = 0;
                for (int i = 0; i < scenario.classes().size(); i++) {
                    PromptClass c = scenario.classes().get(i);
                    String text = c.prompt() != null ? c.prompt()
                            : synth.synthesize(c.promptTokens(), new SplittableRandom(seed * 31 + i)).text();
                    ArrayNode msgs = messages(scenario.system(), text);
                    if (c.maxTokens() != null) {
                        ObjectNode body = NODES.objectNode();
                        body.set("messages", msgs);
                        body.put("max_tokens", c.maxTokens()); // the class's own length; generation fills the rest
                        base.add(Prompt.ofBody(body));
                    } else {
                        base.add(Prompt.ofMessages(msgs, c.promptTokens() == null ? -1 : c.promptTokens(), -1));
                    }
                    sum += c.weight();
                    cumulativeWeights[i] = sum;
                }
            }
            default -> {
                base = List.of();
                cumulativeWeights = null;
            }
        }
    }

    private DatasetOptions datasetOptions() {
        return new DatasetOptions(scenario.datasetPath(), 0, scenario.minPromptLength(), scenario.maxPromptLength(), 0,
                tokenizer, true, seed);
    }

    /** Single-turn prompts of level {@code level} (chat and mixed). */
    List<Prompt> forLevel(int level) {
        return new View<>() {
            @Override
            public Prompt get(int i) {
                Prompt p = base.get(pick(level, i));
                return scenario.cacheBust() ? bust(p, nonce(level, i)) : p;
            }
        };
    }

    /** The class index of request {@code i} (mixed), or the base prompt cycled in order. */
    int pick(int level, int i) {
        if (cumulativeWeights == null) return i % base.size();
        double total = cumulativeWeights[cumulativeWeights.length - 1];
        double x = new SplittableRandom(mix(seed, level, i)).nextDouble() * total;
        for (int c = 0; c < cumulativeWeights.length; c++) if (x < cumulativeWeights[c]) return c;
        return cumulativeWeights.length - 1;
    }

    /** Conversations of level {@code level} (multi_turn). */
    List<Conversation> conversationsForLevel(int level, int count) {
        List<Conversation> source;
        if (scenario.dataset() != null) {
            ConversationDataset d = Datasets.conversationByName(scenario.dataset());
            int maxTurns = scenario.conversationHistory() == null ? 4 : scenario.conversationHistory() + 1;
            source = d.load(new MultiTurnOptions(datasetOptions(), Math.min(2, maxTurns), maxTurns, null),
                    Math.max(1, count));
        } else {
            source = null;
        }
        return new View<>() {
            @Override
            public Conversation get(int i) {
                Conversation c = source != null ? source.get(i % source.size()) : synthesized(level, i);
                return scenario.cacheBust() ? bust(c, nonce(level, i)) : c;
            }
        };
    }

    /** conversation_history N: N + 1 turns, each one user message (the scenario's prompt, or synthesized text). */
    private Conversation synthesized(int level, int i) {
        int turns = scenario.conversationHistory() + 1;
        List<Turn> out = new ArrayList<>(turns);
        PromptSynthesizer synth = scenario.prompt() == null ? new PromptSynthesizer(tokenizer) : null;
        SplittableRandom rng = new SplittableRandom(mix(seed, level, i));
        for (int t = 0; t < turns; t++) {
            String text;
            if (synth == null) {
                text = scenario.prompt() + " (" + (t + 1) + "/" + turns + ")";
            } else {
                int len = scenario.minPromptLength()
                        + rng.nextInt(scenario.maxPromptLength() - scenario.minPromptLength() + 1);
                text = synth.synthesize(len, rng).text();
            }
            ArrayNode msgs = t == 0 ? messages(scenario.system(), text) : messages(null, text);
            out.add(new Turn(msgs, null, null));
        }
        return new Conversation("conversation_history", out);
    }

    /** Unique per request of the run: level, sequence and a seeded random part. */
    String nonce(int level, int i) {
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
