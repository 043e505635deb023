package io.unibench.cli;

import io.unibench.Secrets;
import io.unibench.client.LlmClient;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.spec.RunSpec;
import io.unibench.report.scenario.ScenarioReport;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioRunner;
import io.unibench.scenario.ScenarioSpec;
import io.unibench.web.RunLauncher;
import io.unibench.workload.Prompt;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The service's runs through the one pipeline, as {@code unibench run --config} runs a file: the same targets
 * (embedded simulators for {@code base_url: sim}), {@link ScenarioSpec} → {@link SessionRunner} with the
 * {@link ScenarioRunner} front, recording into the run the service queued ({@link QueuedRunRecorder}). Its files go to
 * {@code OUTPUTS/RUN-ID/}. The session publishes its live events; they are forwarded to the service's hub but for its
 * {@link RunFinished}, which the queue publishes itself once it has stored the run's end.
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
        BenchConfig bench = launch.config();
        Path root = outputs.resolve(launch.runId());
        Files.createDirectories(root);
        StopSignal stop = new StopSignal();
        try (ScenarioTargets targets = ScenarioTargets.start(bench, log)) {
            RunSpec spec = ScenarioSpec.of(bench, targets.endpoints(), root, new RunSpec.History(true, null, List.of()));
            BenchConfig.Provider provider = bench.providers().getFirst();
            QueuedRunRecorder recorder = new QueuedRunRecorder(launch.runId(), launch.store(), provider,
                    targets.endpoints().get(provider.name()), log);
            ScenarioRunner.Ran ran;
            try (EventHub session = new EventHub()) {
                session.subscribe(e -> {
                    if (!(e instanceof RunFinished)) launch.events().publish(e);
                });
                // the server's own metrics during each level, as `run --config` reads them (its /metrics)
                SessionRunner runner = new SessionRunner(spec, env, false, stop, session, recorder, log)
                        .observe(new ServerMetricsHook(new ServerMetricsOption(), log));
                launch.cancel().onCancel(runner::stop);
                try {
                    ran = new ScenarioRunner(bench, spec, stop, log).run(runner);
                } finally {
                    recorder.targetFinished(0, stop.isStopped()); // a run that failed before its target ended
                }
            } // closing the session's hub delivers what it queued: every event is forwarded before the end
            Files.writeString(root.resolve("scenario_summary.txt"), ScenarioReport.render(ran.results()));
            SessionRunner.Result r = ran.session();
            return new RunFinished(r.status(), r.failure() != null ? r.failure().getMessage()
                    : r.stopped() ? "stopped" : null);
        }
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
            try (LlmClient client = new LlmClient(target.clientConfig(env, false))) {
                ConnectionTest.run(client, probe, Secrets.redact(target.url()), new StopSignal());
            }
            return String.format(Locale.ROOT, "%s answered model %s in %.0f ms%s",
                    provider.embeddedSimulator() ? "the embedded simulator" : Secrets.redact(target.url()),
                    provider.model(), (System.nanoTime() - start) / 1e6,
                    provider.embeddedSimulator() ? " (started for the test)" : "");
        }
    }
}
