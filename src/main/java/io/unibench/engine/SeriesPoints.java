package io.unibench.engine;

import io.unibench.OutputFailedException;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.CostMeter;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.StartWaits;
import io.unibench.output.EvalscopeFiles;
import io.unibench.output.RequestsJsonlWriter;
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
 * The points of a spec of several targets and workloads (a scenario file's), made by the engine from the spec alone:
 * the points of one target × workload, labelled {@code TARGET/WORKLOAD/LEVEL}, are a series. Targets run one after
 * another (the session runner's order), each behind one start gate over all of its points ({@link RunSpec.Limits#starts},
 * {@link StartGate}). What a point sends is its workload's, composed as its {@link RunSpec.Composition} says
 * ({@link WorkloadPrompts}: a level's prompts or conversations, its {@link RunSpec.Slice} for a shard), to its target's
 * model; replies are checked by the workload's {@link RunSpec.Validate} rules ({@link ResponseRules}). Each point's
 * records go to the runner's metrics, the series' overall metrics, the point's and the series' token counts for
 * pricing ({@link CostMeter}) and {@code requests.jsonl} (times from the series' start); a line on {@code progress}
 * when it ends; evalscope's files. The series' figures are {@link #series()}.
 *
 * <p>Output layout: {@code ROOT/TARGET/WORKLOAD/LEVEL/} (each part made safe as a folder name; LEVEL's {@code /}s are
 * folders: an SLA probe's {@code sla_tuning/…}).
 */
public final class SeriesPoints implements SessionRunner.Front {
    private final RunSpec spec;
    private final StopSignal stop;
    private final PrintWriter progress;
    private final Tokenizer tokenizer = Tokenizers.defaultTokenizer();
    private final RecordFactory records = new RecordFactory(tokenizer, false);
    private final List<Series> series = new ArrayList<>();
    private boolean probing;
    private StartGate gate; // the current target's
    private SeriesState current; // the series (target × workload) whose points are running

    /**
     * @param stop     the session's stop signal (the start gate's waits end on it)
     * @param progress where one line per finished point goes
     */
    public SeriesPoints(RunSpec spec, StopSignal stop, PrintWriter progress) {
        this.spec = spec;
        this.stop = stop;
        this.progress = progress;
    }

    /**
     * The next points are a search's probes (an SLA auto-tune's): their starts are held by the start gate's rate
     * alone, as {@code perf}'s probes start, not paced as a ramp.
     */
    public SeriesPoints probing(boolean probing) {
        this.probing = probing;
        return this;
    }

    /** The folder of target × workload's points. */
    public static Path seriesDir(RunSpec spec, int target, int workload) {
        return spec.outputs().root().resolve(safe(spec.targets().get(target).name()))
                .resolve(safe(spec.workloads().get(workload).name()));
    }

    /** The label of a point of target × workload: {@code TARGET/WORKLOAD/LEVEL}; LEVEL's parts are its folders. */
    public static String label(RunSpec spec, int target, int workload, String level) {
        return spec.targets().get(target).name() + "/" + spec.workloads().get(workload).name() + "/" + level;
    }

    /**
     * One point of a series: its concurrency (-1: an open loop's, unbounded), result, its successes' tokens for
     * pricing, what its starts waited on the gate, and its name (the label after {@code TARGET/WORKLOAD/}).
     */
    public record Level(int concurrency, RunResult result, CostMeter.Totals tokens, StartWaits starts, String name) {}

    /** A target × workload's points in order, and every request of them ({@code overall}, {@code tokens}). */
    public record Series(int target, int workload, List<Level> levels, RunResult overall, CostMeter.Totals tokens) {
        public Series {
            levels = List.copyOf(levels);
        }
    }

    /** The series run so far, in order (the current one closed). */
    public List<Series> series() {
        closeSeries();
        return List.copyOf(series);
    }

    @Override
    public void targetStarted(int target, LlmClient client) {
        RunSpec.Starts starts = spec.limits().starts();
        gate = starts == null ? null : StartGate.of(starts, stop, spec.shard());
    }

    @Override
    public void targetFinished(int target, boolean stopped) {
        closeSeries();
    }

    @Override
    public SessionRunner.PointRun prepare(int index, RunSpec.Point point) {
        if (current == null || current.target != point.target() || current.workload != point.workload()) {
            closeSeries();
            current = new SeriesState(point.target(), point.workload());
        }
        return current.level(index, point);
    }

    private void closeSeries() {
        if (current == null) return;
        SeriesState s = current;
        current = null;
        RunResult all = s.overall.result(new RunInfo(spec.targets().get(s.target).name() + "/"
                + spec.workloads().get(s.workload).name(), -1, -1, (int) s.overall.total()));
        series.add(new Series(s.target, s.workload, s.levels, all, s.overallCost.totals()));
    }

    /** One target × workload: its prompts, hooks, overall figures and the points run so far. */
    private final class SeriesState {
        final int target;
        final int workload;
        final RunSpec.Workload work;
        final RunMetrics overall = new RunMetrics();
        final CostMeter overallCost = new CostMeter();
        final List<Level> levels = new ArrayList<>();
        final long seed;
        final WorkloadPrompts prompts;
        final RequestHooks hooks;
        final long seriesStart = System.nanoTime(); // one origin for every point's requests.jsonl
        int levelIndex;

        SeriesState(int target, int workload) {
            this.target = target;
            this.workload = workload;
            this.work = spec.workloads().get(workload);
            this.seed = WorkloadPrompts.seriesSeed(spec.seed(), work);
            RunSpec.Composition c = work.composition();
            this.prompts = new WorkloadPrompts(work, tokenizer, seed, c == null ? 1 : c.items());
            this.hooks = new ResponseRules(work.validate()).around(gate);
        }

        LevelRun level(int index, RunSpec.Point point) {
            return new LevelRun(point, levelIndex++);
        }

        /** One point of the series. */
        private final class LevelRun implements SessionRunner.PointRun {
            private final RunSpec.Point point;
            private final int li;
            private final int level;
            private final Path dir;
            private final String levelName;
            private final String tag;
            private final CostMeter cost = new CostMeter();
            private RequestFactory probe;
            private RequestFactory requests;

            LevelRun(RunSpec.Point point, int li) {
                this.point = point;
                this.li = li;
                this.level = point.plan().concurrency(); // -1: an open loop's, unbounded
                Path d = seriesDir(spec, target, workload);
                String targetName = spec.targets().get(target).name();
                // the label is TARGET/WORKLOAD/LEVEL; LEVEL's parts are the folders (an SLA probe's sla_tuning/…)
                this.levelName = point.label().substring(targetName.length() + work.name().length() + 2);
                for (String part : levelName.split("/")) d = d.resolve(safe(part));
                this.dir = d;
                this.tag = Long.toString(System.currentTimeMillis(), 36) + "-" + safe(targetName) + "-" + li;
            }

            @Override
            public PreparedRequest probe() {
                if (probe == null) {
                    // a streamed one-token "hello" to the target's model (the connection test)
                    GenerationParams g = work.generation();
                    var params = new GenerationParams(spec.target(point).model(), g.format(), 1, 1, null,
                            g.temperature(), null, null, g.seed(), null, true, null);
                    probe = new RequestFactory(List.of(Prompt.ofText("hello", -1, -1)), params, spec.seed(), "probe");
                }
                return probe.probe();
            }

            @Override
            public void beforeStart() throws IOException, InterruptedException {
                try {
                    Files.createDirectories(dir);
                } catch (IOException e) { // a full disk or a file in the way: one line and exit 5, as perf's point folder
                    throw new OutputFailedException(dir, e);
                }
                // a schedule has no ramp of workers to pace; a search's probe starts as perf's does (only the rate holds it)
                if (gate != null) gate.beginLevel(point.plan().paced() || probing ? 0 : level);
            }

            @Override
            public void awaitReady() throws InterruptedException {
                // cache-busting prompts: the first second of the plan made before the point's clock starts, the rest
                // prepared ahead of the dispatcher (the request factory's bounded window)
                if (!work.multiTurn()) requests().awaitFirstBatch(point.plan(), progress::println, stop::isStopped);
            }

            /** The point's single-turn requests: its prompts as its workload composes them, to its target's model. */
            private RequestFactory requests() {
                if (requests == null) {
                    var params = work.generation().withModel(spec.target(point).model());
                    LoadPlan plan = point.plan();
                    int count = (int) Math.min(Integer.MAX_VALUE, (long) plan.number() + plan.warmup());
                    requests = new RequestFactory(prompts.forPoint(li, point, count), params,
                            seed + li + point.firstRequest(), tag);
                }
                return requests;
            }

            @Override
            public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException {
                return new ArrayList<>(List.of(overall, cost, overallCost,
                        new RequestsJsonlWriter(dir.resolve("requests.jsonl"), seriesStart)));
            }

            @Override
            public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException {
                // what the point sends is the spec's: its workload's parameters, to its target's model
                var params = work.generation().withModel(spec.target(point).model());
                RunSpec.Slice slice = point.slice(); // a shard's requests of the point (RunSpec.slice); null: all of them
                int first = (int) point.firstRequest();
                long pointSeed = seed + li + first; // a shard's arrivals and draws differ from the others'
                Clock clock = Clock.system(stop);
                if (work.multiTurn()) {
                    MultiTurnPlan mt = new MultiTurnPlan(plan, MultiTurnPlan.RateMode.THINK, null);
                    RunSpec.Composition c = work.composition();
                    var conversations = from(prompts.conversationsForLevel(li, c == null ? 1 : c.items()), first);
                    ConversationPool pool = new ConversationPool(slice != null ? slice.pick(conversations) : conversations);
                    ConversationRequests turns = new ConversationRequests(params, pointSeed, tag);
                    return new MultiTurnRunner(retrying(client, pointSeed), clock, records, stop, null, hooks, null)
                            .run(mt, pool, turns, sinks, pointSeed);
                }
                return new BenchmarkRunner(retrying(client, pointSeed), records, stop, hooks, clock)
                        .run(plan, requests(), sinks, pointSeed);
            }

            /** The client as the runners send through it: refusals sent again as the spec's {@code retry} says. */
            private Sender retrying(LlmClient client, long seed) {
                return Retrier.around(client::send, spec.limits().retry(), seed, stop);
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
                // after the runner's keys (the self-check's, the server's own metrics during the point)
                Map<String, Object> extraKeys = new LinkedHashMap<>(SpecPoints.shapeKeys(point.plan()));
                if (requests != null) extraKeys.putAll(requests.summaryKeys()); // synthesized prompts: the dispatcher's waits
                levels.add(new Level(level, result, cost.totals(),
                        gate != null ? gate.waits() : StartWaits.NONE, levelName));
                progress.println(progressLine(point.plan(), levelName, result));
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

            private String progressLine(LoadPlan plan, String levelName, RunResult r) {
                var sum = r.summary();
                // a trace's rate is its mean over the recorded span, not a figure anyone chose: rounded, and said to be a mean
                String rate = plain(Math.round(plan.rate() * 100) / 100.0);
                String what = !plan.paced() ? "concurrency " + plan.parallel()
                        : "trace".equals(levelName) ? "trace replay (mean " + rate + " req/s)"
                        : "rate " + rate + " req/s" + (plan.openLoop() ? "" : " (at most " + plan.parallel() + " in flight)");
                return String.format(Locale.ROOT, "[%s/%s] %s: %d requests, %d ok, %.2f req/s, %.1f tok/s",
                        spec.targets().get(target).name(), work.name(), what, sum.requests().totalRequests(),
                        sum.requests().successRequests(), Math.max(sum.throughput().reqThroughput(), 0),
                        Math.max(sum.throughput().outputThroughput(), 0));
            }
        }
    }

    /** The requests (conversations) of a point from index {@code first} on: the engine's sequence 0 is {@code first}. */
    private static <T> List<T> from(List<T> items, int first) {
        return first == 0 ? items : items.subList(first, items.size());
    }

    /** A number as a file writes it: {@code 2} not {@code 2.0}. */
    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v).toLowerCase(Locale.ROOT);
    }

    /** A name as a folder: characters other than letters, digits, {@code .}, {@code _} and {@code -} become {@code _}. */
    public static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
