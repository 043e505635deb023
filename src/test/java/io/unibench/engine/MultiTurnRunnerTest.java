package io.unibench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.Moments;
import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.TraceSummary;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Conversation;
import io.unibench.workload.Datasets;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.MultiTurnOptions;
import io.unibench.workload.Turn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The multi-turn runner with the real Netty client against a scripted loopback server or the simulator. */
class MultiTurnRunnerTest {
    private static final GenerationParams PARAMS =
            new GenerationParams("m", ApiFormat.CHAT, 16, 16, null, 0.0, null, null, null, null, true, null);

    @TempDir
    Path dir;

    /** Collects records in arrival order. */
    static final class Collector implements RecordSink {
        final ConcurrentLinkedQueue<RequestRecord> records = new ConcurrentLinkedQueue<>();

        @Override public void accept(RequestRecord r) {
            records.add(r);
        }

        List<RequestRecord> of(String conversation) {
            return records.stream().filter(r -> r.position().conversationId().equals(conversation))
                    .sorted(Comparator.comparingInt(rec -> rec.position().turnIndex())).toList();
        }
    }

    private static LlmClient client(URI uri) {
        return new LlmClient(new ClientConfig(uri, Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(20),
                Duration.ofSeconds(60), 128, false));
    }

    private static RunOutcome run(URI uri, List<Conversation> pool, LoadPlan load, MultiTurnPlan.RateMode mode,
                                  ClaimListener listener, List<? extends RecordSink> sinks) throws InterruptedException {
        try (LlmClient client = client(uri)) {
            MultiTurnRunner runner = new MultiTurnRunner(client,
                    new RecordFactory(Tokenizers.defaultTokenizer(), false), new StopSignal(), listener);
            return runner.run(new MultiTurnPlan(load, mode, null), new ConversationPool(pool),
                    new ConversationRequests(PARAMS, 1, "t"), sinks, 1);
        }
    }

    /** Conversation {@code name} of {@code turns} user turns "name-u1", "name-u2", … */
    private static Conversation conversation(String name, int turns) {
        List<Turn> list = new ArrayList<>();
        for (int t = 1; t <= turns; t++) list.add(Turn.user(name + "-u" + t));
        return new Conversation(name, list);
    }

    private static String lastUser(JsonNode body) {
        JsonNode messages = body.get("messages");
        return messages.get(messages.size() - 1).get("content").asText();
    }

    private static String conversationOf(JsonNode body) {
        return body.get("messages").get(0).get("content").asText().split("-")[0];
    }

    @Test
    void workersClaimConversationsInOrderAndCycleAsTheSeedsExampleShows() throws Exception {
        // Each conversation's reply is held until the test releases it, so the order of finishing is the test's.
        Map<String, Semaphore> gates = new ConcurrentHashMap<>();
        for (int c = 1; c <= 5; c++) gates.put("c" + c, new Semaphore(0));
        LinkedBlockingQueue<String> claims = new LinkedBlockingQueue<>();
        List<Conversation> pool = new ArrayList<>();
        for (int c = 1; c <= 5; c++) pool.add(conversation("c" + c, 1));
        Collector sink = new Collector();
        try (ScriptedServer server = new ScriptedServer(body -> {
            gates.get(conversationOf(body)).acquire();
            return ScriptedServer.Reply.ok("ok", 5, 1, null);
        })) {
            CompletableFuture<RunOutcome> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return run(server.uri(), pool, new LoadPlan(3, 7, -1, null, 0), MultiTurnPlan.RateMode.THINK,
                            (warmup, worker, seq, index) -> claims.add("W" + worker + "→c" + (index + 1)), List.of(sink));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            // at start: worker 0 takes conversation 1, worker 1 conversation 2, worker 2 conversation 3
            assertThat(List.of(next(claims), next(claims), next(claims))).containsExactly("W0→c1", "W1→c2", "W2→c3");
            gates.get("c2").release(); // worker 1 finishes first → takes conversation 4
            assertThat(next(claims)).isEqualTo("W1→c4");
            gates.get("c1").release(); // worker 0 finishes second → takes conversation 5
            assertThat(next(claims)).isEqualTo("W0→c5");
            gates.get("c5").release(); // the pool is used up: worker 0 cycles back to conversation 1
            assertThat(next(claims)).isEqualTo("W0→c1");
            gates.get("c3").release(); // the 7th and last conversation of the budget
            assertThat(next(claims)).isEqualTo("W2→c2");
            for (String c : List.of("c4", "c1", "c2")) gates.get(c).release();
            RunOutcome outcome = run.get(30, TimeUnit.SECONDS);
            assertThat(outcome.sent()).isEqualTo(7);
            assertThat(claims).isEmpty(); // nobody claimed beyond the budget
            assertThat(sink.records).hasSize(7).allMatch(RequestRecord::success);
        }
    }

