package io.unibench.scenario;

import io.unibench.engine.PreparedRequest;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.WorkloadPrompts;
import io.unibench.engine.spec.RunSpec;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Conversation;
import io.unibench.workload.Turn;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Cache-busting and weighted classes, on the request bodies the engine would send from the file's spec. */
class ScenarioPromptsTest {

    /** The prompts the engine makes of the file's first scenario as its spec carries it ({@link ScenarioSpec#of}). */
    private static WorkloadPrompts prompts(BenchConfig c, long seed) {
        RunSpec spec = ScenarioSpec.of(c, Map.of("p", "http://127.0.0.1:9/v1/chat/completions"),
                java.nio.file.Path.of("out"), new RunSpec.History(false, null, List.of()));
        return new WorkloadPrompts(spec.workloads().getFirst(), Tokenizers.defaultTokenizer(), seed, 1);
    }

    private static BenchConfig config(String scenario) {
        return ScenarioFile.parse("t.yaml", """
                provider: {name: p, base_url: sim, model: m}
                scenarios:
                """ + scenario, Map.of());
    }

    @Test
    void cacheBustMakesEveryRequestBodyUniqueAcrossLevels() {
        BenchConfig c = config("  - {name: s, type: chat, prompt: \"What is an index?\", cache_bust: true}\n");
        BenchConfig.Scenario s = c.scenarios().getFirst();
        WorkloadPrompts prompts = prompts(c, 1);
        Set<String> bodies = new HashSet<>();
        for (int level = 0; level < 3; level++) {
            RequestFactory f = new RequestFactory(prompts.forLevel(level), c.generation().params("m", true, null), 1, "t");
            for (int i = 0; i < 500; i++) {
                PreparedRequest r = f.prepare(i);
                String body = new String(r.body(), StandardCharsets.UTF_8);
                assertThat(body).contains("What is an index?").contains("[nonce ");
                bodies.add(body);
            }
        }
        assertThat(bodies).hasSize(1500);
    }

    @Test
    void withoutCacheBustThePromptRepeats() {
        BenchConfig c = config("  - {name: s, type: chat, prompt: \"What is an index?\"}\n");
        WorkloadPrompts prompts = prompts(c, 1);
        RequestFactory f = new RequestFactory(prompts.forLevel(0), c.generation().params("m", true, null), 1, "t");
        assertThat(new String(f.prepare(0).body(), StandardCharsets.UTF_8))
                .isEqualTo(new String(f.prepare(7).body(), StandardCharsets.UTF_8))
                .doesNotContain("nonce");
    }

    @Test
    void cacheBustReachesEveryTurnOfEveryConversation() {
        BenchConfig c = config("""
                  - {name: s, type: multi_turn, conversation_history: 2, prompt: Help me, cache_bust: true}
                """);
        WorkloadPrompts prompts = prompts(c, 1);
        Set<String> texts = new HashSet<>();
        for (int level = 0; level < 2; level++) {
            List<Conversation> conversations = prompts.conversationsForLevel(level, 4);
            for (int i = 0; i < 50; i++) {
                Conversation conv = conversations.get(i);
                assertThat(conv.turns()).hasSize(3);
                for (Turn t : conv.turns()) texts.add(t.firstUserText());
            }
        }
        assertThat(texts).hasSize(2 * 50 * 3);
        assertThat(texts).allMatch(t -> t.startsWith("[nonce ") && t.contains("Help me"));
    }

