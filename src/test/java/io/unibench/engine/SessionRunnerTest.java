package io.unibench.engine;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunEvent;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The session runner through the real client against the embedded simulator on loopback. */
@Timeout(60) // a hang guard only
class SessionRunnerTest {
    static final GenerationParams GEN = new GenerationParams("m", ApiFormat.CHAT, 4, 4, null, 0, null, null, null,
            null, true, null);

    static RunSpec spec(String url, boolean testConnection, LoadPlan... plans) {
        RunSpec.Target target = new RunSpec.Target("sim", url, true, "m", ApiFormat.CHAT, Map.of(),
                RunSpec.ApiKey.NONE, new RunSpec.Timeouts(null, null, null), 16, null, testConnection);
        RunSpec.Workload w = new RunSpec.Workload("prompt", false, "prompt", null, "hi", 0, 0, GEN);
        List<RunSpec.Point> points = new ArrayList<>();
        for (LoadPlan p : plans) points.add(new RunSpec.Point(p.label(), 0, 0, p, Duration.ZERO));
        return new RunSpec("t", List.of(target), List.of(w), points, new RunSpec.Outputs(Path.of("unused")),
                new RunSpec.History(false, null, List.of()), 0);
    }

    /** Single-turn points of the fixed prompt; records what the runner hands over. */
    static final class Front implements PointSource {
        final List<RequestRecord> records = new CopyOnWriteArrayList<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final StopSignal stop;
        BenchmarkRunner runner;
        RequestFactory.Waits waits = RequestFactory.Waits.NONE; // what each point says its preparation cost

        Front(StopSignal stop) {
            this.stop = stop;
        }

        @Override
        public void targetStarted(int target, LlmClient client) {
            calls.add("target " + target);
            runner = new BenchmarkRunner(client, new RecordFactory(Tokenizers.defaultTokenizer(), false), stop);
        }

        @Override
        public void targetFinished(int target, boolean stopped) {
            calls.add("target " + target + " finished" + (stopped ? " early" : ""));
        }

        @Override
        public PointRun prepare(int index, RunSpec.Point point) {
            RequestFactory requests = new RequestFactory(List.of(Prompt.ofText("hi", -1, -1)), GEN, index, "t" + index);
            calls.add("prepare " + index);
            return new PointRun() {
                @Override public PreparedRequest probe() {
                    calls.add("probe");
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
                @Override public RequestFactory.Waits preparationWaits() {
                    return waits;
                }
                @Override public Map<String, Object> finished(RunResult result) {
                    calls.add("finished " + index + " " + result.summary().requests().totalRequests());
                    return Map.of();
                }
                @Override public void close() {
                    requests.close();
                }
            };
        }
    }

    static final class Events {
        final List<RunEvent> events = new CopyOnWriteArrayList<>();
    }

