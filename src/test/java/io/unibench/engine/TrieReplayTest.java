package io.unibench.engine;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.TraceSummary;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Conversation;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.MultiTurnOptions;
import io.unibench.workload.TrieDataset;
import io.unibench.workload.TrieTrace;
import io.unibench.workload.Turn;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * trie traces replayed against the simulator with ignore_eos: every turn's prompt and output
 * token counts follow the trace, the tool pauses asked for are the recorded ones times the scale, and the per-trace
 * figures equal the ones computed by hand from the records.
 */
class TrieReplayTest {
    /** Three traces (3, 1 and 2 requests) with small lengths, so the test is quick; the CLI test replays the sample. */
    static final String SAMPLE = "src/test/resources/agentic/trie_small.jsonl";
    /** The simulator's template: "<|role|>\n" + content + "\n" per message, "<|assistant|>\n" at the end. */
    static final int TEMPLATE_TOKENS_PER_MESSAGE_MAX = 6;
    static final int GENERATION_PROMPT_TOKENS_MAX = 5;
    static final double SCALE = 0.01;

    record Pause(String conversation, int turn, long nanos) {}

    @Test void everyTurnFollowsTheTrace() throws Exception {
        Tokenizer cl100k = Tokenizers.load("cl100k_base");
        int traces = 3;
        List<Conversation> pool = new TrieDataset(TrieDataset.AGENTIC_CODING).load(new MultiTurnOptions(
                new DatasetOptions(SAMPLE, 0, 0, 131072, 0, cl100k, true, 0), 1, null, null), traces);
        List<TrieTrace> recorded = TrieDataset.readAll(SAMPLE);
        ObjectNode extra = JsonNodeFactory.instance.objectNode().put("ignore_eos", true);
        GenerationParams params = new GenerationParams("m", ApiFormat.CHAT, 2048, 2048, null, 0.0, null, null, null,
                null, true, extra);
        ConcurrentLinkedQueue<RequestRecord> records = new ConcurrentLinkedQueue<>();
        RunMetrics metrics = new RunMetrics();
        ConcurrentLinkedQueue<Pause> pauses = new ConcurrentLinkedQueue<>();
        StopSignal stop = new StopSignal();
        Pauser real = Pauser.waitingOn(Clock.system(stop));
        // records what the runner asks for, then really waits it (scaled to milliseconds, so the test stays fast)
        Pauser observed = (conversation, turn, nanos) -> {
            pauses.add(new Pause(conversation, turn, nanos));
            return real.pause(conversation, turn, nanos);
        };
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0).withPrefillMsPerToken(0));
             LlmClient client = new LlmClient(new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"),
                     Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(120), 16, false))) {
            MultiTurnRunner runner = new MultiTurnRunner(client, new RecordFactory(cl100k, true), stop, null, observed);
            RunOutcome outcome = runner.run(new MultiTurnPlan(new LoadPlan(2, traces, -1, null, 0),
                    MultiTurnPlan.RateMode.THINK, null, SCALE), new ConversationPool(pool),
                    new ConversationRequests(params, 1, "t"), List.<io.unibench.metrics.RecordSink>of(metrics, records::add), 1);
            assertThat(outcome.sent()).isEqualTo(traces);
        }
        assertThat(records).allMatch(RequestRecord::success);
        List<double[]> hand = new ArrayList<>(); // per trace: latency, TTFAT, idle
        for (int c = 0; c < traces; c++) {
            String id = "bench-" + c;
            List<RequestRecord> turns = records.stream().filter(r -> r.position().conversationId().equals(id))
                    .sorted(Comparator.comparingInt(rec -> rec.position().turnIndex())).toList();
            // claims go in dataset order, so bench-c replays trace c of the file
            TrieTrace trace = recorded.get(c);
            Conversation conv = pool.get(c);
            assertThat(turns).hasSize(trace.requests());
            long contentTokens = 0;
            long modelNanos = 0;
            for (int i = 0; i < turns.size(); i++) {
                RequestRecord r = turns.get(i);
                Turn turn = conv.turns().get(i);
                int traceInput = i == 0 ? trace.inputPromptLength() : Math.max(1, trace.toolOutputLengths().get(i - 1));
                assertThat(r.tokens().promptTarget()).isEqualTo(traceInput);
                assertThat(r.tokens().promptSynth()).isEqualTo(traceInput);
                assertThat(r.tokens().completion()).as("output of turn %d", i).isEqualTo(Math.max(1, trace.replyLength(i)));
                contentTokens += traceInput;
                int messages = 2 * i + 1; // the user/tool messages so far and the i replies between them
                long overhead = r.tokens().prompt() - contentTokens;
                // the server counts the chat template too: a few tokens per message and the generation prompt
                // (the replies' text re-tokenized in the history may merge a token or two at their ends)
                assertThat(overhead).as("template overhead of turn %d", i)
                        .isBetween((long) -messages, (long) TEMPLATE_TOKENS_PER_MESSAGE_MAX * messages
                                + GENERATION_PROMPT_TOKENS_MAX);
                contentTokens += r.tokens().completion();
                modelNanos += r.timing().endNanos() - r.timing().startNanos();
                assertThat(turn.toolCallLatencySeconds()).isEqualTo(i == 0 ? null : trace.toolLatencies().get(i - 1));
            }
            List<Pause> asked = pauses.stream().filter(p -> p.conversation().equals(id))
                    .sorted(Comparator.comparingInt(Pause::turn)).toList();
            long pausedNanos = 0;
            int expectedPauses = 0;
            for (int i = 1; i < trace.requests(); i++) {
                long nanos = (long) (trace.toolLatencies().get(i - 1) * SCALE * 1e9);
                if (nanos == 0) continue;
                Pause p = asked.get(expectedPauses++);
                assertThat(p.turn()).isEqualTo(i);
                assertThat(p.nanos()).isEqualTo(nanos);
                pausedNanos += nanos;
            }
            assertThat(asked).hasSize(expectedPauses);
            RequestRecord first = turns.get(0);
            RequestRecord last = turns.get(turns.size() - 1);
            double latency = (last.timing().endNanos() - first.timing().startNanos()) / 1e9;
            double ttfat = (last.timing().firstTokenNanos() - first.timing().startNanos()) / 1e9;
            double idle = latency - modelNanos / 1e9;
            // each pause is waited in full before its turn starts, so the idle time holds at least their sum
            assertThat(idle).isGreaterThanOrEqualTo(pausedNanos / 1e9);
            hand.add(new double[] {latency, ttfat, idle});
        }
        TraceSummary summary = metrics.result(new RunInfo("p", 2, -1, traces)).traces();
        assertThat(summary.completedTraces()).isEqualTo(traces);
        check(summary.row(TraceSummary.LATENCY), hand, 0);
        check(summary.row(TraceSummary.TTFAT), hand, 1);
        check(summary.row(TraceSummary.IDLE_TIME), hand, 2);
        TraceSummary.Row turnsRow = summary.row(TraceSummary.TURNS);
        assertThat(turnsRow.mean()).isCloseTo((3 + 1 + 2) / 3.0, within(1e-4)); // num_turns 2, 0, 1 (+1 each)
        TraceSummary.Row out = summary.row(TraceSummary.OUTPUT_TOKENS_PER_TRACE); // 5+7+11, 6, 4+8
        assertThat(List.of(out.min(), out.p50(), out.max(), out.mean())).containsExactly(6.0, 12.0, 23.0, 13.6667);
        TraceSummary.Row perTurn = summary.row(TraceSummary.OUTPUT_TOKENS_PER_TURN); // 23/3, 6/1, 12/2
        assertThat(List.of(perTurn.min(), perTurn.max())).containsExactly(6.0, 7.6667);
        assertThat(summary.tracesPerSecond()).isPositive();
    }

    private static void check(TraceSummary.Row row, List<double[]> hand, int k) {
        double[] v = hand.stream().mapToDouble(h -> h[k]).sorted().toArray();
        assertThat(row.n()).isEqualTo(v.length);
        assertThat(row.min()).isCloseTo(v[0], within(1e-4));
        assertThat(row.max()).isCloseTo(v[v.length - 1], within(1e-4));
        assertThat(row.mean()).isCloseTo((v[0] + v[1] + v[2]) / 3, within(1e-4));
        assertThat(row.p50()).isCloseTo(v[1], within(1e-4));
    }
}