    /**
     * Synthesized conversations ({@code conversation_history} without a prompt) share the workload's one synthesizer:
     * the tokenizer's vocabulary is read once, not once per conversation (before: 8 reads for 8 conversations).
     */
    @Test
    void synthesizedConversationsReadTheVocabularyOnce() {
        BenchConfig c = config("""
                  - {name: s, type: multi_turn, conversation_history: 1, min_prompt_length: 4, max_prompt_length: 8}
                """);
        RunSpec spec = ScenarioSpec.of(c, Map.of("p", "http://127.0.0.1:9/v1/chat/completions"),
                java.nio.file.Path.of("out"), new RunSpec.History(false, null, List.of()));
        io.unibench.tokenizer.Tokenizer real = Tokenizers.defaultTokenizer();
        java.util.concurrent.atomic.AtomicInteger vocabularyReads = new java.util.concurrent.atomic.AtomicInteger();
        io.unibench.tokenizer.Tokenizer counting = new io.unibench.tokenizer.Tokenizer() {
            @Override public String name() { return real.name(); }
            @Override public int[] encode(String text) { return real.encode(text); }
            @Override public String decode(int[] ids) { return real.decode(ids); }
            @Override public int count(String text) { return real.count(text); }
            @Override public boolean encodesSpaceWordsAsDrawn() { return real.encodesSpaceWordsAsDrawn(); }
            @Override public int vocabSize() {
                vocabularyReads.incrementAndGet();
                return real.vocabSize();
            }
        };
        WorkloadPrompts prompts = new WorkloadPrompts(spec.workloads().getFirst(), counting, 1, 1);
        List<Conversation> conversations = prompts.conversationsForLevel(0, 8);
        for (int i = 0; i < 8; i++) {
            assertThat(conversations.get(i).turns()).hasSize(2)
                    .allSatisfy(t -> assertThat(counting.count(t.firstUserText())).isBetween(4, 8));
        }
        assertThat(vocabularyReads).hasValue(1);
    }

    @Test
    void mixedClassesFollowTheirWeights() {
        BenchConfig c = config("""
                  - name: s
                    type: mixed
                    classes:
                      - {name: short, weight: 3, prompt: short one}
                      - {name: long, weight: 1, prompt_tokens: 200, max_tokens: 99}
                """);
        WorkloadPrompts prompts = prompts(c, 5);
        int[] counts = new int[2];
        for (int i = 0; i < 4000; i++) counts[prompts.pick(0, i)]++;
        // 3:1 weights: the short class's share is 0.75; 4000 draws put it within ±0.03 with overwhelming odds
        assertThat(counts[0] / 4000.0).isBetween(0.72, 0.78);
        RequestFactory f = new RequestFactory(prompts.forLevel(0), c.generation().params("m", true, null), 5, "t");
        boolean sawLong = false;
        for (int i = 0; i < 20; i++) {
            String body = new String(f.prepare(i).body(), StandardCharsets.UTF_8);
            if (prompts.pick(0, i) == 1) {
                sawLong = true;
                assertThat(body).contains("\"max_tokens\":99");
            } else {
                assertThat(body).contains("short one");
            }
        }
        assertThat(sawLong).isTrue();
    }

    /**
     * Issue 31's note, closed by issue 28's move: a cache-busting level's prompts (new for every request) are made
     * when asked for, so the request factory prepares them ahead of the dispatcher in its bounded window (a
     * preparation window, reported as perf's), the same prompts, nonce for nonce, as the level's.
     */
    @Test
    void cacheBustingPromptsArePreparedAheadOfTheDispatcher() {
        BenchConfig c = config("  - {name: s, type: chat, prompt: \"What is an index?\", cache_bust: true}\n");
        RunSpec spec = ScenarioSpec.of(c, Map.of("p", "http://127.0.0.1:9/v1/chat/completions"),
                java.nio.file.Path.of("out"), new RunSpec.History(false, null, List.of()));
        RunSpec.Point point = spec.points().getFirst();
        WorkloadPrompts prompts = prompts(c, 1);
        List<io.unibench.workload.Prompt> sent = prompts.forPoint(0, point, 8);
        assertThat(io.unibench.workload.Dataset.synthesizedOnDemand(sent)).isTrue();
        assertThat(sent).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(sent.get(i).messages()).isEqualTo(prompts.forLevel(0).get(i).messages());
        }
        try (RequestFactory f = new RequestFactory(sent, spec.workloads().getFirst().generation(), 1, "t")) {
            assertThat(f.summaryKeys()).containsKeys("Preparation Waits", "Preparation Wait (s)");
        }
        // a level of one fixed prompt is not made per request: its request body is cached, nothing to prepare
        BenchConfig plain = config("  - {name: s, type: chat, prompt: \"What is an index?\"}\n");
        List<io.unibench.workload.Prompt> same = prompts(plain, 1).forPoint(0, point, 8);
        assertThat(io.unibench.workload.Dataset.synthesizedOnDemand(same)).isFalse();
    }
}
