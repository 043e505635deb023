package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.client.ClientWarmup;
import io.unibench.client.TlsOptions;
import io.unibench.engine.CancelPolicy;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.ServerTokenize;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.Shard;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.PromptLengthStats;
import io.unibench.net.ServerCertificate;
import io.unibench.report.TerminalReport;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The execution of a {@code perf}-shaped {@link RunSpec} (one target, one workload), whoever made the spec:
 * {@code perf}'s flags, or a spec file given to {@code unibench run FILE}. Everything the run does follows from the
 * spec: the tokenizer and {@code --tokenize-prompt}'s encoder (the workload's options), prompts or conversations,
 * the embedded simulator ({@code embedded_simulator}, {@code simulator_tls}), the output folder, the run history,
 * cancels, the points or the SLA search, the report's header. What is not the run's but the process's comes from
 * the front end ({@link Process}): the environment, the interrupt hook, the client warm-up, {@code --debug},
 * {@code --server-metrics}, the error-rate gate, a shard's barrier, the reproduce line.
 */
final class PerfRun {
    /**
     * The process's part of a run.
     *
     * @param badRoot      the error of an output folder that cannot be made (named as the front end names it)
     * @param reproduce    a line printed after the report ({@code Reproduce: …}), or null
     */
    record Process(Map<String, String> env, boolean installSignalHandler, boolean debug, boolean clientWarmup,
                   ServerMetricsOption serverMetrics, Double maxErrorRate, ShardRun shards,
                   Function<IOException, BadInputException> badRoot, String reproduce) {}

    /** Where the run history records the run: the spec's own history, or the service's queued run. */
    @FunctionalInterface
    interface Recording {
        Recording SPEC = (spec, url, argsFile, env, err) -> new HistoryRecorder(RunHistory.open(spec.history(), env, err),
                t -> HistoryRecorder.perfStart(spec, url, argsFile));

        HistoryRecorder open(RunSpec spec, String url, Path argsFile, Map<String, String> env, PrintWriter err);
    }

    private final Process process;
    private final StopSignal stop;
    private Recording recording = Recording.SPEC;
    private io.unibench.engine.live.RunListener listener; // gets every live event, or null
    private volatile SessionRunner session;
    private RuntimeException failure; // what stopped the run early: a bug, or an output that could not be written
    private String limitStop; // what of the spec's limits stopped the run (a budget), null when none did
    private MultiTurnPerf multiTurn; // null for single-turn work
    private PromptLengthStats sweepPromptLengths; // whole sweep, for the report
    private ServerTokenize.Result serverCounted; // the workload's server_tokenize, null when off

    /** @param stop the front end's stop signal (set before the run started: it sends nothing) */
    PerfRun(Process process, StopSignal stop) {
        this.process = process;
        this.stop = stop;
    }

    /** Records the run as {@code recording} says instead of by the spec's history (the service's queued run). */
    PerfRun recordInto(Recording recording) {
        this.recording = recording;
        return this;
    }

    /** {@code listener} gets every live event of the run, all delivered before {@link #run} returns. */
    PerfRun listen(io.unibench.engine.live.RunListener listener) {
        this.listener = listener;
        return this;
    }

    /** What ended the run early (a bug, an output that could not be written); null when nothing did. */
    RuntimeException failure() {
        return failure;
    }

    boolean stopped() {
        return stop.isStopped();
    }

    /** Stops the run as Ctrl-C does: no new requests, in-flight ones cancelled, partial report written. */
    void stop() {
        stop.stop();
        SessionRunner s = session;
        if (s != null) s.stop();
    }

    /** What {@link #run} refuses in a spec before anything starts (one line, naming the spec's field). */
    static void check(RunSpec spec, String where) {
        List<io.unibench.engine.spec.SpecError> unrunnable = spec.unrunnable();
        if (!unrunnable.isEmpty()) throw new BadInputException(where + ": " + unrunnable.getFirst().line());
        if (spec.targets().size() != 1 || spec.workloads().size() != 1) {
            throw new IllegalArgumentException("one target and one workload per run: SpecParts splits the others");
        }
        RunSpec.Workload w = spec.workloads().getFirst();
        if (w.options().tokenizePrompt() && w.options().tokenizerPath() == null
                && !spec.targets().getFirst().embeddedSimulator()) {
            throw new BadInputException("--tokenize-prompt needs --tokenizer-path: the ids must be the served model's");
        }
    }