    /**
     * A point offered 100 req/s on a schedule, at most one in flight, against a simulator that takes 150 ms a request:
     * the schedule runs away from the sends (each request later than the one before, whatever the machine's speed),
     * so the verdict is load-not-delivered, with the figures in the point's summary keys.
     */
    @Test
    void aSaturatedScheduleAgainstASlowSimulatorDidNotDeliverItsLoad() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(150).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            Front front = new Front(stop);
            List<Map<String, Object>> stored = new CopyOnWriteArrayList<>();
            SessionRunner.Recorder recorder = new SessionRunner.Recorder() {
                @Override public RecordSink pointSink(RunSpec.Point point, RunInfo info, long originNanos) {
                    return record -> { };
                }
                @Override public void pointFinished(RunSpec.Point point, RunResult result, Map<String, Object> extra) {
                    stored.add(extra);
                }
                @Override public void targetFinished(int target, boolean interrupted) {}
            };
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                result = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions", false,
                        new LoadPlan(1, 10, 100, null, 0)), Map.of(), false, stop, hub, recorder,
                        new PrintWriter(new StringWriter())).maxErrorRate(50.0).run(front);
            }
            var verdict = result.points().getFirst().verdict();
            assertThat(io.unibench.metrics.PointVerdict.reasonsOf(verdict.verdict())).contains("load-not-delivered");
            assertThat(verdict.dispatchLagP99Ms()).isGreaterThan(100); // the last request waited for 9 before it
            assertThat(verdict.deliveredRate()).isLessThan(verdict.offeredRate());
            assertThat(stored).singleElement().satisfies(keys -> assertThat(keys)
                    .containsEntry("Verdict", verdict.verdict())
                    .containsKeys("Verdict Reasons", "Offered Rate (req/s)", "Delivered Rate (req/s)",
                            "Dispatch Lag p99 (ms)", "Mean In-Flight", "Client CPU Avg (%)"));
        }
    }

    /**
     * Issue 30 §5: with a calibration stored in the runner's unibench home, a point offered more than half the
     * calibrated ceiling is client-bound, with the numbers; with none stored, no such reason.
     */
    @Test
    void aPointAskingMoreThanTheDocumentedShareOfTheCalibratedCeilingIsClientBound(
            @org.junit.jupiter.api.io.TempDir Path home) throws Exception {
        Path calibrated = home.resolve("calibrated");
        new io.unibench.engine.selfcheck.Calibration(150, 1, 10, 1, 256, 1000, 10, 2, "jvm", "os", "v", "t")
                .write(calibrated.resolve("calibration.json"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            List<String> verdicts = new ArrayList<>();
            for (Path dir : List.of(calibrated, home.resolve("none"))) {
                StopSignal stop = new StopSignal();
                try (EventHub hub = new EventHub()) {
                    SessionRunner.Result result = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions",
                            false, new LoadPlan(1, 4, 100, null, 0)), Map.of("UNIBENCH_HOME", dir.toString()), false,
                            stop, hub, SessionRunner.Recorder.NONE, new PrintWriter(new StringWriter()))
                            .maxErrorRate(100.0).run(new Front(stop));
                    verdicts.add(String.join("; ", result.points().getFirst().verdict().reasons()));
                }
            }
            assertThat(verdicts.get(0)).contains("client-bound: ")
                    .contains("asked 100 req/s, 67 % of this machine's calibrated 150 req/s > 50 %");
            assertThat(verdicts.get(1)).doesNotContain("calibrated");
        }
    }

    /**
     * Issue 31: a point whose dispatcher caught up with the preparation of its prompts was paced by the client, not
     * the target: client-bound, with the figures; a point prepared in time has no such reason.
     */
    @Test
    void aPointWhoseRequestsWaitedForTheirPromptsIsClientBound() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            List<String> reasons = new ArrayList<>();
            for (RequestFactory.Waits waits : List.of(new RequestFactory.Waits(2, 1_500_000_000L),
                    RequestFactory.Waits.NONE)) {
                StopSignal stop = new StopSignal();
                Front front = new Front(stop);
                front.waits = waits;
                try (EventHub hub = new EventHub()) {
                    SessionRunner.Result result = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions",
                            false, new LoadPlan(1, 4, -1, null, 0)), Map.of(), false, stop, hub,
                            SessionRunner.Recorder.NONE, new PrintWriter(new StringWriter())).maxErrorRate(100.0)
                            .run(front);
                    reasons.add(String.join("; ", result.points().getFirst().verdict().reasons()));
                }
            }
            assertThat(reasons.get(0)).contains("client-bound: ").contains(
                    "preparation behind the dispatcher: 2 of 4 requests (50.0 %) waited 1.5 s for their prompts > 1 %");
            assertThat(reasons.get(1)).doesNotContain("preparation");
        }
    }

    @Test
    void preparationIsTheBoundOnlyWhenMoreThanOnePercentOfTheRequestsWaited() {
        assertThat(RequestFactory.Waits.NONE.bound(1000)).isNull();
        assertThat(new RequestFactory.Waits(10, 1).bound(1000)).isNull(); // 1 %: not more
        assertThat(new RequestFactory.Waits(11, 2_000_000_000L).bound(1000))
                .isEqualTo("preparation behind the dispatcher: 11 of 1,000 requests (1.1 %) waited 2.0 s for their "
                        + "prompts > 1 %");
        assertThat(new RequestFactory.Waits(3, 1).bound(0)).isNull(); // nothing sent: nothing to judge
    }

    @Test
    void theCeilingsReasonUsesTheConfiguredRateElseTheDeliveredOneWithinTheShareNothing() {
        var ceiling = new io.unibench.engine.selfcheck.Calibration(3725, 1, 10, 1, 256, 1000, 10, 2, "jvm", "os", "v",
                "t");
        assertThat(PointExecution.beyondCeiling(ceiling, 2100.0, 1500.0))
                .isEqualTo("asked 2,100 req/s, 56 % of this machine's calibrated 3,725 req/s > 50 %");
        assertThat(PointExecution.beyondCeiling(ceiling, null, 2000.0)).startsWith("asked 2,000 req/s, 54 %");
        assertThat(PointExecution.beyondCeiling(ceiling, 1800.0, 1800.0)).isNull(); // 48 %
        assertThat(PointExecution.beyondCeiling(null, 9000.0, 9000.0)).isNull();
        assertThat(SessionRunner.calibration(Map.of())).isNull(); // no home named: the user's is never read
    }

    /**
     * Issue 28: {@code run()} needs nothing but the spec: what each point sends (the fixed prompt), its sinks, its
     * dispatcher and its files (requests.jsonl, evalscope's summary) follow from it; progress lines every
     * {@code outputs.log_every} requests.
     */
    @Test
    void aSpecRunsWithNoFrontEndItsPointsFilesFollowFromIt(@org.junit.jupiter.api.io.TempDir Path root)
            throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            RunSpec base = spec(sim.baseUrl() + "/v1/chat/completions", true, new LoadPlan(1, 3, -1, null, 0),
                    new LoadPlan(2, 4, -1, null, 0));
            RunSpec spec = new RunSpec(base.name(), base.targets(), base.workloads(), base.points(),
                    new RunSpec.Outputs(root, false, 2, null), base.history(), 0);
            StringWriter err = new StringWriter();
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                result = new SessionRunner(spec, Map.of(), false, new StopSignal(), hub, SessionRunner.Recorder.NONE,
                        new PrintWriter(err, true)).maxErrorRate(100.0).run();
            }
            assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
            assertThat(result.points()).extracting(r -> r.summary().requests().totalRequests()).containsExactly(3L, 4L);
            for (RunSpec.Point p : spec.points()) {
                Path dir = root.resolve(p.label());
                assertThat(java.nio.file.Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize(p.plan().number());
                assertThat(dir.resolve("benchmark_summary.json")).exists();
                assertThat(dir.resolve("benchmark_args.json")).as("the spec carries no arguments").doesNotExist();
            }
            assertThat(err.toString()).contains("[parallel_2_number_4] 4/4  ok 4 fail 0");
        }
    }

    @Test
    void everyPointRunsInOrderAndTheLiveEventsTellItFromStartToFinish() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            Front front = new Front(stop);
            Events seen = new Events();
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                hub.subscribe(seen.events::add);
                result = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions", true,
                        new LoadPlan(2, 6, -1, null, 2), new LoadPlan(4, 8, -1, null, 0)), Map.of(), false, stop, hub,
                        SessionRunner.Recorder.NONE, new PrintWriter(new StringWriter())).run(front);
            }
            assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
            assertThat(result.failure()).isNull();
            assertThat(result.points()).extracting(r -> r.summary().requests().totalRequests()).containsExactly(6L, 8L);
            assertThat(result.checks()).hasSize(2);
            assertThat(front.records).hasSize(14).allMatch(RequestRecord::success); // warm-up not recorded
            // the connection test once, before the target's first point; the target closes after the last
            assertThat(front.calls).containsExactly("target 0", "prepare 0", "probe", "finished 0 6", "prepare 1",
                    "finished 1 8", "target 0 finished");

            List<String> kinds = seen.events.stream().map(e -> e.getClass().getSimpleName() + " "
                    + switch (e) {
                        case io.unibench.engine.live.PhaseStarted p -> p.phase();
                        case PointStarted p -> p.point() + "/" + p.points();
                        case Snapshot s -> String.valueOf(s.point());
                        case PointFinished f -> String.valueOf(f.point());
                        case RunFinished r -> r.status().name();
                    }).distinct().toList();
            assertThat(kinds).containsExactly("PhaseStarted connection_test", "PointStarted 0/2", "Snapshot 0", "PointFinished 0", "PointStarted 1/2",
                    "Snapshot 1", "PointFinished 1", "RunFinished FINISHED");
            Snapshot last = (Snapshot) seen.events.stream().filter(e -> e instanceof Snapshot s && s.point() == 1)
                    .reduce((a, b) -> b).orElseThrow();
            assertThat(last.completed()).isEqualTo(8);
            assertThat(last.succeeded()).isEqualTo(8);
            assertThat(last.ttftMs().p50()).isPositive();
            PointFinished finished = (PointFinished) seen.events.get(seen.events.size() - 2);
            assertThat(finished.result()).isSameAs(result.points().get(1));
        }
    }

    /**
     * The runner reads the engine's clock it was given, not {@code System.nanoTime()}: an hour's pause after the first
     * point is one wait on that clock (which lets it pass at once), and the run goes on to the second point.
     */
    @Test
    void thePauseAfterAPointIsAWaitOnTheInjectedClock() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            Clock real = Clock.system(stop);
            long hour = Duration.ofHours(1).toNanos();
            List<Long> longWaits = new CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicLong skipped = new java.util.concurrent.atomic.AtomicLong();
            Clock clock = new Clock() { // real time, but a wait of 10 minutes or more passes at once
                @Override public long nanoTime() {
                    return System.nanoTime() + skipped.get();
                }
                @Override public boolean awaitUntil(long deadlineNanos) {
                    long wait = deadlineNanos - nanoTime();
                    if (wait < Duration.ofMinutes(10).toNanos()) return real.awaitUntil(deadlineNanos - skipped.get());
                    longWaits.add(wait);
                    skipped.addAndGet(wait);
                    return true;
                }
            };
            RunSpec plain = spec(sim.baseUrl() + "/v1/chat/completions", false, new LoadPlan(1, 2, -1, null, 0),
                    new LoadPlan(1, 3, -1, null, 0));
            RunSpec.Point first = plain.points().get(0);
            List<RunSpec.Point> points = List.of(new RunSpec.Point(first.label(), first.target(), first.workload(),
                    first.plan(), Duration.ofHours(1)), plain.points().get(1));
            RunSpec spec = new RunSpec(plain.name(), plain.targets(), plain.workloads(), points, plain.outputs(),
                    plain.history(), plain.seed());
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                result = new SessionRunner(spec, Map.of(), false, stop, hub, SessionRunner.Recorder.NONE,
                        new PrintWriter(new StringWriter())).clock(clock).run(new Front(stop));
            }
            assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
            assertThat(result.points()).extracting(r -> r.summary().requests().totalRequests()).containsExactly(2L, 3L);
            assertThat(longWaits).hasSize(1).allMatch(w -> w > hour - Duration.ofSeconds(30).toNanos() && w <= hour);
        }
    }

    /** The spec's goodput objectives are counted by the runner: the front end (which knows nothing of them) adds no sink. */
    @Test
    void theSpecsGoodputIsCountedByTheRunnerNotTheFrontEnd() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            RunSpec plain = spec(sim.baseUrl() + "/v1/chat/completions", false, new LoadPlan(2, 6, -1, null, 0));
            RunSpec withGoodput = new RunSpec(plain.name(), plain.targets(), plain.workloads(), plain.points(), null,
                    plain.shard(), new io.unibench.metrics.GoodputSlo(null, null, 60_000.0), null, plain.outputs(),
                    plain.history(), plain.seed());
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                result = new SessionRunner(withGoodput, Map.of(), false, stop, hub, SessionRunner.Recorder.NONE,
                        new PrintWriter(new StringWriter())).run(new Front(stop));
            }
            RunResult point = result.points().getFirst();
            assertThat(point.goodput()).isNotNull();
            assertThat(point.goodput().goodRequests()).isEqualTo(6); // every request well inside a minute
        }
    }

    /** A search's probes (SLA auto-tune): not counted as "point i of n" (the spec lists none), each says where it is. */
    @Test
    void aSearchsProbesAreNotCountedInAdvanceAndSayWhereTheSearchIs() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            Events seen = new Events();
            try (EventHub hub = new EventHub()) {
                hub.subscribe(seen.events::add);
                SessionRunner runner = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions", false),
                        Map.of(), false, stop, hub, SessionRunner.Recorder.NONE, new PrintWriter(new StringWriter()));
                try (SessionState session = runner.open(new Front(stop))) {
                    for (int value : new int[] {1, 2}) {
                        session.searching("probe " + value);
                        LoadPlan plan = new LoadPlan(value, 2, -1, null, 0);
                        session.run(new RunSpec.Point(plan.label(), 0, 0, plan, Duration.ZERO));
                    }
                    session.finish();
                }
            }
            assertThat(seen.events.stream().filter(e -> e instanceof PointStarted).map(e -> (PointStarted) e)
                    .map(p -> p.point() + "/" + p.points() + " " + p.search())).containsExactly("0/0 probe 1", "1/0 probe 2");
        }
    }

    @Test
    void aStopEndsThePointWithAPartialResultAndTheRunAsStopped() throws Exception {
        // replies of ~2 s each: the stop comes while the first requests are in flight
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(2000).withItlMs(0))) {
            StopSignal stop = new StopSignal();
            Front front = new Front(stop);
            Events seen = new Events();
            SessionRunner runner;
            SessionRunner.Result result;
            try (EventHub hub = new EventHub()) {
                hub.subscribe(seen.events::add);
                runner = new SessionRunner(spec(sim.baseUrl() + "/v1/chat/completions", false,
                        new LoadPlan(2, 1000, -1, null, 0), new LoadPlan(2, 10, -1, null, 0)), Map.of(), false, stop,
                        hub, SessionRunner.Recorder.NONE, new PrintWriter(new StringWriter()));
                SessionRunner r = runner;
                // the web's cancel: stop once a snapshot shows requests in flight (the simulator holds them 2 s)
                hub.subscribe(e -> {
                    if (e instanceof Snapshot s && s.inFlight() > 0) r.stop();
                });
                result = runner.run(front);
            }
            assertThat(result.status()).isEqualTo(RunStatus.STOPPED);
            assertThat(result.points()).hasSize(1); // the second point never started
            assertThat(front.records).isNotEmpty().anyMatch(r -> r.outcome().cancelled());
            assertThat(front.calls).containsExactly("target 0", "prepare 0", "finished 0 " + front.records.size(),
                    "target 0 finished early");
            assertThat(seen.events.getLast()).isEqualTo(new RunFinished(RunStatus.STOPPED, "stopped"));
        }
    }

    @Test
    void aFailedConnectionTestIsBadInputAndTheRunFinishesAsFailed() throws Exception {
        Events seen = new Events();
        StopSignal stop = new StopSignal();
        try (EventHub hub = new EventHub()) {
            hub.subscribe(seen.events::add);
            // a port nothing listens on: the connection is refused at once
            SessionRunner runner = new SessionRunner(spec("http://127.0.0.1:1/v1/chat/completions", true,
                    new LoadPlan(1, 1, -1, null, 0)), Map.of(), false, stop, hub, SessionRunner.Recorder.NONE,
                    new PrintWriter(new StringWriter()));
            assertThatThrownBy(() -> runner.run(new Front(stop))).isInstanceOf(BadInputException.class)
                    .hasMessageContaining("connection test");
        }
        assertThat(seen.events).hasSize(2); // the connection test's start, the run's end
        assertThat(((io.unibench.engine.live.PhaseStarted) seen.events.getFirst()).phase()).isEqualTo("connection_test");
        assertThat(((RunFinished) seen.events.getLast()).status()).isEqualTo(RunStatus.FAILED);
    }
}
