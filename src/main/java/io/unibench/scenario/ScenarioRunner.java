package io.unibench.scenario;

import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.engine.BenchmarkRunner;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.ConversationPool;
import io.unibench.engine.ConversationRequests;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.MultiTurnPlan;
import io.unibench.engine.MultiTurnRunner;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.RequestHooks;
import io.unibench.engine.RunFailedException;
import io.unibench.engine.StopSignal;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.report.EvalscopeFiles;
import io.unibench.report.RequestsJsonlWriter;
import io.unibench.store.RunRecorder;
import io.unibench.scenario.BenchConfig.Provider;
import io.unibench.scenario.BenchConfig.Scenario;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs a scenario file: providers one after another (so they never compete for the client's CPU or the network),
 * and for each provider every scenario through every concurrency level in order. Each provider gets its own client
 * (pool of {@code connection_pool} connections) and its own rate limiter, shared by all of its scenarios and levels.
 * Every level is an ordinary closed-loop run of the engine — {@code rounds} (or {@code requests_per_level})
 * requests, or back-to-back requests for {@code ramp_interval_sec} — whose records go to the level's metrics, the
 * series' overall metrics, the cost meter and {@code requests.jsonl}.
 *
 * <p>Output layout: {@code ROOT/PROVIDER/SCENARIO/parallel_C/} with evalscope's files and {@code requests.jsonl}.
 */
public final class ScenarioRunner {
    private final BenchConfig config;
    private final Map<String, String> endpoints;
    private final Map<String, String> env;
    private final StopSignal stop;
    private final Path root;
    private final PrintWriter progress;
    private final Tokenizer tokenizer = Tokenizers.defaultTokenizer();
    private final ProviderRecorders recorders;
    private volatile LlmClient active;
    /** The bug that stopped the run (a worker, sink or hook threw); null when none did. */
    private volatile RunFailedException failure;
    private io.unibench.engine.PointObserver observer = io.unibench.engine.PointObserver.NONE; // issue 19 hook

    /**
     * @param endpoints provider name → full chat-completions URL (embedded simulators already started)
     * @param env       environment to read {@code api_key_env} from
     */
    public ScenarioRunner(BenchConfig config, Map<String, String> endpoints, Map<String, String> env, StopSignal stop,
                          Path root, PrintWriter progress) {
        this(config, endpoints, env, stop, root, progress, ProviderRecorders.NONE);
    }

    /** @param recorders the run history of each provider's measurements */
    public ScenarioRunner(BenchConfig config, Map<String, String> endpoints, Map<String, String> env, StopSignal stop,
                          Path root, PrintWriter progress, ProviderRecorders recorders) {
        this.recorders = recorders;
        this.config = config;
        this.endpoints = Map.copyOf(endpoints);
        this.env = env;
        this.stop = stop;
        this.root = root;
        this.progress = progress;
    }

    /** Watches every level from outside the client (the server's own metrics); set before {@link #run}. */
    public ScenarioRunner observe(io.unibench.engine.PointObserver o) { // issue 19 hook
        this.observer = o;
        return this;
    }

    /** Ctrl-C: no new requests; in-flight ones are cancelled and recorded as such. */
    public void stop() {
        stop.stop();
        LlmClient c = active;
        if (c != null) c.cancelAll();
    }

    /** What stopped the run if a bug did: the results hold what ran until then. */
    public RunFailedException failure() {
        return failure;
    }

    public ScenarioResults run() throws IOException, InterruptedException {
        List<ScenarioResults.Series> series = new ArrayList<>();
        for (Provider provider : config.providers()) {
            if (stop.isStopped()) break;
            RunRecorder recorder = RunRecorder.disabled();
            try (LlmClient client = new LlmClient(clientConfig(provider))) {
                active = client;
                if (stop.isStopped()) client.cancelAll();
                // a one-token probe first: a dead endpoint or bad key stops the run before the levels start, and the
                // first measured request does not pay for connection setup and class loading
                RequestFactory probe = new RequestFactory(List.of(io.unibench.workload.Prompt.ofText("hello", -1, -1)),
                        config.generation().params(provider.model(), true, null), config.seed(), "probe");
                ConnectionTest.run(client, probe, endpoints.get(provider.name()), stop);
                StartGate gate = StartGate.of(config, stop);
                recorder = recorders.open(provider, endpoints.get(provider.name()));
                for (Scenario scenario : config.scenarios()) {
                    if (stop.isStopped()) break;
                    series.add(runSeries(client, gate, provider, scenario, recorder));
                }
            } finally {
                active = null;
                recorder.finish(stop.isStopped());
            }
        }
        return new ScenarioResults(config, series, stop.isStopped());
    }

    private ScenarioResults.Series runSeries(LlmClient client, StartGate gate, Provider provider,
                                             Scenario scenario, RunRecorder recorder)
            throws IOException, InterruptedException {
        RunMetrics overall = new RunMetrics();
        CostMeter overallCost = new CostMeter();
        ResponseRules rules = new ResponseRules(scenario.validate());
        RequestHooks hooks = new RequestHooks() {
            @Override
            public boolean awaitStart() {
                return gate.awaitStart();
            }

            @Override
            public ClientResult check(ClientResult result) {
                return rules.check(result);
            }
        };
        RecordFactory records = new RecordFactory(tokenizer, false);
        long seed = config.seed() * 1_000_003L + scenario.name().hashCode();
        ScenarioPrompts prompts = new ScenarioPrompts(scenario, tokenizer, seed, Math.max(1, perLevel(scenario)));
        List<ScenarioResults.Level> levels = new ArrayList<>();
        List<Integer> concurrency = config.concurrency().levels();
        long seriesStart = System.nanoTime(); // one origin for every level's requests.jsonl: moments compare across levels
        for (int li = 0; li < concurrency.size() && !stop.isStopped(); li++) {
            int level = concurrency.get(li);
            int number = config.concurrency().holdSeconds() != null ? Integer.MAX_VALUE : perLevel(scenario);
            Duration hold = config.concurrency().holdSeconds() == null ? null
                    : Duration.ofNanos((long) (config.concurrency().holdSeconds() * 1e9));
            LoadPlan plan = new LoadPlan(level, number, 0, hold, 0);
            Path dir = root.resolve(safe(provider.name())).resolve(safe(scenario.name())).resolve("parallel_" + level);
            Files.createDirectories(dir);
            RunMetrics metrics = new RunMetrics();
            CostMeter cost = new CostMeter();
            String tag = Long.toString(System.currentTimeMillis(), 36) + "-" + safe(provider.name()) + "-" + li;
            RunInfo info = new RunInfo(provider.name() + "/" + scenario.name() + "/parallel_" + level, level, -1,
                    number == Integer.MAX_VALUE ? 0 : number);
            gate.beginLevel(level);
            var observed = observer.start(info.label(), endpoints.get(provider.name())); // issue 19 hook
            try (RequestsJsonlWriter jsonl = new RequestsJsonlWriter(dir.resolve("requests.jsonl"), seriesStart);
                 RecordSink stored = recorder.pointSink(info, seriesStart)) {
                List<RecordSink> sinks = List.of(metrics, overall, cost, overallCost, jsonl, stored);
                boolean stream = scenario.stream();
                try {
                    if (scenario.type() == BenchConfig.Type.MULTI_TURN) {
                        MultiTurnPlan mt = new MultiTurnPlan(plan, MultiTurnPlan.RateMode.THINK, null);
                        ConversationPool pool = new ConversationPool(prompts.conversationsForLevel(li, perLevel(scenario)));
                        ConversationRequests requests = new ConversationRequests(
                                config.generation().params(provider.model(), stream, scenario.maxTokens()), seed + li, tag);
                        new MultiTurnRunner(client, records, stop, null, hooks).run(mt, pool, requests, sinks, seed + li);
                    } else {
                        RequestFactory requests = new RequestFactory(prompts.forLevel(li),
                                config.generation().params(provider.model(), stream, scenario.maxTokens()), seed + li, tag);
                        new BenchmarkRunner(client, records, stop, hooks).run(plan, requests, sinks, seed + li);
                    }
                } catch (RunFailedException e) {
                    failure = e; // this level's partial results are kept and reported; nothing more runs
                    stop.stop();
                }
            }
            RunResult result = metrics.result(new RunInfo(provider.name() + "/" + scenario.name() + "/parallel_" + level,
                    level, -1, number == Integer.MAX_VALUE ? (int) metrics.total() : number));
            EvalscopeFiles.write(dir, result);
            var seen = observed.finish(dir, result); // issue 19 hook
            recorder.pointFinished(result, seen.summaryKeys()); // issue 19 hook: was Map.of()
            if (seen.storedJson() != null) recorder.pointServerMetrics(seen.storedJson()); // issue 19 hook
            levels.add(new ScenarioResults.Level(level, result, cost.totals(), gate.waits()));
            progress.println(progressLine(provider, scenario, level, result));
            progress.flush();
            if (li + 1 < concurrency.size() && config.sleepBetweenLevelsSec() > 0) {
                stop.awaitUntil(System.nanoTime() + (long) (config.sleepBetweenLevelsSec() * 1e9));
            }
        }
        RunResult all = overall.result(new RunInfo(provider.name() + "/" + scenario.name(), -1, -1,
                (int) overall.total()));
        return new ScenarioResults.Series(provider, scenario, levels, all, overallCost.totals(),
                KneeFinder.find(levels, config.knee()));
    }

    private int perLevel(Scenario s) {
        Integer fixed = config.concurrency().requestsPerLevel();
        return fixed != null ? fixed : s.rounds();
    }

    private ClientConfig clientConfig(Provider p) {
        Map<String, String> headers = new LinkedHashMap<>(p.headers());
        if (p.apiKeyEnv() != null && !p.embeddedSimulator()) {
            headers.put("Authorization", "Bearer " + env.get(p.apiKeyEnv()));
        }
        BenchConfig.Timeouts t = config.timeouts();
        return new ClientConfig(URI.create(endpoints.get(p.name())), headers, duration(t.connectSec(), 10),
                duration(t.readSec(), 120), duration(t.totalSec(), 0), config.connectionPool(), false, p.tls());
    }

    private static Duration duration(Double seconds, double fallback) {
        double s = seconds != null ? seconds : fallback;
        return s <= 0 ? null : Duration.ofNanos((long) (s * 1e9));
    }

    private static String progressLine(Provider p, Scenario s, int level, RunResult r) {
        var sum = r.summary();
        return String.format(Locale.ROOT, "[%s/%s] concurrency %d: %d requests, %d ok, %.2f req/s, %.1f tok/s",
                p.name(), s.name(), level, sum.totalRequests(), sum.successRequests(), Math.max(sum.reqThroughput(), 0),
                Math.max(sum.outputThroughput(), 0));
    }

    static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
