package io.unibench.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.SpecParts;
import io.unibench.metrics.CostMeter;
import io.unibench.metrics.PromptLengthStats;
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
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The points of a spec, made by the engine from the spec alone ({@code perf}'s, a spec file's, a spec posted to the
 * web, a scenario file's): for each workload its tokenizer and {@code tokenize_prompt} encoder, its prompts (at each
 * point's dataset offset, {@link DatasetLoader}), conversations ({@link SpecConversations}) or prompts and
 * conversations composed as its {@link RunSpec.Composition} says ({@link WorkloadPrompts}: a scenario's system
 * message, weighted classes, cache-busting nonces, synthesized conversations); a start gate per target
 * ({@link RunSpec.Limits#starts}), replies checked by the workload's {@code validate} rules ({@link ResponseRules}),
 * cancels and retries; each point's folder, {@code benchmark_args.json}, {@code requests.jsonl}, progress and
 * evalscope's files. {@link #load} reads what the first point sends before anything starts, so a bad dataset fails
 * fast and alone; {@link SessionRunner#run(SpecPoints)} runs it (the SLA search's probes too).
 *
 * <p>The points of one target × workload in a row are a series. The spec's {@link RunSpec.Layout} says how the files
 * are laid out: {@code points} ({@code perf}'s): {@code ROOT/LABEL/}, {@code requests.jsonl} timed from the point's
 * start, a progress line every {@code log_every} requests, the prompts' length figures; {@code series} (a scenario
 * file's): {@code ROOT/TARGET/WORKLOAD/LEVEL/} (each part safe as a folder name; LEVEL is the label after
 * {@code TARGET/WORKLOAD/}, its {@code /}s folders: an SLA probe's {@code sla_tuning/…}), {@code requests.jsonl}
 * timed from the series' start, one progress line per point, and each series' figures ({@link #series()}: its
 * levels, every request's overall figures and the token counts for pricing, {@link CostMeter}).
 */
public final class SpecPoints implements PointSource {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RunSpec spec; // as it runs: the encoders made from the workloads' options; the targets' URLs once bound
    private final List<Source> sources; // per workload
    private final CancelPolicy cancels;
    private final boolean seriesLayout;
    private final PromptLengthStats sweepPromptLengths;
    private final List<Series> series = new ArrayList<>();
    // the runner's, set by bind
    private StopSignal stop;
    private PrintWriter err;
    private Map<String, String> env;
    private boolean progressLines;
    private ProgressFile progressFile; // outputs' progress_tracker, else null
    private ServerTokenize.Result serverCounted; // the first workload's server_tokenize, null when off
    private Path nextDir; // the next point's folder when not the layout's (a perf SLA probe's), else null
    private List<SlaSearch.Searched> searched = List.of(); // the SLA searches' answers, in order
    private StartGate gate; // the current target's start gate (limits.starts), null without one
    private SeriesState current; // the series (target × workload) whose points are running

    private SpecPoints(RunSpec spec, List<Tokenizer> tokenizers, PrintWriter notes, Runnable whenSlow) {
        this.seriesLayout = spec.outputs().layout() == RunSpec.Layout.series;
        this.cancels = spec.cancels() == null ? CancelPolicy.NONE
                : new CancelPolicy(spec.cancels().rate(), spec.cancels().after(), spec.seed());
        Tokenizer first = tokenizers.getFirst();
        this.sweepPromptLengths = new PromptLengthStats(first != null ? first.name() : Tokenizers.DEFAULT);
        List<Source> s = new ArrayList<>();
        for (int w = 0; w < spec.workloads().size(); w++) {
            s.add(new Source(spec, w, tokenizers.get(w), cancels, notes, whenSlow));
        }
        this.sources = List.copyOf(s);
        this.spec = spec;
    }

    /**
     * What {@code spec} sends, read now: the tokenizers, the datasets' options, the first point's prompts or
     * conversations. Bad input (a dataset, its options, a tokenizer) throws {@link io.unibench.BadInputException}
     * before anything is written. A workload's {@code tokenize_prompt} sends token ids of its tokenizer (a workload
     * that already has an encoder keeps it: the embedded simulator's, made by the front end that starts it).
     */
    public static SpecPoints load(RunSpec spec) {
        return load(spec, null);
    }

    /** {@link #load(RunSpec)}, saying on {@code notes} what takes more than a second (null: silent). */
    public static SpecPoints load(RunSpec spec, PrintWriter notes) {
        return load(spec, notes, null);
    }

    /**
     * {@link #load(RunSpec, PrintWriter)}; {@code whenSlow} (null: nothing) runs once, after the first line saying
     * that a step takes more than a second: {@code perf} registers the run there, so the run history and the
     * platform list it while it prepares (issue 31).
     */
    public static SpecPoints load(RunSpec spec, PrintWriter notes, Runnable whenSlow) {
        java.util.concurrent.atomic.AtomicBoolean slow = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable once = whenSlow == null ? null : () -> {
            if (slow.compareAndSet(false, true)) whenSlow.run();
        };
        List<Tokenizer> tokenizers = new ArrayList<>();
        for (int i = 0; i < spec.workloads().size(); i++) {
            RunSpec.Workload w = spec.workloads().get(i);
            Tokenizer tokenizer = w.options().tokenizerPath() == null ? null
                    : SlowStep.run(notes, "Loading tokenizer " + w.options().tokenizerPath(),
                            () -> Tokenizers.load(w.options().tokenizerPath()), once);
            if (w.options().tokenizePrompt() && tokenizer != null && w.generation().promptEncoder() == null) {
                spec = spec.withWorkload(i, w.withGeneration(w.generation().withPromptEncoder(tokenizer::encode)));
            }
            tokenizers.add(tokenizer);
        }
        return new SpecPoints(spec, tokenizers, notes, once);
    }

    /** The spec as it runs: {@link #load}'s, its encoders included. */
    public RunSpec spec() {
        return spec;
    }

    /** The first point's plan (an SLA search's: its first probe's). */
    private static LoadPlan firstPlan(RunSpec spec) {
        return searching(spec) ? spec.sla().getFirst().plan(spec.sla().getFirst().start()) : spec.points().getFirst().plan();
    }

    /** The first point's workload (an SLA search's: the first searched one). */
    private static int firstWorkload(RunSpec spec) {
        return searching(spec) ? spec.sla().getFirst().workload() : spec.points().isEmpty() ? -1
                : spec.points().getFirst().workload();
    }

    /** The spec's points are its SLA searches' probes. */
    private static boolean searching(RunSpec spec) {
        return !spec.sla().isEmpty();
    }

    /**
     * The run starts with {@code running}'s spec (its targets' URLs, which may differ from {@link #load}'s: the
     * embedded simulator's) and its process: the stop signal, the notes' writer, the environment, and whether a
     * progress line goes to {@code err} every {@code outputs.log_every} requests (no terminal bar).
     */
    void bind(RunSpec running, StopSignal stop, PrintWriter err, Map<String, String> env, boolean progressLines) {
        for (int w = 0; w < spec.workloads().size(); w++) running = running.withWorkload(w, spec.workloads().get(w));
        this.spec = running;
        this.stop = stop;
        this.err = err;
        this.env = env;
        this.progressLines = progressLines;
        if (spec.outputs().progressTracker()) { // a search's total is not known
            long total = spec.points().stream().mapToLong(p -> p.plan().number()).sum();
            progressFile = new ProgressFile(spec.outputs().root(), searching(spec) ? null : total);
        }
    }

    ProgressFile progressFile() {
        return progressFile;
    }

    /** The lines of the report's header this run's work adds: the prompts' lengths, the server's counts. */
    public Map<String, String> header() {
        Map<String, String> info = new LinkedHashMap<>();
        if (sweepPromptLengths.describe() != null) info.put("Prompt Lengths", sweepPromptLengths.describe());
        if (serverCounted != null) info.put("Server-Counted Prompts", serverCounted.describe());
        return info;
    }

    /** The SLA searches' answers and {@code sla_summary.json}'s fate, in order; empty without a search. */
    public List<SlaSearch.Searched> searched() {
        return searched;
    }

    void searched(List<SlaSearch.Searched> s) {
        searched = List.copyOf(s);
    }

    /** The next point's files go to {@code dir} instead of the layout's folder (the SLA auto-tune's probes). */
    void nextDir(Path dir) {
        nextDir = dir;
    }

    /** The folder of target × workload's points in the {@code series} layout: {@code ROOT/TARGET/WORKLOAD}. */
    public static Path seriesDir(RunSpec spec, int target, int workload) {
        return spec.outputs().root().resolve(SpecParts.safe(spec.targets().get(target).name()))
                .resolve(SpecParts.safe(spec.workloads().get(workload).name()));
    }

    /** The folder of {@code point}'s files, as its spec's layout lays them out. */
    public static Path dir(RunSpec spec, RunSpec.Point point) {
        if (spec.outputs().layout() != RunSpec.Layout.series) return spec.outputs().root().resolve(point.label());
        Path d = seriesDir(spec, point.target(), point.workload());
        for (String part : level(spec, point).split("/")) d = d.resolve(SpecParts.safe(part));
        return d;
    }

    /** The point's name in its series: its label after {@code TARGET/WORKLOAD/} (the whole label without that). */
    private static String level(RunSpec spec, RunSpec.Point point) {
        String prefix = spec.target(point).name() + "/" + spec.workload(point).name() + "/";
        return point.label().startsWith(prefix) ? point.label().substring(prefix.length()) : point.label();
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

    /** The series run so far, in order (the current one closed); empty in the {@code points} layout. */
    public List<Series> series() {
        closeSeries();
        return List.copyOf(series);
    }

    @Override
    public void targetStarted(int target, LlmClient client) {
        RunSpec.Starts starts = spec.limits().starts(); // one gate over the target's points
        gate = starts == null ? null : StartGate.of(starts, stop, spec.shard());
    }

    @Override
    public void targetFinished(int target, boolean stopped) {
        closeSeries();
    }

    @Override
    public PointRun prepare(int index, RunSpec.Point point) {
        if (current == null || current.target != point.target() || current.workload != point.workload()) {
            closeSeries();
            current = new SeriesState(point.target(), point.workload());
        }
        return current.point(index, point);
    }

    private void closeSeries() {
        if (current == null) return;
        SeriesState s = current;
        current = null;
        if (!seriesLayout) return;
        RunResult all = s.overall.result(new RunInfo(spec.targets().get(s.target).name() + "/"
                + spec.workloads().get(s.workload).name(), -1, -1, (int) s.overall.total()));
        series.add(new Series(s.target, s.workload, s.levels, all, s.overallCost.totals()));
    }

    /** One workload's prompts or conversations, as its options and composition say. */
    private static final class Source {
        final RunSpec.Workload workload;
        final RecordFactory records;
        final DatasetLoader datasets; // a dataset's or fixed prompt's, not composed; else null
        final SpecConversations conversations; // a multi-turn dataset's, not composed; else null
        final WorkloadPrompts composed; // the workload's composition; null without one
        final long seed; // a composed workload's: the same for every target
        final ResponseRules rules;
        final String lengthTokenizer;
        List<Prompt> first; // the first point's prompts, read ahead; null once used (or when not the first's)
        boolean fresh = true; // the conversations loaded ahead are the first point's

        Source(RunSpec spec, int w, Tokenizer tokenizer, CancelPolicy cancels, PrintWriter notes, Runnable whenSlow) {
            this.workload = spec.workloads().get(w);
            this.rules = new ResponseRules(workload.validate());
            this.lengthTokenizer = tokenizer != null ? tokenizer.name() : Tokenizers.DEFAULT;
            RunSpec.Composition c = workload.composition();
            this.seed = WorkloadPrompts.seriesSeed(spec.seed(), workload);
            boolean firstOne = firstWorkload(spec) == w;
            RunSpec.Point firstPoint = spec.points().stream().filter(p -> p.workload() == w).findFirst().orElse(null);
            int firstCount = searching(spec) ? firstPlan(spec).number() + firstPlan(spec).warmup()
                    : firstPoint == null ? 1 : firstPoint.plan().number() + firstPoint.plan().warmup();
            if (c != null) {
                // a composed workload counts tokens with the tokenizer its prompts are synthesized with
                Tokenizer t = tokenizer != null ? tokenizer : Tokenizers.defaultTokenizer();
                this.composed = new WorkloadPrompts(workload, t, seed, c.items());
                this.records = new RecordFactory(t, tokenizer != null);
                this.datasets = null;
                this.conversations = null;
                return;
            }
            this.composed = null;
            // without a tokenizer, counts the server does not report are a labelled character estimate
            this.records = new RecordFactory(tokenizer != null ? tokenizer
                    : AgenticFlags.estimate(workload.options().charsPerToken()), tokenizer != null);
            // a step that takes more than a second says so on stderr (SlowStep): tokenizer, dataset, conversations
            this.datasets = SlowStep.run(notes, "Loading the default tokenizer", () -> new DatasetLoader(spec, w, tokenizer),
                    whenSlow);
            long firstOffset = workload.options().offset() + (searching(spec) || firstPoint == null ? 0
                    : firstPoint.firstRequest()); // a shard's first point starts at its slice (RunSpec.slice)
            this.conversations = SlowStep.run(notes, "Loading conversations (" + workload.dataset() + ")",
                    () -> SpecConversations.create(spec, w, tokenizer, firstCount, firstOffset), whenSlow);
            if (conversations != null) {
                conversations.cancels = cancels;
                conversations.retry = spec.limits().retry();
            } else if (firstOne) {
                this.first = SlowStep.run(notes, "Loading dataset " + (workload.prompt() != null ? "(--prompt)"
                        : workload.dataset()), () -> searching(spec) ? datasets.load(firstOffset, firstCount)
                        : datasets.load(firstOffset, firstPoint, firstCount), whenSlow); // a shard's slice of the point
            }
        }

        boolean multiTurn() {
            return workload.multiTurn();
        }
    }

    /** One target × workload: its figures (the {@code series} layout's) and the points run so far. */
    private final class SeriesState {
        final int target;
        final int workload;
        final Source source;
        final RunMetrics overall = new RunMetrics();
        final CostMeter overallCost = new CostMeter();
        final List<Level> levels = new ArrayList<>();
        final long seriesStart = System.nanoTime(); // one origin for every point's requests.jsonl (series layout)
        long offset; // the next point's dataset offset
        int levelIndex;

        SeriesState(int target, int workload) {
            this.target = target;
            this.workload = workload;
            this.source = sources.get(workload);
            this.offset = source.workload.options().offset();
        }

        Point point(int index, RunSpec.Point point) {
            int li = levelIndex++;
            LoadPlan plan = point.plan();
            int count = (int) Math.min(Integer.MAX_VALUE, (long) plan.number() + plan.warmup());
            long pointOffset = offset + point.firstRequest(); // a shard's slice of the whole point (RunSpec.slice)
            offset += point.wholeNumber(); // the next point follows the whole run's, whichever shard this is
            Source src = source;
            List<Prompt> prompts;
            if (src.multiTurn()) {
                prompts = SpecConversations.PROBE_ONLY; // the connection test's
                if (src.conversations != null && !src.fresh) src.conversations.prepare(pointOffset, count);
                src.fresh = false;
            } else if (src.composed != null) {
                prompts = src.composed.forPoint(li, point, count);
            } else if (src.first != null && !searching(spec)) { // read ahead (an SLA probe's count is its own)
                prompts = src.first;
                src.first = null;
            } else {
                src.first = null;
                prompts = src.datasets.load(pointOffset, point, count);
            }
            // a composed workload's draws are its series' (the same for every target); a dataset's follow its offset
            long seed = src.composed != null ? src.seed + li + point.firstRequest() : spec.seed() + pointOffset;
            RunSpec.Workload work = spec.workload(point); // as it runs: its encoder
            // request ids: TIME-INDEX, a series' TIME-TARGET-LEVEL
            String tag = Long.toString(System.currentTimeMillis(), 36) + "-" + (seriesLayout
                    ? SpecParts.safe(spec.target(point).name()) + "-" + li : Integer.toString(index));
            RequestFactory requests = new RequestFactory(prompts, work.generation().withModel(
                    spec.target(point).model()), seed, tag);
            Path dir = nextDir != null ? nextDir : dir(spec, point);
            nextDir = null;
            return new Point(this, li, index, point, prompts, requests, tag, pointOffset, seed, dir);
        }
    }

    private final class Point implements PointRun {
        private final SeriesState series;
        private final Source source;
        private final int level; // the point's place in its series (a composed workload's level)
        private final int index;
        private final RunSpec.Point point;
        private final List<Prompt> prompts;
        private final RequestFactory requests;
        private final String tag;
        private final long pointOffset;
        private final long seed;
        private final Path dir;
        private final PromptLengthStats promptLengths;
        private final CostMeter cost = new CostMeter();

        Point(SeriesState series, int level, int index, RunSpec.Point point, List<Prompt> prompts,
              RequestFactory requests, String tag, long pointOffset, long seed, Path dir) {
            this.series = series;
            this.source = series.source;
            this.level = level;
            this.index = index;
            this.point = point;
            this.prompts = prompts;
            this.requests = requests;
            this.tag = tag;
            this.pointOffset = pointOffset;
            this.seed = seed;
            this.dir = dir;
            this.promptLengths = new PromptLengthStats(source.lengthTokenizer);
        }

        @Override
        public PreparedRequest probe() {
            return requests.probe();
        }

        @Override
        public void beforeStart() throws IOException, InterruptedException {
            String url = spec.target(point).url();
            int serverTokenize = source.workload.options().serverTokenize();
            if (index == 0 && serverTokenize > 0 && !source.multiTurn() && source.composed == null) {
                RunSpec.Target target = spec.target(point);
                serverCounted = ServerTokenize.sample(URI.create(url), target.clientConfig(env, false).headers(),
                        target.tls(), target.model(), prompts, serverTokenize);
                err.println("Server-counted prompt lengths: " + serverCounted.describe());
            }
            try {
                Files.createDirectories(dir);
            } catch (IOException e) { // a full disk or a file in the way: one line and exit 5
                throw new OutputFailedException(dir, e);
            }
            // a closed loop's ramp (its new connections) is what the gate paces; a schedule's or a probe's starts only
            // its rate
            if (gate != null) gate.beginLevel(point.plan().paced() || searching(spec) ? 0 : point.plan().concurrency());
            if (spec.outputs().arguments() != null) { // a spec file may carry none
                writeArgs(dir.resolve("benchmark_args.json"), spec.outputs().arguments(), url, point.plan(), pointOffset);
            }
        }

        @Override
        public void awaitReady() throws InterruptedException {
            // synthesized prompts: the first second of the plan is made before the point's clock starts, the rest
            // streamed ahead of the dispatcher (the request factory's bounded window)
            if (!source.multiTurn()) requests.awaitFirstBatch(point.plan(), err::println, stop::isStopped);
        }

        @Override
        public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException {
            List<RecordSink> sinks = new ArrayList<>();
            sinks.add(new RequestsJsonlWriter(dir.resolve("requests.jsonl"), seriesLayout ? series.seriesStart : startNanos));
            if (seriesLayout) { // the series' figures; one line when the point ends
                sinks.addAll(List.of(series.overall, cost, series.overallCost));
            } else {
                sinks.add(promptLengths);
                sinks.add(sweepPromptLengths);
                // a terminal shows the live bar (an event subscriber); logs get a line every log_every requests
                if (progressLines) sinks.add(counted(new ProgressSink(err, metrics, point.label(),
                        point.plan().number(), spec.outputs().logEvery())));
            }
            if (progressFile != null) sinks.add(counted(progressFile));
            return sinks;
        }

        /** Progress counts conversations in multi-turn runs (the unit of --number). */
        private RecordSink counted(RecordSink progress) {
            return source.multiTurn() ? SpecConversations.conversationProgress(progress) : progress;
        }

        @Override
        public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException {
            RequestHooks hooks = source.rules.around(gate);
            if (source.conversations != null) {
                source.conversations.hooks = hooks;
                return source.conversations.run(client, stop, plan, sinks, seed);
            }
            if (source.composed != null && source.multiTurn()) {
                RunSpec.Slice slice = point.slice(); // a shard's conversations of the point; null: all of them
                var all = source.composed.conversationsForLevel(level, source.workload.composition().items());
                var from = point.firstRequest() == 0 ? all : all.subList((int) point.firstRequest(), all.size());
                ConversationPool pool = new ConversationPool(slice != null ? slice.pick(from) : from);
                var turns = new ConversationRequests(spec.workload(point).generation()
                        .withModel(spec.target(point).model()), seed, tag);
                return cancels.multiTurnRunner(client, source.records, stop, spec.limits().retry(), seed, hooks)
                        .run(new MultiTurnPlan(plan, MultiTurnPlan.RateMode.THINK, null), pool, turns, sinks, seed);
            }
            return cancels.runner(client, source.records, stop, spec.limits().retry(), seed, hooks)
                    .run(plan, requests, sinks, seed);
        }

        @Override
        public Path dir() {
            return dir;
        }

        @Override
        public RequestFactory.Waits preparationWaits() {
            return requests.preparationWaits();
        }

        @Override
        public Map<String, Object> finished(RunResult result) {
            // after the runner's keys (the self-check's, the server's own metrics during the point)
            Map<String, Object> extraKeys = new LinkedHashMap<>(cancels.summaryKeys());
            extraKeys.putAll(promptLengths.summaryKeys());
            extraKeys.putAll(requests.summaryKeys()); // Preparation Waits: the dispatcher caught up with preparation
            RequestFactory.Waits waits = requests.preparationWaits();
            if (waits.count() > 0) {
                err.printf(Locale.ROOT, "Preparation: %,d requests of %s were not ready when their turn came (%.3f s "
                        + "waited in all; a paced point's dispatch lag includes it, latency does not)%n", waits.count(),
                        point.label(), waits.nanos() / 1e9);
            }
            extraKeys.putAll(shapeKeys(point.plan()));
            if (serverCounted != null && index == 0) extraKeys.putAll(serverCounted.summaryKeys()); // its prompts were sampled
            if (seriesLayout) {
                String name = level(spec, point);
                series.levels.add(new Level(point.plan().concurrency(), result, cost.totals(),
                        gate != null ? gate.waits() : StartWaits.NONE, name));
                err.println(progressLine(point.plan(), name, result));
                err.flush();
            }
            return extraKeys;
        }

        @Override
        public void write(RunResult result, Map<String, Object> summaryKeys) {
            EvalscopeFiles.write(dir, result, summaryKeys);
        }

        @Override
        public void close() {
            requests.close();
        }

        /** The series layout's line when a point ends. */
        private String progressLine(LoadPlan plan, String levelName, RunResult r) {
            var sum = r.summary();
            // a trace's rate is its mean over the recorded span, not a figure anyone chose: rounded, and said to be a mean
            String rate = plain(Math.round(plan.rate() * 100) / 100.0);
            String what = !plan.paced() ? "concurrency " + plan.parallel()
                    : "trace".equals(levelName) ? "trace replay (mean " + rate + " req/s)"
                    : "rate " + rate + " req/s" + (plan.openLoop() ? "" : " (at most " + plan.parallel() + " in flight)");
            return String.format(Locale.ROOT, "[%s/%s] %s: %d requests, %d ok, %.2f req/s, %.1f tok/s",
                    spec.target(point).name(), source.workload.name(), what, sum.requests().totalRequests(),
                    sum.requests().successRequests(), Math.max(sum.throughput().reqThroughput(), 0),
                    Math.max(sum.throughput().outputThroughput(), 0));
        }
    }

    /** A number as a file writes it: {@code 2} not {@code 2.0}. */
    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v).toLowerCase(Locale.ROOT);
    }

    /** Keys of benchmark_summary.json that say how a paced point's arrivals were shaped (vLLM's result fields). */
    static Map<String, Object> shapeKeys(LoadPlan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!plan.paced()) return m;
        switch (plan.arrivals()) {
            case ArrivalShape.Recorded r -> m.put("Trace Speedup", r.speedup());
            case ArrivalShape.Gamma g -> m.put("Burstiness", g.burstiness());
            case ArrivalShape.RampUp r -> {
                m.put("Burstiness", r.burstiness());
                m.put("Ramp-Up Strategy", r.ramp().strategy().name());
                m.put("Ramp-Up Start RPS", r.ramp().startRps());
                m.put("Ramp-Up End RPS", r.ramp().endRps());
            }
            case ArrivalShape.Poisson p -> { }
        }
        return m;
    }

    /**
     * {@code benchmark_args.json} of one point: the run's {@code arguments} (evalscope's keys, secrets masked) with
     * the point's keys filled in.
     */
    static void writeArgs(Path file, ObjectNode arguments, String url, LoadPlan plan, long offset) throws IOException {
        OutputFailedException.writeWhole(file, JSON.writeValueAsBytes(arguments(arguments, url, plan, offset)));
    }

    /**
     * {@code benchmark_args.json} of {@code spec}'s first point, as its preparation writes it, or null: an SLA
     * search's probes, or a spec without arguments. What {@code perf}'s stored run says of its configuration, known
     * before the point's folder is written (a run registered while its dataset loads).
     */
    public static ObjectNode firstArguments(RunSpec spec) {
        if (searching(spec) || spec.points().isEmpty() || spec.outputs().arguments() == null) return null;
        RunSpec.Point p = spec.points().getFirst();
        return arguments(spec.outputs().arguments(), spec.target(p).url(), p.plan(),
                spec.workloads().get(p.workload()).options().offset() + p.firstRequest());
    }

    private static ObjectNode arguments(ObjectNode arguments, String url, LoadPlan plan, long offset) {
        ObjectNode a = arguments.deepCopy();
        a.put("url", Secrets.redact(url));
        a.put("number", plan.number());
        a.put("parallel", plan.concurrency());
        a.put("open_loop", plan.openLoop());
        a.put("rate", plan.paced() ? plan.rate() : -1);
        a.put("warmup_num", plan.warmup());
        a.put("dataset_offset", offset);
        return a;
    }
}
