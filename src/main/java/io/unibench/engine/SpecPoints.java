package io.unibench.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.PromptLengthStats;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
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
 * The points of a one-target, one-workload spec ({@code perf}'s shape, a spec file's, a spec posted to the web), made
 * by the engine from the spec alone: the workload's tokenizer and {@code tokenize_prompt} encoder, the prompts (or
 * conversations) of each point at its dataset offset, its folder with {@code benchmark_args.json},
 * {@code requests.jsonl}, the progress lines and {@code progress.json}, the prompt-length figures, cancels and
 * retries, and evalscope's files at the end. {@link #load} reads what the first point sends before anything starts,
 * so a bad dataset fails fast and alone; {@link SessionRunner#run(SpecPoints)} runs it (the SLA search's probes too).
 */
public final class SpecPoints implements SessionRunner.Front {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RunSpec spec; // as it runs: the encoder made from the workload's options; the target's URL once bound
    private final RunSpec.Workload workload;
    private final DatasetLoader datasets;
    private final SpecConversations multiTurn; // null for single-turn work
    private final List<Prompt> firstPrompts;
    private final RecordFactory records;
    private final CancelPolicy cancels;
    private final String lengthTokenizer;
    private final PromptLengthStats sweepPromptLengths;
    // the runner's, set by bind
    private StopSignal stop;
    private PrintWriter err;
    private Map<String, String> env;
    private boolean progressLines;
    private ProgressFile progressFile; // outputs' progress_tracker, else null
    private BenchmarkRunner runner;
    private long offset;
    private ServerTokenize.Result serverCounted; // the workload's server_tokenize, null when off
    private Path nextDir; // the next point's folder when not ROOT/LABEL (an SLA probe's), else null
    private SlaSearch.Searched searched; // the SLA search's answer, null without one
    private final WorkloadPrompts composed; // the workload's composition of prompts (a scenario's); null without one
    private final ResponseRules rules; // the workload's validate rules
    private StartGate gate; // the target's start gate (limits.starts), null without one

    private SpecPoints(RunSpec spec, Tokenizer tokenizer, PrintWriter notes) {
        this.workload = spec.workloads().getFirst();
        this.rules = new ResponseRules(workload.validate());
        RunSpec.Composition composition = workload.composition();
        if (workload.multiTurn() && composition != null && (composition.system() != null || composition.cacheBust()
                || composition.conversationHistory() != null)) {
            // conversations composed as a scenario composes them run through the scenario's points (SeriesPoints)
            throw new io.unibench.BadInputException("workload " + workload.name() + ": composed conversations "
                    + "(composition.system, cache_bust, conversation_history) run with `unibench run --config` on the "
                    + "scenario file, not as a spec");
        }
        this.composed = composition == null || workload.multiTurn() ? null : new WorkloadPrompts(workload,
                tokenizer != null ? tokenizer : Tokenizers.defaultTokenizer(),
                WorkloadPrompts.seriesSeed(spec.seed(), workload), composition.items());
        this.lengthTokenizer = tokenizer != null ? tokenizer.name() : Tokenizers.DEFAULT;
        this.sweepPromptLengths = new PromptLengthStats(lengthTokenizer);
        // a step that takes more than a second says so on stderr (SlowStep): tokenizer, dataset, conversations
        this.datasets = SlowStep.run(notes, "Loading the default tokenizer", () -> new DatasetLoader(spec, tokenizer));
        int firstCount = firstPlan(spec).number() + firstPlan(spec).warmup();
        this.multiTurn = SlowStep.run(notes, "Loading conversations (" + workload.dataset() + ")",
                () -> SpecConversations.create(spec, tokenizer, firstCount));
        this.cancels = spec.cancels() == null ? CancelPolicy.NONE
                : new CancelPolicy(spec.cancels().rate(), spec.cancels().after(), spec.seed());
        if (multiTurn != null) {
            multiTurn.cancels = cancels;
            multiTurn.retry = spec.limits().retry();
        }
        long offset = workload.options().offset();
        this.firstPrompts = multiTurn != null ? SpecConversations.PROBE_ONLY
                : composed != null ? composed(0, spec.sla() != null ? null : spec.points().getFirst(), firstPlan(spec))
                : SlowStep.run(notes, "Loading dataset " + (workload.prompt() != null ? "(--prompt)" : workload.dataset()),
                        () -> spec.sla() != null ? datasets.load(offset, firstCount) // a shard's slice of the point
                                : datasets.load(offset + spec.points().getFirst().firstRequest(),
                                        spec.points().getFirst(), firstCount));
        // without a tokenizer, counts the server does not report are a labelled character estimate
        this.records = new RecordFactory(tokenizer != null ? tokenizer
                : AgenticFlags.estimate(workload.options().charsPerToken()), tokenizer != null);
        this.offset = workload.options().offset();
        this.spec = spec;
    }

    /**
     * What {@code spec} sends, read now: the tokenizer, the dataset's options, the first point's prompts or
     * conversations. Bad input (a dataset, its options, a tokenizer) throws {@link io.unibench.BadInputException}
     * before anything is written. The workload's {@code tokenize_prompt} sends token ids of its tokenizer (a spec
     * whose workload already has an encoder keeps it: the embedded simulator's, made by the front end that starts it).
     */
    public static SpecPoints load(RunSpec spec) {
        return load(spec, null);
    }

    /** {@link #load(RunSpec)}, saying on {@code notes} what takes more than a second (null: silent). */
    public static SpecPoints load(RunSpec spec, PrintWriter notes) {
        RunSpec.Workload w = spec.workloads().getFirst();
        Tokenizer tokenizer = w.options().tokenizerPath() == null ? null
                : SlowStep.run(notes, "Loading tokenizer " + w.options().tokenizerPath(),
                        () -> Tokenizers.load(w.options().tokenizerPath()));
        if (w.options().tokenizePrompt() && tokenizer != null && w.generation().promptEncoder() == null) {
            spec = spec.withWorkload(0, w.withGeneration(w.generation().withPromptEncoder(tokenizer::encode)));
        }
        return new SpecPoints(spec, tokenizer, notes);
    }

    /** The spec as it runs: {@link #load}'s, its encoder included. */
    public RunSpec spec() {
        return spec;
    }

    /** The first point's plan (an SLA search's: its first probe's). */
    private static LoadPlan firstPlan(RunSpec spec) {
        return spec.sla() != null ? spec.sla().plan(spec.sla().start()) : spec.points().getFirst().plan();
    }

    /**
     * The run starts with {@code running}'s spec (its target's URL, which may differ from {@link #load}'s: the
     * embedded simulator's) and its process: the stop signal, the notes' writer, the environment, and whether a
     * progress line goes to {@code err} every {@code outputs.log_every} requests (no terminal bar).
     */
    void bind(RunSpec running, StopSignal stop, PrintWriter err, Map<String, String> env, boolean progressLines) {
        this.spec = running.withWorkload(0, spec.workloads().getFirst());
        this.stop = stop;
        this.err = err;
        this.env = env;
        this.progressLines = progressLines;
        if (spec.outputs().progressTracker()) { // a search's total is not known
            long total = spec.points().stream().mapToLong(p -> p.plan().number()).sum();
            progressFile = new ProgressFile(spec.outputs().root(), spec.sla() != null ? null : total);
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

    /** The SLA search's answer and {@code sla_summary.json}'s fate; null without a search (or before it ended). */
    public SlaSearch.Searched searched() {
        return searched;
    }

    void searched(SlaSearch.Searched s) {
        searched = s;
    }

    /** The next point's files go to {@code dir} instead of {@code ROOT/LABEL} (the SLA auto-tune's probes). */
    void nextDir(Path dir) {
        nextDir = dir;
    }

    /** Progress counts conversations in multi-turn runs (the unit of --number). */
    boolean conversations() {
        return multiTurn != null;
    }

    /**
     * The composed prompts of point {@code index} ({@code point}'s slice of them; null: an SLA probe's, whole): each
     * point is a level of the workload's series, as a scenario's points are.
     */
    private List<Prompt> composed(int index, RunSpec.Point point, LoadPlan plan) {
        return composed.forPoint(index, point, (int) Math.min(Integer.MAX_VALUE, (long) plan.number() + plan.warmup()));
    }

    @Override
    public void targetStarted(int target, LlmClient client) {
        // the spec's start gate (limits.starts), one over the target's points, and the workload's validate rules
        RunSpec.Starts starts = spec.limits().starts();
        gate = starts == null ? null : StartGate.of(starts, stop, spec.shard());
        RequestHooks hooks = rules.around(gate);
        if (multiTurn != null) multiTurn.hooks = hooks;
        // --cancel-rate cancels a share mid-stream; --retry-on sends refusals again
        runner = cancels.runner(client, records, stop, spec.limits().retry(), spec.seed(), hooks);
    }

    @Override
    public SessionRunner.PointRun prepare(int index, RunSpec.Point point) {
        LoadPlan plan = point.plan();
        int count = plan.number() + plan.warmup();
        // the first sweep point's prompts were loaded up front (an SLA probe's count is its own)
        boolean loadedFirst = index == 0 && spec.sla() == null;
        long pointOffset = offset + point.firstRequest(); // a shard's slice of the whole point (RunSpec.slice)
        List<Prompt> prompts = loadedFirst || multiTurn != null ? firstPrompts
                : composed != null ? composed(index, spec.sla() != null ? null : point, plan)
                : datasets.load(pointOffset, point, count);
        if (index > 0 && multiTurn != null) multiTurn.prepare(pointOffset, count);
        offset += point.wholeNumber(); // the next point follows the whole run's, whichever shard this is
        RequestFactory requests = new RequestFactory(prompts, spec.workloads().getFirst().generation(),
                spec.seed() + pointOffset, Long.toString(System.currentTimeMillis(), 36) + "-" + index);
        Path dir = nextDir != null ? nextDir : spec.outputs().root().resolve(point.label());
        nextDir = null;
        return new Point(index, point, requests, pointOffset, dir);
    }

    private final class Point implements SessionRunner.PointRun {
        private final int index;
        private final RunSpec.Point point;
        private final RequestFactory requests;
        private final long pointOffset;
        private final Path dir;
        private final PromptLengthStats promptLengths = new PromptLengthStats(lengthTokenizer);

        Point(int index, RunSpec.Point point, RequestFactory requests, long pointOffset, Path dir) {
            this.index = index;
            this.point = point;
            this.requests = requests;
            this.pointOffset = pointOffset;
            this.dir = dir;
        }

        @Override
        public PreparedRequest probe() {
            return requests.probe();
        }

        @Override
        public void beforeStart() throws IOException, InterruptedException {
            String url = spec.target(point).url();
            int serverTokenize = workload.options().serverTokenize();
            if (index == 0 && serverTokenize > 0 && multiTurn == null) {
                serverCounted = ServerTokenize.sample(URI.create(url), spec.target(point).clientConfig(env, false)
                        .headers(), spec.target(point).model(), firstPrompts, serverTokenize);
                err.println("Server-counted prompt lengths: " + serverCounted.describe());
            }
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new OutputFailedException(dir, e);
            }
            // a closed loop's ramp (its new connections) is what the gate paces; a schedule's or a probe's starts only
            // its rate
            if (gate != null) gate.beginLevel(point.plan().paced() || spec.sla() != null ? 0 : point.plan().concurrency());
            if (spec.outputs().arguments() != null) { // a spec file may carry none
                writeArgs(dir.resolve("benchmark_args.json"), spec.outputs().arguments(), url, point.plan(), pointOffset);
            }
        }

        @Override
        public void awaitReady() throws InterruptedException {
            // synthesized prompts: the first second of the plan is made before the point's clock starts, the rest
            // streamed ahead of the dispatcher
            requests.awaitFirstBatch(point.plan(), line -> err.println(line), stop::isStopped);
        }

        @Override
        public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException {
            List<RecordSink> sinks = new ArrayList<>();
            sinks.add(new RequestsJsonlWriter(dir.resolve("requests.jsonl"), startNanos));
            sinks.add(promptLengths);
            sinks.add(sweepPromptLengths);
            // a terminal shows the live bar (an event subscriber); logs get a line every log_every requests
            if (progressLines) sinks.add(counted(new ProgressSink(err, metrics, point.label(), point.plan().number(),
                    spec.outputs().logEvery())));
            if (progressFile != null) sinks.add(counted(progressFile));
            return sinks;
        }

        /** Progress counts conversations in multi-turn runs (the unit of --number). */
        private RecordSink counted(RecordSink progress) {
            return multiTurn != null ? SpecConversations.conversationProgress(progress) : progress;
        }

        @Override
        public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException {
            long seed = spec.seed() + pointOffset;
            return multiTurn != null ? multiTurn.run(client, stop, plan, sinks, seed)
                    : runner.run(plan, requests, sinks, seed);
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
        ObjectNode a = arguments.deepCopy();
        a.put("url", Secrets.redact(url));
        a.put("number", plan.number());
        a.put("parallel", plan.concurrency());
        a.put("open_loop", plan.openLoop());
        a.put("rate", plan.paced() ? plan.rate() : -1);
        a.put("warmup_num", plan.warmup());
        a.put("dataset_offset", offset);
        OutputFailedException.writeWhole(file, JSON.writeValueAsBytes(a));
    }
}