    private static String next(LinkedBlockingQueue<String> q) throws InterruptedException {
        String s = q.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("a claim within 10 s").isNotNull();
        return s;
    }

    @Test
    void eachTurnSendsTheWholeHistoryWithTheModelsActualRepliesNeverTheDatasetsOnes() throws Exception {
        Path file = dir.resolve("conv.jsonl");
        Files.writeString(file, """
                [{"role":"system","content":"S"},{"role":"user","content":"u1"},{"role":"assistant","content":"DATASET-A1"},{"role":"user","content":"u2"},{"role":"assistant","content":"DATASET-A2"},{"role":"user","content":"u3"},{"role":"assistant","content":"DATASET-A3"}]
                """);
        List<Conversation> pool = Datasets.conversationByName("custom_multi_turn").load(new MultiTurnOptions(
                new DatasetOptions(file.toString(), 0, 0, 1000, 0, null, true, 0), 1, null, null), 10);
        try (ScriptedServer server = new ScriptedServer(body ->
                ScriptedServer.Reply.ok("real reply to " + lastUser(body), 10, 4, null))) {
            Collector sink = new Collector();
            run(server.uri(), pool, new LoadPlan(1, 1, -1, null, 0), MultiTurnPlan.RateMode.THINK, null, List.of(sink));
            assertThat(server.received).hasSize(3);
            assertThat(ScriptedServer.contents(server.received.get(0))).containsExactly("system:S", "user:u1");
            assertThat(ScriptedServer.contents(server.received.get(2))).containsExactly("system:S", "user:u1",
                    "assistant:real reply to u1", "user:u2", "assistant:real reply to u2", "user:u3");
            assertThat(server.received.toString()).doesNotContain("DATASET-A");
            List<RequestRecord> turns = sink.of("bench-0");
            assertThat(turns).extracting(rec -> rec.position().turnIndex()).containsExactly(0, 1, 2);
            assertThat(turns).extracting(rec -> rec.position().firstTurn()).containsExactly(true, false, false);
            assertThat(turns).extracting(rec -> rec.position().lastTurn()).containsExactly(false, false, true);
        }
    }

    @Test
    void aFailedTurnAbandonsItsConversationAndTheWorkerStartsANewOneWithAFreshHistory() throws Exception {
        List<Conversation> pool = List.of(conversation("a", 3), conversation("b", 3), conversation("c", 3));
        try (ScriptedServer server = new ScriptedServer(body -> lastUser(body).equals("b-u2")
                ? ScriptedServer.Reply.error(500) : ScriptedServer.Reply.ok("r", 10, 4, null))) {
            Collector sink = new Collector();
            RunMetrics metrics = new RunMetrics();
            run(server.uri(), pool, new LoadPlan(1, 3, -1, null, 0), MultiTurnPlan.RateMode.THINK, null,
                    List.of(sink, metrics));
            List<RequestRecord> b = sink.of("bench-1");
            assertThat(b).hasSize(2);
            assertThat(b.get(0).success()).isTrue();
            assertThat(b.get(1).success()).isFalse();
            assertThat(b.get(1).outcome().errorClass()).isEqualTo("http_5xx");
            assertThat(b.get(1).position().lastTurn()).isTrue();
            assertThat(server.received.stream().map(MultiTurnRunnerTest::lastUser)).doesNotContain("b-u3");
            // the next conversation starts from nothing: its first request carries only its own first message
            JsonNode cFirst = server.received.stream().filter(r -> lastUser(r).equals("c-u1")).findFirst().orElseThrow();
            assertThat(ScriptedServer.contents(cFirst)).containsExactly("user:c-u1");
            assertThat(sink.of("bench-2")).hasSize(3).allMatch(RequestRecord::success);

            RunResult result = metrics.result(new RunInfo("x", 1, -1, 3));
            assertThat(result.summary().requests().failedRequests()).isEqualTo(1);
            assertThat(result.errors()).containsEntry("http_5xx", 1L);
            assertThat(result.traces().nTraces()).isEqualTo(3); // b's successful first turn is a partial trace
            assertThat(result.traces().completedTraces()).isEqualTo(2);
            assertThat(result.traces().abandonedTraces()).isEqualTo(1);
            assertThat(result.summary().multiTurn().completedTraces()).isEqualTo(2);
        }
    }