    /** Runs {@code spec}; its exit code. */
    int run(RunSpec spec, PrintWriter out, PrintWriter err) throws Exception {
        check(spec, spec.name());
        SessionRunner.calibration(process.env()); // a corrupt calibration file stops the run before anything starts
        RunSpec.Workload w = spec.workloads().getFirst();
        // a step that takes more than a second says so on stderr (SlowStep): tokenizer, dataset, conversations
        Tokenizer tokenizer = w.options().tokenizerPath() == null ? null
                : SlowStep.run(err, "Loading tokenizer " + w.options().tokenizerPath(),
                        () -> Tokenizers.load(w.options().tokenizerPath()));
        spec = tokenizingPrompts(spec, tokenizer);
        String lengthTokenizer = tokenizer != null ? tokenizer.name() : Tokenizers.DEFAULT;
        sweepPromptLengths = new PromptLengthStats(lengthTokenizer);
        RunSpec tokenized = spec;
        DatasetLoader datasets = SlowStep.run(err, "Loading the default tokenizer", () -> new DatasetLoader(tokenized, tokenizer));
        // Load the first point's prompts before anything starts, so a bad dataset fails fast and alone.
        int firstCount = firstPlan(spec).number() + firstPlan(spec).warmup();
        multiTurn = SlowStep.run(err, "Loading conversations (" + w.dataset() + ")",
                () -> MultiTurnPerf.create(tokenized, tokenizer, firstCount));
        CancelPolicy cancels = spec.cancels() == null ? CancelPolicy.NONE
                : new CancelPolicy(spec.cancels().rate(), spec.cancels().after(), spec.seed());
        if (multiTurn != null) {
            multiTurn.cancels = cancels;
            multiTurn.retry = spec.limits().retry();
        }
        List<Prompt> firstPrompts = multiTurn != null ? MultiTurnPerf.PROBE_ONLY
                : SlowStep.run(err, "Loading dataset " + (w.prompt() != null ? "(--prompt)" : w.dataset()),
                        () -> tokenized.sla() != null ? datasets.load(w.options().offset(), firstCount)
                                : datasets.load(w.options().offset() + tokenized.points().getFirst().firstRequest(),
                                        tokenized.points().getFirst(), firstCount));
        Path root = spec.outputs().root();
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw process.badRoot().apply(e);
        }
        SimServer sim = null;
        try {
            RunSpec.Target target = spec.targets().getFirst();
            if (target.embeddedSimulator()) {
                sim = startSimulator(target);
                TlsOptions tls = target.simulatorTls() && !target.tls().insecure()
                        ? new TlsOptions(simCertificate.chain(), false) : target.tls();
                spec = spec.withTarget(0, target.withSimulator(sim.baseUrl() + target.api().path(), tls));
            }
            return runSweep(spec, tokenizer, lengthTokenizer, datasets, firstPrompts, cancels, out, err);
        } finally {
            if (sim != null) sim.close();
        }
    }

    private ServerCertificate simCertificate;

    /** The embedded simulator; with {@code simulator_tls} it serves https with a certificate made now. */
    private SimServer startSimulator(RunSpec.Target target) {
        SimConfig config = SimConfig.defaults().withModel(target.model());
        if (!target.simulatorTls()) return SimServer.start(config);
        simCertificate = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        return SimServer.start(config, Tokenizers.load(config.tokenizer()), simCertificate.serverContext());
    }

    /**
     * The workload's {@code tokenize_prompt}: prompts go as the token ids of its tokenizer; against the embedded
     * simulator without one, of the simulator's own (so lengths are exact there too).
     */
    private static RunSpec tokenizingPrompts(RunSpec spec, Tokenizer user) {
        RunSpec.Workload w = spec.workloads().getFirst();
        if (!w.options().tokenizePrompt()) return spec;
        Tokenizer t = user != null ? user : Tokenizers.load(SimConfig.defaults().tokenizer()); // checked: the simulator
        return spec.withWorkload(0, w.withGeneration(w.generation().withPromptEncoder(t::encode)));
    }

    /** The first point's plan (an SLA search's: its first probe's). */
    private static LoadPlan firstPlan(RunSpec spec) {
        return spec.sla() != null ? spec.sla().plan(spec.sla().start()) : spec.points().getFirst().plan();
    }

    private int runSweep(RunSpec spec, Tokenizer userTokenizer, String lengthTokenizer, DatasetLoader datasets,
                         List<Prompt> firstPrompts, CancelPolicy cancels, PrintWriter out, PrintWriter err)
            throws Exception {
        RunSpec.Target target = spec.targets().getFirst();
        RunSpec.Workload workload = spec.workloads().getFirst();
        String url = target.url();
        Path root = spec.outputs().root();
        // without a tokenizer, counts the server does not report are a labelled character estimate
        Tokenizer counting = userTokenizer != null ? userTokenizer : AgenticFlags.estimate(workload.options().charsPerToken());
        CountDownLatch reportWritten = new CountDownLatch(1);
        Path argsFile = spec.sla() != null ? null
                : root.resolve(spec.points().getFirst().label()).resolve("benchmark_args.json");
        HistoryRecorder store = recording.open(spec, url, argsFile, process.env(), err);
        // after the store opened, so a bad --db is the only line
        if (target.embeddedSimulator()) {
            err.println("Target: embedded simulator at " + url + " (no --url given; see `unibench sim --help`)");
        }
        long sweepTotal = spec.points().stream().mapToLong(p -> p.plan().number()).sum();
        ProgressFile progressFile = !spec.outputs().progressTracker() ? null
                : new ProgressFile(root, spec.sla() != null ? null : sweepTotal); // a search's total is not known
        boolean terminal = ProgressSink.stderrIsTerminal();
        ServerMetricsHook server = new ServerMetricsHook(process.serverMetrics(), err); // --server-metrics
        ShardRun shards = process.shards();
        PerfPoints points = new PerfPoints(spec, datasets, multiTurn, firstPrompts,
                new RecordFactory(counting, userTokenizer != null), stop, err, progressFile,
                sweepPromptLengths, lengthTokenizer, terminal, process.env(), shards);
        SessionRunner.Result ran = null;
        boolean stopped = false;
        try (EventHub events = new EventHub();
             AutoCloseable bar = terminal ? events.subscribe(new ProgressView(err, multiTurn != null)) : null;
             AutoCloseable listening = listener != null ? events.subscribe(listener) : null) {
            points.cancels = cancels;
            points.register = () -> store.register(0); // before the first point's requests are prepared
            session = new SessionRunner(spec, process.env(), process.debug(), stop, events, store, err).observe(server)
                    .maxErrorRate(process.maxErrorRate())
                    .warmUpClient(process.clientWarmup() ? ClientWarmup.Budget.DEFAULT : null);
            Thread hook = process.installSignalHandler() ? installHook(reportWritten) : null;
            try {
                SlaAutoTune.Outcome sla = null;
                if (spec.sla() != null) {
                    // the auto-tune's search chooses each probe from the results so far, in one session
                    try (SessionRunner.Session probes = session.open(points)) {
                        sla = SlaAutoTune.run(spec, err, stop, probes::ended, (plan, offset, dir, first) -> {
                            points.nextDir(dir);
                            return probes.run(new RunSpec.Point(plan.label(), 0, 0, plan, Duration.ZERO));
                        }, (where, requests) -> {
                            probes.searching(where.describe());
                            if (progressFile != null) progressFile.probe(where, requests);
                        });
                        ran = probes.finish();
                    }
                } else {
                    ran = session.run(points);
                }
                stopped = ran.stopped();
                limitStop = ran.stopReason();
                failure = ran.failure();
                if (failure == null && sla != null) failure = sla.failure(); // sla_summary.json could not be written
                serverCounted = points.serverCounted();
                events.close(); // the bar's last line before the report
                String text = TerminalReport.render(ran.points(), basicInfo(spec, ran.checks(), stopped))
                        + (sla != null ? "\n" + sla.report() : "");
                out.println(text);
                out.print(server.table()); // the server's own metrics per point, when it had any
                failure = Main.firstFailure(failure, () -> OutputFailedException.writeWhole(
                        root.resolve("performance_summary.txt"), text.getBytes(StandardCharsets.UTF_8)));
                if (process.reproduce() != null) out.println("Reproduce: " + process.reproduce());
                out.println("Results: " + root.toAbsolutePath());
                if (failure != null) err.println(Main.failureLine(failure));
                else if (limitStop != null) err.println("Stopped: " + limitStop + "; the report above is partial.");
                else if (stopped) err.println("Interrupted: the report above is partial.");
            } finally {
                boolean early = ran == null || stopped || failure != null;
                if (progressFile != null) failure = Main.firstFailure(failure, () -> progressFile.finish(early));
                store.close(early);
                shards.finish(store.runId(), ran == null ? List.of() : ran.checks(), stopped, failure != null, err);
                reportWritten.countDown();
                if (hook != null && (!stopped || limitStop != null)) removeHook(hook);
            }
        }
        if (failure != null) return Main.exitCode(failure);
        // a budget's stop is the run's planned end: judged as a finished run (0, or 3 by the error gates), not 130
        return RunVerdict.exitCode(RunVerdict.byLabel(ran.points()), process.maxErrorRate(),
                stopped && limitStop == null, err);
    }

    private Thread installHook(CountDownLatch reportWritten) {
        Thread hook = new Thread(() -> {
            stop();
            try {
                reportWritten.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "unibench-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already exiting; the hook has run or will run and finds the report written
        }
    }

    private Map<String, String> basicInfo(RunSpec spec, List<SelfCheckReport> checks, boolean stopped) {
        RunSpec.Target target = spec.targets().getFirst();
        Map<String, String> info = new LinkedHashMap<>();
        info.put("Model", target.model());
        info.put("Target", target.embeddedSimulator() ? target.url() + " (embedded simulator)" : Secrets.redact(target.url()));
        info.put("API", target.api().label());
        info.put("Dataset", spec.workloads().getFirst().dataset());
        info.put("Output Path", spec.outputs().root().toString());
        selfCheckInfo(info, checks, target.embeddedSimulator());
        if (sweepPromptLengths.describe() != null) info.put("Prompt Lengths", sweepPromptLengths.describe());
        if (serverCounted != null) info.put("Server-Counted Prompts", serverCounted.describe());
        if (failure != null) info.put("Status", "stopped by an error (partial report)");
        else if (limitStop != null) info.put("Status", "stopped: " + limitStop + " (partial report)");
        else if (stopped) info.put("Status", "interrupted (partial report)");
        return info;
    }

    /** The self-check lines of the basic information: the worst run point's figures, and the warning if any. */
    private static void selfCheckInfo(Map<String, String> info, List<SelfCheckReport> checks, boolean embeddedSim) {
        checks.stream().max(java.util.Comparator.comparingDouble(c -> nanLast(c.cpuAvgShare()))).ifPresent(c ->
                info.put("Client CPU avg/max", c.describeCpu() + (embeddedSim ? " (includes the embedded simulator)" : "")));
        checks.stream().max(java.util.Comparator.comparingDouble(c -> nanLast(c.lagP99Millis())))
                .ifPresent(c -> info.put("Timing lag p99", c.describeLag()));
        checks.stream().filter(SelfCheckReport::bottleneck).findFirst()
                .ifPresent(c -> info.put("Self-check", c.warningLine()));
        if (!info.containsKey("Self-check")) {
            checks.stream().filter(c -> c.notes() != null).findFirst().ifPresent(c -> info.put("Machine", c.notes()));
        }
    }

    private static double nanLast(double v) {
        return Double.isNaN(v) ? Double.NEGATIVE_INFINITY : v;
    }
}
