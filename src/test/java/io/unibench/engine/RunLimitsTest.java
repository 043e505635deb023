package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.client.Usage;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run's limits through the session runner: a budget stops the run (as Ctrl-C does, saying why), a target
 * precision ends a point. The requests go to a scripted sender of exact latencies and usage, one at a time (a closed
 * loop of 1), so where each limit strikes is exact.
 */
class RunLimitsTest {
    private static final String NOWHERE = "http://127.0.0.1:1/v1/chat/completions"; // never sent to

    /** Each reply: 10 prompt + 5 completion tokens, latency {@code latencyNanos.applyAsLong(i)} for the i-th. */
    private static final class Front implements PointSource {
        final List<RequestRecord> records = new CopyOnWriteArrayList<>();
        final List<Map<String, Object>> written = new CopyOnWriteArrayList<>();
        final StopSignal stop;
        final java.util.function.LongUnaryOperator latencyNanos;
        final AtomicLong sent = new AtomicLong();

        Front(StopSignal stop, java.util.function.LongUnaryOperator latencyNanos) {
            this.stop = stop;
            this.latencyNanos = latencyNanos;
        }

        ClientResult reply(long i) {
            long end = 1_000 + latencyNanos.applyAsLong(i);
            return new ClientResult(true, 1_000, 1_500, 2_000, 2_000, end, new long[] {2_000}, 200, "hello", "",
                    new Usage(10, 5, -1), "stop", null, null);
        }

