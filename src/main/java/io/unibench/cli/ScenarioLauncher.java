package io.unibench.cli;

import io.unibench.Secrets;
import io.unibench.client.LlmClient;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.report.scenario.ScenarioReport;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ProviderRecorders;
import io.unibench.scenario.ScenarioResults;
import io.unibench.scenario.ScenarioRunner;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.web.RunLauncher;
import io.unibench.workload.Prompt;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The service's runs through {@code unibench run --config}'s pipeline: the same targets (embedded simulators for
 * {@code base_url: sim}), the same {@link ScenarioRunner}, recording into the run the service queued. Its files go to
 * {@code OUTPUTS/RUN-ID/} as {@code run}'s do. Live events come from {@link LiveFromRecorder} until the session runner
 * publishes them.
 */
public final class ScenarioLauncher implements RunLauncher {
    private final Map<String, String> env;
    private final Path outputs;
    private final PrintWriter log;

    /**
     * @param env     where {@code api_key_env} names are read (the service's environment)
     * @param outputs the folder each run's files go under
     * @param log     the service's log (progress lines of each level)
     */
    public ScenarioLauncher(Map<String, String> env, Path outputs, PrintWriter log) {
        this.env = env;
        this.outputs = outputs;
        this.log = log;
    }

    @Override
    public RunFinished run(Launch launch) throws Exception {
        BenchConfig bench = launch.config();
        StopSignal stop = new StopSignal();
        Path root = outputs.resolve(launch.runId());
        Files.createDirectories(root);
        Duration hold = bench.concurrency().holdSeconds() == null ? null
                : Duration.ofNanos((long) (bench.concurrency().holdSeconds() * 1e9));
        LiveFromRecorder live = new LiveFromRecorder(launch.events(),
                bench.scenarios().size() * bench.concurrency().levels().size(), hold, stop);
        try (ScenarioTargets targets = ScenarioTargets.start(bench, log)) {
            ProviderRecorders recorders = (provider, url) -> recorder(launch, provider, url, live);
            ScenarioRunner runner = new ScenarioRunner(bench, targets.endpoints(), env, stop, root, log, recorders);
            launch.cancel().onCancel(runner::stop);
            ScenarioResults results = runner.run();
            Files.writeString(root.resolve("scenario_summary.txt"), ScenarioReport.render(results));
            return runner.failure() != null ? new RunFinished(RunStatus.FAILED, runner.failure().getMessage())
                    : results.stopped() ? new RunFinished(RunStatus.STOPPED, "stopped")
                    : new RunFinished(RunStatus.FINISHED, null);
        }
    }

    /** The queued run's recorder: its row gets the real target and environment, then records every point. */
    private RunRecorder recorder(Launch launch, BenchConfig.Provider provider, String url, LiveFromRecorder live) {
        try (RunStore store = RunStore.open(launch.store())) {
            store.setTarget(launch.runId(), Secrets.redact(url), ScenarioStore.environment(provider, url));
            return RunRecorder.open(launch.store(), log).adopt(launch.runId()).observedBy(live);
        } catch (SQLException e) {
            throw new IllegalStateException("run history: " + StoreLocation.mask(String.valueOf(e.getMessage())), e);
        }
    }

    @Override
    public String testConnection(BenchConfig bench) throws InterruptedException {
        BenchConfig.Provider provider = bench.providers().getFirst();
        try (ScenarioTargets targets = ScenarioTargets.start(bench, log)) {
            String url = targets.endpoints().get(provider.name());
            ScenarioRunner runner = new ScenarioRunner(bench, targets.endpoints(), env, new StopSignal(), outputs, log);
            RequestFactory probe = new RequestFactory(List.of(Prompt.ofText("hello", -1, -1)),
                    bench.generation().params(provider.model(), true, null), bench.seed(), "probe");
            long start = System.nanoTime();
            try (LlmClient client = new LlmClient(runner.clientConfig(provider))) {
                ConnectionTest.run(client, probe, Secrets.redact(url), new StopSignal());
            }
            return String.format(java.util.Locale.ROOT, "%s answered model %s in %.0f ms%s", Secrets.redact(
                    provider.embeddedSimulator() ? "the embedded simulator" : url), provider.model(),
                    (System.nanoTime() - start) / 1e6, provider.embeddedSimulator() ? " (started for the test)" : "");
        }
    }
}
