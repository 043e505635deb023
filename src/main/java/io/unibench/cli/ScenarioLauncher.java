package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.Secrets;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunEvent;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.SpecParts;
import io.unibench.report.scenario.ScenarioReport;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioSpec;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import io.unibench.web.RunLauncher;
import io.unibench.workload.Prompt;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The service's runs through the one pipeline, as {@code unibench run --config} runs a file ({@link ScenarioSession}):
 * the same targets (embedded simulators for {@code base_url: sim}), {@link ScenarioSpec} → {@link SessionRunner} with
 * the engine's points ({@link ScenarioSession}), the servers' own metrics read during each level ({@link ServerMetricsHook}),
 * recording into the run the service queued ({@link HistoryRecorder#queued}: its first provider there, every other
 * provider into a run of its own linked to it). Its files go to {@code OUTPUTS/RUN-ID/}. The session publishes its
 * live events; they are forwarded to the service's hub but for its {@link RunFinished}, which the queue publishes
 * itself once it has stored the run's end. Cancelling stops the session.
 */
public final class ScenarioLauncher implements RunLauncher {
    private final Map<String, String> env;
    private final Path outputs;
    private final PrintWriter log;

    /**
     * @param env     where {@code api_key_env} names are read (the service's environment)
     * @param outputs the folder each run's files go under
     * @param log     the service's log (progress lines of each level, self-check warnings)
     */
    public ScenarioLauncher(Map<String, String> env, Path outputs, PrintWriter log) {
        this.env = env;
        this.outputs = outputs;
        this.log = log;
    }

    @Override
    public RunFinished run(Launch launch) throws Exception {
        if (launch.spec() != null) return runSpec(launch);
        BenchConfig bench = launch.config();
        Path root = outputs.resolve(launch.runId());
        Files.createDirectories(root);
        RunRow queued;
        JsonNode document;
        try (RunStore store = RunStore.open(launch.store())) {
            StoredRun run = store.run(launch.runId());
            queued = run.row();
            document = run.config();
        }
        RunHistory history = RunHistory.at(launch.store(), log);
        List<String> sims = bench.providers().stream().filter(BenchConfig.Provider::embeddedSimulator)
                .map(BenchConfig.Provider::name).toList();
        if (!sims.isEmpty()) {
            launch.events().publish(new io.unibench.engine.live.PhaseStarted(
                    io.unibench.engine.live.PhaseStarted.STARTING_SIMULATOR, String.join(", ", sims)));
        }
        HistoryRecorder[] recorded = new HistoryRecorder[1];
        ScenarioSession.Ran ran = ScenarioSession.run(bench, root, new RunSpec.History(true, null, queued.tags()), env,
                new ScenarioSession.Wiring(
                        spec -> recorded[0] = HistoryRecorder.queued(history, launch.runId(), queued.tags(), document,
                                bench, spec),
                        new ServerMetricsHook(new ServerMetricsOption(), log),
                        e -> {
                            if (!(e instanceof RunFinished)) launch.events().publish(e);
                        },
                        session -> launch.cancel().onCancel(session::stop)), log);
        SessionRunner.Result r = ran.session();
        RuntimeException unwritten = Main.firstFailure(null, () -> io.unibench.OutputFailedException.writeWhole(
                root.resolve("scenario_summary.txt"),
                ScenarioReport.render(ScenarioNames.results(bench, ran)).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        // the other providers' linked runs end failed too (the queued run's end is the queue's, from what is returned)
        if (unwritten != null) recorded[0].reportFailed(unwritten);
        RuntimeException failure = r.failure() != null ? r.failure() : unwritten;
        return failure != null ? new RunFinished(io.unibench.engine.live.RunStatus.FAILED, failure.getMessage())
                : new RunFinished(r.status(), r.stopped() ? "stopped" : null);
    }

    /**
     * A run spec, as {@code unibench run FILE} runs one ({@link PerfRun}): its files under {@code OUTPUTS/RUN-ID/},
     * its live events forwarded (but its {@link RunFinished}), a cancel stopping it. A spec of several targets or
     * workloads runs part after part ({@link SpecParts}, the split {@code run FILE} makes; each part's files under
     * {@code OUTPUTS/RUN-ID/TARGET/WORKLOAD/}): the first part records into the queued run, each other part into a run
     * of its own linked to it, as a scenario document's providers; the live events number the points over the whole
     * spec ({@code TARGET/WORKLOAD/LEVEL}, point i of all). A stop or a failure ends the run: no later part starts.
     */
    private RunFinished runSpec(Launch launch) throws Exception {
        Path root = outputs.resolve(launch.runId());
        List<String> tags;
        try (RunStore store = RunStore.open(launch.store())) {
            tags = store.run(launch.runId()).row().tags();
        }
        RunSpec whole = launch.spec().withRoot(root).withHistory(new RunSpec.History(true, null, tags));
        List<RunSpec> parts = SpecParts.of(whole);
        RunHistory history = RunHistory.at(launch.store(), log);
        int offset = 0;
        for (int i = 0; i < parts.size(); i++) {
            RunSpec spec = parts.get(i);
            int first = offset;
            boolean linked = i > 0;
            String name = (whole.name() == null ? "" : whole.name() + "/") + spec.targets().getFirst().name() + "/"
                    + spec.workloads().getFirst().name();
            PerfRun run = new PerfRun(new PerfRun.Process(env, false, false, false, new ServerMetricsOption(), null,
                    ShardRun.NONE, e -> io.unibench.BadInputException.io("outputs", spec.outputs().root(), e), null),
                    new StopSignal())
                    .recordInto((s, url, environment, err) -> linked
                            ? HistoryRecorder.queuedPart(history, launch.runId(), name, s, url)
                            : HistoryRecorder.queued(history, launch.runId(), s, url))
                    .listen(e -> {
                        if (!(e instanceof RunFinished)) {
                            launch.events().publish(parts.size() == 1 ? e : overWhole(e, spec, first, whole.points().size()));
                        }
                    });
            launch.cancel().onCancel(run::stop);
            run.run(spec, new PrintWriter(java.io.Writer.nullWriter()), log); // the report is performance_summary.txt
            RuntimeException failure = run.failure();
            if (failure != null) return new RunFinished(io.unibench.engine.live.RunStatus.FAILED, failure.getMessage());
            if (run.stopped()) return new RunFinished(io.unibench.engine.live.RunStatus.STOPPED, "stopped");
            offset += spec.points().size();
        }
        return new RunFinished(io.unibench.engine.live.RunStatus.FINISHED, null);
    }

    /** A part's live event as one of the whole spec's: its point numbered over every part, labelled with its part. */
    private static RunEvent overWhole(RunEvent e, RunSpec part, int first, int points) {
        String prefix = part.targets().getFirst().name() + "/" + part.workloads().getFirst().name() + "/";
        // a series layout's labels (a scenario's spec) already start with their target and workload
        java.util.function.UnaryOperator<String> label = l -> l.startsWith(prefix) ? l : prefix + l;
        return switch (e) {
            case PointStarted p -> new PointStarted(first + p.point(), points, label.apply(p.label()), p.plan(), p.search());
            case PointFinished p -> new PointFinished(first + p.point(), label.apply(p.label()), p.result());
            case Snapshot s -> new Snapshot(first + s.point(), s.elapsedSeconds(), s.completed(), s.succeeded(),
                    s.cancelled(), s.failedByClass(), s.inFlight(), s.requestsPerSecond(), s.outputTokensPerSecond(),
                    s.ttftMs(), s.latencyMs(), s.client(), s.ttfctMs());
            default -> e;
        };
    }

    @Override
    public String testConnection(BenchConfig bench) throws InterruptedException {
        BenchConfig.Provider provider = bench.providers().getFirst();
        try (ScenarioTargets targets = ScenarioTargets.start(bench, log)) {
            RunSpec spec = ScenarioSpec.of(bench, targets.endpoints(), outputs, new RunSpec.History(false, null, List.of()));
            RunSpec.Target target = spec.targets().getFirst();
            RequestFactory probe = new RequestFactory(List.of(Prompt.ofText("hello", -1, -1)),
                    bench.generation().params(provider.model(), true, null), bench.seed(), "probe");
            long start = System.nanoTime();
            ConnectionTest.run(target.clientConfig(env, false), probe::probe, Secrets.redact(target.url()),
                    new StopSignal());
            return String.format(Locale.ROOT, "%s answered model %s in %.0f ms%s",
                    provider.embeddedSimulator() ? "the embedded simulator" : Secrets.redact(target.url()),
                    provider.model(), (System.nanoTime() - start) / 1e6,
                    provider.embeddedSimulator() ? " (started for the test)" : "");
        }
    }
}
