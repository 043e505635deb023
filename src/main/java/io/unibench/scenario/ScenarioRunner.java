package io.unibench.scenario;

import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.engine.BenchmarkRunner;
import io.unibench.engine.ConversationPool;
import io.unibench.engine.ConversationRequests;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.MultiTurnPlan;
import io.unibench.engine.MultiTurnRunner;
import io.unibench.engine.PreparedRequest;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.RequestHooks;
import io.unibench.engine.RunOutcome;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.output.EvalscopeFiles;
import io.unibench.output.RequestsJsonlWriter;
import io.unibench.scenario.BenchConfig.Provider;
import io.unibench.scenario.BenchConfig.Scenario;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario file's part of a session ({@link SessionRunner} runs the points): providers one after another (so they
 * never compete for the client's CPU or the network), and for each provider every scenario through every
 * concurrency level in order. Each provider shares one start gate ({@code rate_limit}) over all of its scenarios and
 * levels. Each level's records go to the level's metrics (the runner's), the series' overall metrics, the cost
 * meter and {@code requests.jsonl}; replies are checked by the scenario's {@code validate} rules.
 *
 * <p>Output layout: {@code ROOT/PROVIDER/SCENARIO/parallel_C/} with evalscope's files and {@code requests.jsonl}.
 */
public final class ScenarioRunner implements SessionRunner.Front {
    private final BenchConfig config;
    private final RunSpec spec;
    private final StopSignal stop;
    private final PrintWriter progress;
    private final Tokenizer tokenizer = Tokenizers.defaultTokenizer();
    private final RecordFactory records = new RecordFactory(tokenizer, false);
    private final List<ScenarioResults.Series> series = new ArrayList<>();
    private StartGate gate; // the current provider's
    private SeriesState current; // the series (provider × scenario) whose levels are running

    /**
     * @param spec     the file as a run ({@link ScenarioSpec#of})
     * @param stop     the session's stop signal (the start gate's waits end on it)
     * @param progress where one line per finished level goes
     *
     * <p>A shard's spec ({@code run --shard I/N}: {@link ScenarioSpec#of} with the shard, sliced by
     * {@link RunSpec#slice}) has each level send its {@link RunSpec.Slice} of the level's prompts or conversations (no
     * request index in two shards), under its share of {@code rate_limit}; the shards' start barrier is the session
     * runner's {@code startBarrier}.
     */
    public ScenarioRunner(BenchConfig config, RunSpec spec, StopSignal stop, PrintWriter progress) {
        this.config = config;
        this.spec = spec;
        this.stop = stop;
        this.progress = progress;
    }

    /** Runs the file's points through {@code session}; the results hold what ran (all of it unless stopped). */
    public Ran run(SessionRunner session) throws IOException, InterruptedException {
        SessionRunner.Result result;
        try {
            result = config.loads().sla() == null ? session.run(this) : tune(session);
        } finally {
            closeSeries();
        }
        boolean stopped = result.stopped() || result.failure() != null;
        return new Ran(new ScenarioResults(config, series, stopped), result);
    }

    /** sla_auto_tune: the search chooses every level, in one session. */
    private SessionRunner.Result tune(SessionRunner session) throws IOException, InterruptedException {
        try (SessionRunner.Session probes = session.open(this)) {
            return ScenarioSla.run(config, spec, probes, stop, progress);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // the probe throws nothing else
        }
    }

    /** The folder of a provider × scenario's levels. */
    static Path seriesDir(RunSpec spec, Provider provider, Scenario scenario) {
        return spec.outputs().root().resolve(safe(provider.name())).resolve(safe(scenario.name()));
    }

    /** What {@link #run} gives: the scenario's results and the session's (status, failure, self-checks). */
    public record Ran(ScenarioResults results, SessionRunner.Result session) {}

    @Override
    public void targetStarted(int target, LlmClient client) {
        gate = StartGate.of(config, stop, spec.shard());
    }

    @Override
    public void targetFinished(int target, boolean stopped) {
        closeSeries();
    }

    @Override
    public SessionRunner.PointRun prepare(int index, RunSpec.Point point) {
        Provider provider = config.providers().get(point.target());
        Scenario scenario = config.scenarios().get(point.workload());
        if (current == null || current.provider != provider || current.scenario != scenario) {
            closeSeries();
            current = new SeriesState(provider, scenario);
        }
        return current.level(index, point);
    }

    private void closeSeries() {
        if (current == null) return;
        SeriesState s = current;
        current = null;
        RunResult all = s.overall.result(new RunInfo(s.provider.name() + "/" + s.scenario.name(), -1, -1,
                (int) s.overall.total()));
        series.add(new ScenarioResults.Series(s.provider, s.scenario, s.levels, all, s.overallCost.totals(),
                KneeFinder.find(s.levels.stream().filter(ScenarioResults.Level::closedLoop).toList(), config.knee())));
    }

    /** One provider × scenario: its prompts, hooks, overall figures and the levels run so far. */
    private final class SeriesState {
        final Provider provider;
        final Scenario scenario;
        final RunMetrics overall = new RunMetrics();
        final CostMeter overallCost = new CostMeter();
        final List<ScenarioResults.Level> levels = new ArrayList<>();
        final long seed;
        final ScenarioPrompts prompts;
        final RequestHooks hooks;
        final long seriesStart = System.nanoTime(); // one origin for every level's requests.jsonl
        int levelIndex;

        SeriesState(Provider provider, Scenario scenario) {
            this.provider = provider;
            this.scenario = scenario;
            this.seed = config.seed() * 1_000_003L + scenario.name().hashCode();
            BenchConfig.TraceReplay trace = config.loads().traces().get(scenario.name());
            this.prompts = new ScenarioPrompts(scenario, tokenizer, seed, Math.max(1, trace != null ? trace.count()
                    : ScenarioSpec.perLevel(config.concurrency(), config.loads(), scenario)));
            ResponseRules rules = new ResponseRules(scenario.validate());
            StartGate providerGate = gate;
            this.hooks = new RequestHooks() {
                @Override
                public boolean awaitStart() {
                    return providerGate.awaitStart();
                }

                @Override
                public ClientResult check(ClientResult result) {
                    return rules.check(result);
                }
            };
        }

        Level level(int index, RunSpec.Point point) {
            return new Level(this, index, point, levelIndex++);
        }
    }

    /** One concurrency level of a series. */
    private final class Level implements SessionRunner.PointRun {
        private final SeriesState s;
        private final int index;
        private final RunSpec.Point point;
        private final int li;
        private final int level;
        private final Path dir;
        private final String levelName;
        private final String tag;
        private final CostMeter cost = new CostMeter();
        private RequestFactory probe;
        private RequestFactory requests;

        Level(SeriesState s, int index, RunSpec.Point point, int li) {
            this.s = s;
            this.index = index;
            this.point = point;
            this.li = li;
            this.level = point.plan().concurrency(); // -1: an open loop's, unbounded
            Path d = seriesDir(spec, s.provider, s.scenario);
            // the label is provider/scenario/LEVEL; LEVEL's parts are the folders (an SLA probe's sla_tuning/…)
            this.levelName = point.label().substring(s.provider.name().length() + s.scenario.name().length() + 2);
            for (String part : levelName.split("/")) d = d.resolve(safe(part));
            this.dir = d;
            this.tag = Long.toString(System.currentTimeMillis(), 36) + "-" + safe(s.provider.name()) + "-" + li;
        }

        @Override
        public PreparedRequest probe() {
            if (probe == null) {
                probe = new RequestFactory(List.of(Prompt.ofText("hello", -1, -1)),
                        config.generation().params(s.provider.model(), true, null), config.seed(), "probe");
            }
            return probe.probe();
        }

        @Override
        public void beforeStart() throws IOException, InterruptedException {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) { // a full disk or a file in the way: one line and exit 5, as perf's point folder
                throw new io.unibench.OutputFailedException(dir, e);
            }
            // a schedule has no ramp of workers to pace; an SLA probe starts as perf's does (only rate_limit holds it)
            gate.beginLevel(point.plan().paced() || config.loads().sla() != null ? 0 : level);
        }

        @Override
        public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException {
            List<RecordSink> sinks = new ArrayList<>(List.of(s.overall, cost, s.overallCost,
                    new RequestsJsonlWriter(dir.resolve("requests.jsonl"), s.seriesStart)));
            return sinks;
        }

        @Override
        public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException {
            // what the point sends is the spec's: its workload's parameters, to its target's model
            var params = spec.workload(point).generation().withModel(spec.target(point).model());
            int perLevel = ScenarioSpec.perLevel(config.concurrency(), config.loads(), s.scenario);
            RunSpec.Slice slice = point.slice(); // a shard's requests of the level (RunSpec.slice); null: all of them
            int first = (int) point.firstRequest();
            long seed = s.seed + li + first; // a shard's arrivals and draws differ from the others'
            if (spec.workload(point).multiTurn()) {
                MultiTurnPlan mt = new MultiTurnPlan(plan, MultiTurnPlan.RateMode.THINK, null);
                var conversations = from(s.prompts.conversationsForLevel(li, perLevel), first);
                ConversationPool pool = new ConversationPool(slice != null ? slice.pick(conversations) : conversations);
                ConversationRequests requests = new ConversationRequests(params, seed, tag);
                return new MultiTurnRunner(retrying(client, seed), io.unibench.engine.Clock.system(stop), records, stop,
                        null, s.hooks, null).run(mt, pool, requests, sinks, seed);
            }
            List<Prompt> prompts = s.prompts.forLevel(li);
            requests = new RequestFactory(slice != null ? slice.pick(from(prompts, first)) : prompts, params, seed, tag);
            return new BenchmarkRunner(retrying(client, seed), records, stop, s.hooks,
                    io.unibench.engine.Clock.system(stop)).run(plan, requests, sinks, seed);
        }

        /** The client as the runners send through it: refusals sent again as the spec's {@code retry} says. */
        private io.unibench.engine.Sender retrying(LlmClient client, long seed) {
            return io.unibench.engine.Retrier.around(client::send, spec.limits().retry(), seed, stop);
        }

        @Override
        public Path dir() {
            return dir;
        }

        @Override
        public RequestFactory.Waits preparationWaits() {
            return requests != null ? requests.preparationWaits() : RequestFactory.Waits.NONE;
        }

        @Override
        public Map<String, Object> finished(RunResult result) {
            // after the runner's keys (the self-check's, the server's own metrics during the level)
            Map<String, Object> extraKeys = new LinkedHashMap<>(ScenarioSpec.shapeKeys(config, s.scenario, point.plan()));
            if (requests != null) extraKeys.putAll(requests.summaryKeys()); // synthesized prompts: the dispatcher's waits
            s.levels.add(new ScenarioResults.Level(level, result, cost.totals(), gate.waits(), levelName));
            progress.println(progressLine(s.provider, s.scenario, point.plan(), levelName, result));
            progress.flush();
            return extraKeys;
        }

        @Override
        public void write(RunResult result, Map<String, Object> summaryKeys) {
            EvalscopeFiles.write(dir, result, summaryKeys);
        }

        @Override
        public void close() {
            if (probe != null) probe.close();
            if (requests != null) requests.close();
        }
    }

    private static String progressLine(Provider p, Scenario s, LoadPlan plan, String levelName, RunResult r) {
        var sum = r.summary();
        // a trace's rate is its mean over the recorded span, not a figure anyone chose: rounded, and said to be a mean
        String rate = LoadsSection.plain(Math.round(plan.rate() * 100) / 100.0);
        String level = !plan.paced() ? "concurrency " + plan.parallel()
                : "trace".equals(levelName) ? "trace replay (mean " + rate + " req/s)"
                : "rate " + rate + " req/s" + (plan.openLoop() ? "" : " (at most " + plan.parallel() + " in flight)");
        return String.format(Locale.ROOT, "[%s/%s] %s: %d requests, %d ok, %.2f req/s, %.1f tok/s",
                p.name(), s.name(), level, sum.requests().totalRequests(), sum.requests().successRequests(),
                Math.max(sum.throughput().reqThroughput(), 0),
                Math.max(sum.throughput().outputThroughput(), 0));
    }

    /** The requests (conversations) of a level from index {@code first} on: the engine's sequence 0 is {@code first}. */
    private static <T> List<T> from(List<T> items, int first) {
        return first == 0 ? items : items.subList(first, items.size());
    }

    static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
