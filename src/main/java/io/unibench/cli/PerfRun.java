package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.client.ClientWarmup;
import io.unibench.client.TlsOptions;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.SlaSearch;
import io.unibench.engine.SpecPoints;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.net.ServerCertificate;
import io.unibench.report.TerminalReport;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code perf}'s and {@code unibench run FILE}'s front end to a one-target, one-workload {@link RunSpec}, whoever made
 * the spec: {@code perf}'s flags, a spec file, the web's posted spec. What the run sends and writes is the engine's,
 * from the spec alone ({@link SpecPoints}: prompts or conversations, tokenizer, cancels, each point's files, the
 * points or the SLA search); this class starts the embedded simulator the spec names ({@code embedded_simulator},
 * {@code simulator_tls}), opens the run history, and renders the report. What is not the run's but the process's
 * comes from the front end ({@link Process}): the environment, the interrupt hook, the client warm-up,
 * {@code --debug}, {@code --server-metrics}, the error-rate gate, a shard's barrier, the reproduce line.
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
        Recording SPEC = (spec, url, env, err) -> new HistoryRecorder(RunHistory.open(spec.history(), env, err),
                t -> HistoryRecorder.perfStart(spec, url));

        HistoryRecorder open(RunSpec spec, String url, Map<String, String> env, PrintWriter err);
    }

    private final Process process;
    private final StopSignal stop;
    private Recording recording = Recording.SPEC;
    private io.unibench.engine.live.RunListener listener; // gets every live event, or null
    private volatile SessionRunner session;
    private volatile CompletableFuture<SpecPoints> loading; // what the spec sends, being read; null before and after
    private Loader loader = SpecPoints::load;
    private final java.util.concurrent.locks.ReentrantLock prepared = new java.util.concurrent.locks.ReentrantLock();
    private boolean preparing = true; // guarded by prepared: false once a stop ended the preparation
    private RuntimeException failure; // what stopped the run early: a bug, or an output that could not be written
    private String limitStop; // what of the spec's limits stopped the run (a budget), null when none did
    private boolean interruptedRun; // Ctrl-C or the service's cancel stopped it: the interrupt hook must stay

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
        CompletableFuture<SpecPoints> l = loading;
        if (l != null) l.cancel(false); // the run ends now, not when a large dataset has been read
        SessionRunner s = session;
        if (s != null) s.stop();
    }

    /** How the run reads what the spec sends ({@link SpecPoints#load}): notes, and what runs once a step is slow. */
    @FunctionalInterface
    interface Loader {
        SpecPoints load(RunSpec spec, PrintWriter notes, Runnable whenSlow);
    }

    /** For tests: reads the spec with {@code loader} instead of {@link SpecPoints#load}. */
    PerfRun loadWith(Loader loader) {
        this.loader = loader;
        return this;
    }

    /** What {@link #run} refuses in a spec before anything starts (one line, naming the spec's field). */
    static void check(RunSpec spec, String where) {
        List<io.unibench.engine.spec.SpecError> unrunnable = spec.unrunnable();
        if (!unrunnable.isEmpty()) throw new BadInputException(where + ": " + unrunnable.getFirst().line());
        if (spec.targets().size() != 1 || spec.workloads().size() != 1) {
            throw new IllegalArgumentException("one target and one workload per run: SpecParts splits the others");
        }
    }

    /** Runs {@code spec}; its exit code. */
    int run(RunSpec spec, PrintWriter out, PrintWriter err) throws Exception {
        check(spec, spec.name());
        SessionRunner.calibration(process.env()); // a corrupt calibration file stops the run before anything starts
        spec = simulatorPrompts(spec);
        try { // the report's folder, before the history opens: a --db inside it (--outputs-dir out --db out/r.db)
            Files.createDirectories(reportDir(spec)); // finds its folder made, as it did when this came first
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
            // the history opens first (a bad --db is the only line), then what the spec sends is read, so a bad
            // dataset fails fast and alone; a step that takes more than a second registers the run first (the
            // history and the platform list it while it prepares) and says so on stderr (issue 31)
            HistoryRecorder store = recording.open(spec, spec.targets().getFirst().url(), process.env(), err);
            CountDownLatch reportWritten = new CountDownLatch(1);
            Thread hook = process.installSignalHandler() ? installHook(reportWritten) : null;
            boolean hookKept = false;
            try {
                SpecPoints work = load(spec, store, err);
                if (work == null) { // stopped (Ctrl-C, the service's cancel) while it prepared: nothing was sent
                    hookKept = true;
                    prepared.lock();
                    try {
                        preparing = false; // a step turning slow from now on registers nothing
                    } finally {
                        prepared.unlock();
                    }
                    store.close(true);
                    err.println("Interrupted while preparing the run: nothing was sent.");
                    return Main.EXIT_INTERRUPTED;
                }
                spec = work.spec();
                try {
                    return runSweep(spec, work, store, out, err);
                } finally {
                    hookKept = interruptedRun; // the JVM is exiting on Ctrl-C: its hook waits for the report
                }
            } finally {
                reportWritten.countDown();
                if (hook != null && !hookKept) removeHook(hook);
            }
        } finally {
            if (sim != null) sim.close();
        }
    }

    /**
     * What the spec sends, read on a thread of its own so a stop ends the wait at once; null when stopped first. Bad
     * input found after the run was registered (a bad line at the end of a large file) ends the stored run failed.
     */
    private SpecPoints load(RunSpec spec, HistoryRecorder store, PrintWriter err) throws InterruptedException {
        CompletableFuture<SpecPoints> f = new CompletableFuture<>();
        loading = f;
        Thread.ofVirtual().name("unibench-prepare").start(() -> {
            try {
                f.complete(loader.load(spec, err, () -> {
                    prepared.lock();
                    try {
                        if (preparing && !stop.isStopped()) store.register(0);
                    } finally {
                        prepared.unlock();
                    }
                }));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        if (stop.isStopped()) f.cancel(false);
        try {
            return f.get();
        } catch (CancellationException e) {
            return null;
        } catch (ExecutionException e) {
            store.targetFailed(0);
            store.close(false);
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error r) throw r;
            throw new IllegalStateException(e.getCause());
        } finally {
            loading = null;
        }
    }

    /** Where {@code performance_summary.txt} goes: the root, or in a scenario's layout the series' folder. */
    private static Path reportDir(RunSpec spec) {
        return spec.outputs().layout() == RunSpec.Layout.series ? SpecPoints.seriesDir(spec, 0, 0)
                : spec.outputs().root();
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
     * The workload's {@code tokenize_prompt} against the embedded simulator without a tokenizer: prompts go as token
     * ids of the simulator's own tokenizer (so lengths are exact there too); with one, the engine encodes with it.
     */
    private static RunSpec simulatorPrompts(RunSpec spec) {
        RunSpec.Workload w = spec.workloads().getFirst();
        if (!w.options().tokenizePrompt() || w.options().tokenizerPath() != null) return spec;
        Tokenizer t = Tokenizers.load(SimConfig.defaults().tokenizer()); // checked: the simulator
        return spec.withWorkload(0, w.withGeneration(w.generation().withPromptEncoder(t::encode)));
    }

    /** Runs the points and writes the report; sets {@link #interruptedRun} before it returns. */
    private int runSweep(RunSpec spec, SpecPoints work, HistoryRecorder store, PrintWriter out, PrintWriter err)
            throws Exception {
        RunSpec.Target target = spec.targets().getFirst();
        String url = target.url();
        Path root = spec.outputs().root();
        Path report = reportDir(spec);
        if (target.embeddedSimulator()) {
            err.println("Target: embedded simulator at " + url + " (no --url given; see `unibench sim --help`)");
        }
        boolean terminal = ProgressView.stderrIsTerminal();
        ServerMetricsHook server = new ServerMetricsHook(process.serverMetrics(), err); // --server-metrics
        ShardRun shards = process.shards();
        SessionRunner.Result ran = null;
        boolean stopped = false;
        try (EventHub events = new EventHub();
             AutoCloseable bar = terminal ? events.subscribe(new ProgressView(err, spec.workloads().getFirst()
                     .multiTurn())) : null;
             AutoCloseable listening = listener != null ? events.subscribe(listener) : null) {
            session = new SessionRunner(spec, process.env(), process.debug(), stop, events, store, err).observe(server)
                    .maxErrorRate(process.maxErrorRate())
                    .warmUpClient(process.clientWarmup() ? ClientWarmup.Budget.DEFAULT : null)
                    .progressLines(!terminal)
                    .startBarrier((point, s) -> shards.awaitPoint(point, s, err)); // a shard registers and waits (each point)
            try {
                // the report is rendered and written before the run's end is recorded (progress.json, the history):
                // a report that cannot be written ends the run as failed there too
                String[] text = new String[1];
                boolean[] pointsStopped = new boolean[1];
                ran = session.run(work, r -> {
                    pointsStopped[0] = r.stopped();
                    limitStop = r.stopReason();
                    failure = r.failure();
                    StringBuilder tables = new StringBuilder();
                    for (SlaSearch.Searched sla : work.searched()) {
                        tables.append("\n").append(SlaAutoTune.tables(sla.tuning(), sla.params()));
                    }
                    text[0] = TerminalReport.render(r.points(), basicInfo(spec, work, r.checks(), r.stopped())) + tables;
                    OutputFailedException.writeWhole(report.resolve("performance_summary.txt"),
                            text[0].getBytes(StandardCharsets.UTF_8));
                });
                stopped = pointsStopped[0];
                failure = ran.failure();
                events.close(); // the bar's last line before the report
                out.println(text[0]);
                out.print(server.table()); // the server's own metrics per point, when it had any
                if (process.reproduce() != null) out.println("Reproduce: " + process.reproduce());
                out.println("Results: " + root.toAbsolutePath());
                if (failure != null) err.println(Main.failureLine(failure));
                else if (limitStop != null) err.println("Stopped: " + limitStop + "; the report above is partial.");
                else if (stopped) err.println("Interrupted: the report above is partial.");
            } finally {
                boolean early = ran == null || stopped || failure != null;
                store.close(early);
                shards.finish(store.runId(), ran == null ? List.of() : ran.checks(), stopped, failure != null, err);
                interruptedRun = stopped && limitStop == null;
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

    private Map<String, String> basicInfo(RunSpec spec, SpecPoints work, List<SelfCheckReport> checks, boolean stopped) {
        RunSpec.Target target = spec.targets().getFirst();
        Map<String, String> info = new LinkedHashMap<>();
        info.put("Model", target.model());
        info.put("Target", target.embeddedSimulator() ? target.url() + " (embedded simulator)" : Secrets.redact(target.url()));
        info.put("API", target.api().label());
        info.put("Dataset", spec.workloads().getFirst().dataset());
        info.put("Output Path", spec.outputs().root().toString());
        selfCheckInfo(info, checks, target.embeddedSimulator());
        info.putAll(work.header()); // the prompts' lengths, the server's counts
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