        @Override
        public PointRun prepare(int index, RunSpec.Point point) {
            RequestFactory requests = new RequestFactory(List.of(Prompt.ofText("hi", -1, -1)), SessionRunnerTest.GEN,
                    index, "t" + index);
            Sender sender = (body, stream, id) -> CompletableFuture.completedFuture(reply(sent.getAndIncrement()));
            BenchmarkRunner runner = new BenchmarkRunner(sender, new RecordFactory(Tokenizers.defaultTokenizer(), false),
                    stop, RequestHooks.NONE, Clock.system(stop));
            return new PointRun() {
                @Override public PreparedRequest probe() {
                    return requests.probe();
                }
                @Override public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) {
                    return List.of(records::add);
                }
                @Override public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks)
                        throws InterruptedException {
                    return runner.run(plan, requests, sinks, 1);
                }
                @Override public java.nio.file.Path dir() {
                    return java.nio.file.Path.of("target");
                }
                @Override public Map<String, Object> finished(RunResult result) {
                    return Map.of();
                }
                @Override public void write(RunResult result, Map<String, Object> summaryKeys) {
                    written.add(summaryKeys);
                }
                @Override public void close() {
                    requests.close();
                }
            };
        }
    }

    private static SessionRunner.Result run(RunSpec spec, Front front, StringWriter err) throws Exception {
        try (EventHub hub = new EventHub()) {
            return new SessionRunner(spec, Map.of(), false, front.stop, hub, SessionRunner.Recorder.NONE,
                    new PrintWriter(err, true)).run(front);
        }
    }

    private static RunSpec spec(RunSpec.Limits limits, RunSpec.Price price, LoadPlan... plans) {
        RunSpec s = SessionRunnerTest.spec(NOWHERE, false, plans).withLimits(limits);
        RunSpec.Target t = s.targets().getFirst();
        return s.withTarget(0, new RunSpec.Target(t.name(), t.url(), t.embeddedSimulator(), t.model(), t.api(),
                t.headers(), t.apiKey(), t.timeouts(), t.connections(), t.tls(), false, false, price));
    }

    @Test
    void aTokenBudgetStopsTheRunAtTheRequestThatSpentItAndSaysSo() throws Exception {
        Front front = new Front(new StopSignal(), i -> 1_000_000);
        StringWriter err = new StringWriter();
        SessionRunner.Result r = run(spec(new RunSpec.Limits(null, 100L, null, null), null,
                new LoadPlan(1, 50, -1, null, 0), new LoadPlan(1, 50, -1, null, 0)), front, err);
        // 15 tokens a request: the 7th makes 105 ≥ 100; nothing after it is sent, the second point never runs
        assertThat(front.records).hasSize(7);
        assertThat(r.points()).hasSize(1);
        assertThat(r.status()).isEqualTo(RunStatus.STOPPED);
        assertThat(r.stopReason()).isEqualTo("budget reached: 105 of 100 tokens");
        assertThat(err.toString()).contains("] budget reached: 105 of 100 tokens");
        assertThat(front.written.getFirst()).containsEntry(SessionRunner.STOPPED_BY_KEY, "budget reached: 105 of 100 tokens");
    }

    @Test
    void aCostBudgetCountsAtTheTargetsPrices() throws Exception {
        Front front = new Front(new StopSignal(), i -> 1_000_000);
        // 1 per million input tokens, 2 per million output: 10 + 2·5 = 20 µ a request; the 5th makes 100 µ
        SessionRunner.Result r = run(spec(new RunSpec.Limits(null, null, 0.0001, null), new RunSpec.Price(1, 1, 2),
                new LoadPlan(1, 50, -1, null, 0)), front, new StringWriter());
        assertThat(front.records).hasSize(5);
        assertThat(r.stopReason()).isEqualTo("budget reached: cost 0.0001 of 0.0001");
    }

    @Test
    void aTargetPrecisionEndsThePointOnceItsP95IntervalsAreNarrowEnough() throws Exception {
        Front front = new Front(new StopSignal(), i -> 1_000_000); // every latency 1 ms: an interval of width 0
        StringWriter err = new StringWriter();
        SessionRunner.Result r = run(spec(new RunSpec.Limits(null, null, null, 5.0), null,
                new LoadPlan(1, 1000, -1, null, 0), new LoadPlan(1, 30, -1, null, 0)), front, err);
        // a p95 has an interval from 72 samples; checks every 20 successes: the first at or past 72 is at 80
        assertThat(r.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(r.failure()).isNull();
        assertThat(r.points()).extracting(p -> p.summary().requests().totalRequests()).containsExactly(80L, 30L);
        assertThat(err.toString()).contains("target precision 5% reached after 80 successful requests: "
                + "TTFT p95 ±0.0%, latency p95 ±0.0%");
        assertThat(front.written.get(0)).containsKey(SessionRunner.STOPPED_BY_KEY);
        assertThat(front.written.get(1)).doesNotContainKey(SessionRunner.STOPPED_BY_KEY); // too few for an interval
    }

    @Test
    void aSpreadThatIsNotNarrowEnoughRunsThePointToItsNumber() throws Exception {
        // latencies 1..100 ms, spread evenly: the p95's interval stays wider than 1 % at 400 requests
        Front front = new Front(new StopSignal(), i -> (1 + i % 100) * 1_000_000L);
        SessionRunner.Result r = run(spec(new RunSpec.Limits(null, null, null, 1.0), null,
                new LoadPlan(1, 400, -1, null, 0)), front, new StringWriter());
        assertThat(r.points().getFirst().summary().requests().totalRequests()).isEqualTo(400);
        assertThat(front.written.getFirst()).doesNotContainKey(SessionRunner.STOPPED_BY_KEY);
    }

    @Test
    void theRelativeHalfWidthIsTheOrderStatisticIntervalsOverTheP95() {
        double[] v = new double[100];
        for (int i = 0; i < 100; i++) v[i] = i + 1; // 1..100
        assertThat(PrecisionTarget.relativeHalfWidth(v, 71)).isNaN(); // too few for a p95 interval
        ConfidenceRanks ranks = new ConfidenceRanks(io.unibench.metrics.ConfidenceIntervals.quantileRanks(100, 0.95));
        double expected = 100 * ((ranks.upper() + 1) - (ranks.lower() + 1)) / 2.0 / 96; // p95 of 1..100 is 96
        assertThat(PrecisionTarget.relativeHalfWidth(v, 100)).isEqualTo(expected);
    }

    private record ConfidenceRanks(long lower, long upper) {
        ConfidenceRanks(io.unibench.metrics.ConfidenceIntervals.Ranks r) {
            this(r.lower(), r.upper());
        }
    }
}