    @Test
    void theBudgetOfConversationsIsNeverExceededUnderConcurrency() throws Exception {
        // 24 workers racing for 60 conversations over a pool of 7 (so they cycle), against the simulator
        List<Conversation> pool = new ArrayList<>();
        for (int c = 0; c < 7; c++) pool.add(conversation("p" + c, 2));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            Collector sink = new Collector();
            Set<Long> claimed = ConcurrentHashMap.newKeySet();
            ConcurrentLinkedQueue<Integer> indexes = new ConcurrentLinkedQueue<>();
            RunOutcome outcome = run(URI.create(sim.baseUrl() + "/v1/chat/completions"), pool,
                    new LoadPlan(24, 60, -1, null, 0), MultiTurnPlan.RateMode.THINK, (warmup, worker, seq, index) -> {
                        claimed.add(seq);
                        indexes.add(index);
                    }, List.of(sink));
            assertThat(outcome.sent()).isEqualTo(60);
            assertThat(claimed).hasSize(60).allMatch(s -> s >= 0 && s < 60);
            Map<String, List<RequestRecord>> byConversation =
                    sink.records.stream().collect(Collectors.groupingBy(rec -> rec.position().conversationId()));
            assertThat(byConversation).hasSize(60);
            assertThat(sink.records).hasSize(120).allMatch(RequestRecord::success);
            // dataset order, cycled: every pooled conversation is used 60/7 → 8 or 9 times
            Map<Integer, Long> uses = indexes.stream().collect(Collectors.groupingBy(i -> i, Collectors.counting()));
            assertThat(uses.values()).allMatch(n -> n == 8 || n == 9);
        }
    }

    @Test
    void durationIsASoftExitThatLetsRunningConversationsFinishAllTheirTurns() throws Exception {
        // On a manual clock every reply takes 60 ms, so a 3-turn conversation takes 180 ms: past the 100 ms duration.
        ManualClock clock = new ManualClock();
        long deadline = clock.nanoTime() + Duration.ofMillis(100).toNanos();
        List<Conversation> pool = List.of(conversation("d", 3));
        ConcurrentLinkedQueue<Long> sentAt = new ConcurrentLinkedQueue<>();
        try (ScriptedServer server = new ScriptedServer(body -> {
            sentAt.add(clock.nanoTime());
            clock.advance(Duration.ofMillis(60).toNanos());
            return ScriptedServer.Reply.ok("r", 10, 4, null);
        }); LlmClient client = client(server.uri())) {
            Collector sink = new Collector();
            MultiTurnRunner runner = new MultiTurnRunner(client::send, clock,
                    new RecordFactory(Tokenizers.defaultTokenizer(), false), new StopSignal(), null, RequestHooks.NONE,
                    null);
            RunOutcome outcome = runner.run(new MultiTurnPlan(new LoadPlan(2, 1000, -1, Duration.ofMillis(100), 0),
                            MultiTurnPlan.RateMode.THINK, null), new ConversationPool(pool),
                    new ConversationRequests(PARAMS, 1, "t"), List.of(sink), 1);
            assertThat(outcome.hitDuration()).isTrue();
            // both workers claimed before the first reply; once 100 ms had passed nobody claimed again
            assertThat(outcome.sent()).isEqualTo(2);
            Map<String, List<RequestRecord>> byConversation =
                    sink.records.stream().collect(Collectors.groupingBy(rec -> rec.position().conversationId()));
            assertThat(byConversation).hasSize(2);
            for (List<RequestRecord> turns : byConversation.values()) {
                assertThat(turns).hasSize(3).allMatch(RequestRecord::success); // finished all turns
                assertThat(turns.stream().filter(rec -> rec.position().lastTurn())).hasSize(1);
            }
            // the clock passes the deadline once two replies have been made (2 × 60 ms): the turns sent after it were
            // not cut. The server stamps requests as they come, so how many came before that depends on how the two
            // workers' sends interleave; at most 3 can (both first turns and one second turn, each needing at most
            // one reply before it), so at least 3 of the 6 were sent after the deadline, whatever the machine does
            assertThat(sentAt).hasSize(6);
            assertThat(sentAt.stream().filter(t -> t >= deadline).count()).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void turnsPerRequestAndCacheHitEqualHandComputedValues() throws Exception {
        // Server accounting: 50 tokens per user message, 10 per assistant message; it reports cached tokens
        // block-aligned (16) below the whole history: turn 2 of a → 48 of 60, turn 3 → 112 of 120.
        List<Conversation> pool = List.of(conversation("a", 3), conversation("b", 1));
        ScriptedServer.Script script = body -> {
            int users = 0;
            int assistants = 0;
            for (JsonNode m : body.get("messages")) {
                if (m.get("role").asText().equals("user")) users++;
                else assistants++;
            }
            int prompt = 50 * users + 10 * assistants;
            int history = prompt - 50;
            return ScriptedServer.Reply.ok("r", prompt, 10, history / 16 * 16);
        };
        try (ScriptedServer server = new ScriptedServer(script)) {
            RunMetrics metrics = new RunMetrics();
            run(server.uri(), pool, new LoadPlan(1, 2, -1, null, 0), MultiTurnPlan.RateMode.THINK, null, List.of(metrics));
            RunResult r = metrics.result(new RunInfo("x", 1, -1, 2));
            // turns 1, 2, 3 of a and 1 of b: (1 + 2 + 3 + 1) / 4
            assertThat(r.summary().multiTurn().avgTurnsPerRequest()).isEqualTo(1.75);
            // Σcached / Σprompt = (0 + 48 + 112 + 0) / (50 + 110 + 170 + 50) = 160 / 380
            assertThat(r.summary().cache().kvCacheHitRatePercent()).isCloseTo(100.0 * 160 / 380, within(1e-4));
            assertThat(r.summary().cache().cacheHitSource()).isEqualTo("server");
            // per trace: a = 160/330, b = 0/50; eligible (previous prompt + completion): a = (48+112)/(60+120), b none
            TraceSummary.Row hit = r.traces().row(TraceSummary.CACHE_HIT_RATE);
            assertThat(hit.mean()).isCloseTo(100.0 * 160 / 330 / 2, within(1e-4));
            assertThat(hit.p90()).isCloseTo(0.9 * 100.0 * 160 / 330, within(1e-4)); // linear between 0 and a
            assertThat(hit.max()).isCloseTo(100.0 * 160 / 330, within(1e-4));
            TraceSummary.Row eligible = r.traces().row(TraceSummary.ELIGIBLE_CACHE_HIT_RATE);
            assertThat(eligible.n()).isEqualTo(1);
            assertThat(eligible.mean()).isCloseTo(100.0 * 160 / 180, within(1e-4));
            // by turn position: turn 1 = 0/100, turn 2 = 48/110, turn 3 = 112/170
            assertThat(r.turnPositions()).hasSize(3);
            assertThat(r.turnPositions().get(0).cacheHitPercent()).isEqualTo(0.0);
            assertThat(r.turnPositions().get(1).cacheHitPercent()).isCloseTo(100.0 * 48 / 110, within(1e-4));
            assertThat(r.turnPositions().get(2).cacheHitPercent()).isCloseTo(100.0 * 112 / 170, within(1e-4));
            assertThat(r.turnPositions()).extracting(p -> p.requests()).containsExactly(2L, 1L, 1L);
        }
        // Without cached_tokens from the server the client estimates: the previous turn's prompt + completion
        ScriptedServer.Script noCache = body -> {
            ScriptedServer.Reply full = script.answer(body);
            return ScriptedServer.Reply.ok("r", full.promptTokens(), 10, null);
        };
        try (ScriptedServer server = new ScriptedServer(noCache)) {
            Collector sink = new Collector();
            RunMetrics metrics = new RunMetrics();
            run(server.uri(), pool, new LoadPlan(1, 2, -1, null, 0), MultiTurnPlan.RateMode.THINK, null,
                    List.of(metrics, sink));
            RunResult r = metrics.result(new RunInfo("x", 1, -1, 2));
            assertThat(sink.of("bench-0")).extracting(rec -> rec.tokens().cached()).containsExactly(0, 60, 120);
            assertThat(sink.records).allMatch(x -> x.tokens().cachedSource() == RequestRecord.CacheSource.ESTIMATE);
            assertThat(r.summary().cache().kvCacheHitRatePercent()).isCloseTo(100.0 * 180 / 380, within(1e-4));
            assertThat(r.summary().cache().cacheHitSource()).isEqualTo("estimated");
            assertThat(r.summary().cache().cacheHitEstimated()).isTrue();
        }
    }

    @Test
    void perTurnMaxTokensOverridesTheFlag() throws Exception {
        List<Conversation> pool = List.of(new Conversation("x", List.of(Turn.user("x1"),
                new Turn(user("x2"), 3, null))));
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.ok("r", 5, 1, null))) {
            run(server.uri(), pool, new LoadPlan(1, 1, -1, null, 0), MultiTurnPlan.RateMode.THINK, null, List.of());
            assertThat(server.received).extracting(b -> b.get("max_tokens").asInt()).containsExactly(16, 3);
        }
    }

    private static com.fasterxml.jackson.databind.node.ArrayNode user(String text) {
        com.fasterxml.jackson.databind.node.ArrayNode a = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        a.addObject().put("role", "user").put("content", text);
        return a;
    }

    @Test
    void arrivalModeStartsConversationsOnAScheduleAndMeasuresTheFirstTurnsQueueDelay() throws Exception {
        List<Conversation> pool = List.of(conversation("q", 2));
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.ok("r", 5, 2, null))) {
            Collector sink = new Collector();
            // 200 conversations/s: 6 arrivals within ~30 ms, far below the time a test would notice
            RunOutcome outcome = run(server.uri(), pool, new LoadPlan(4, 6, 200, null, 0),
                    MultiTurnPlan.RateMode.ARRIVAL, null, List.of(sink));
            assertThat(outcome.sent()).isEqualTo(6);
            assertThat(sink.records).hasSize(12).allMatch(RequestRecord::success);
            assertThat(sink.records.stream().filter(rec -> rec.position().firstTurn()))
                    .allMatch(x -> x.timing().scheduledNanos() != Moments.ABSENT && x.queueDelaySeconds() >= 0);
            assertThat(sink.records.stream().filter(x -> !x.position().firstTurn()))
                    .allMatch(x -> x.timing().scheduledNanos() == Moments.ABSENT);
        }
    }

    @Test
    void subsequentTurnTtftIsLowerThanFirstTurnTtftWhenTheSimulatorsPrefixCacheHits() throws Exception {
        // Prefill costs 0.3 ms per uncached prompt token. Turn 1 sends ~1,120 fresh tokens (≥ 336 ms of prefill);
        // later turns add ~10 tokens to a cached history, so their prefill is a few ms: the gap is structural.
        List<Conversation> pool = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            StringBuilder longText = new StringBuilder();
            for (int i = 0; i < 160; i++) longText.append("conversation ").append(c).append(" fact ").append(i).append(". ");
            pool.add(new Conversation("c" + c, List.of(Turn.user(longText.toString()), Turn.user("and then? " + c),
                    Turn.user("why? " + c))));
        }
        SimConfig config = SimConfig.defaults().withTtftMs(5).withPrefillMsPerToken(0.3).withItlMs(1);
        try (SimServer sim = SimServer.start(config)) {
            RunMetrics metrics = new RunMetrics();
            Collector sink = new Collector();
            run(URI.create(sim.baseUrl() + "/v1/chat/completions"), pool, new LoadPlan(1, 3, -1, null, 0),
                    MultiTurnPlan.RateMode.THINK, null, List.of(metrics, sink));
            RunResult r = metrics.result(new RunInfo("x", 1, -1, 3));
            assertThat(sink.records).hasSize(9).allMatch(RequestRecord::success);
            assertThat(sink.records.stream().filter(x -> !x.position().firstTurn()))
                    .allMatch(x -> x.tokens().cachedSource() == RequestRecord.CacheSource.SERVER && x.tokens().cached() > 1000);
            double first = r.summary().multiTurn().avgFirstTurnTtftMs();
            double subsequent = r.summary().multiTurn().avgSubsequentTurnTtftMs();
            assertThat(first).isGreaterThan(5 + 1000 * 0.3); // at least the configured cost of 1,000 uncached tokens
            assertThat(subsequent).isLessThan(first / 2);
            assertThat(r.turnPositions().get(1).avgTtftMs()).isLessThan(r.turnPositions().get(0).avgTtftMs() / 2);
        }
    }
}
