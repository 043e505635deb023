package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.client.ClientWarmup;
import io.unibench.client.TlsOptions;
import io.unibench.engine.CancelPolicy;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.ServerTokenize;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.engine.LoadPlan;
import io.unibench.net.ServerCertificate;
import io.unibench.metrics.PromptLengthStats;
import io.unibench.report.TerminalReport;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code unibench perf}: the benchmark, flag-compatible with {@code evalscope perf}. */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        exitCodeListHeading = Main.EXIT_CODES_HEADING,
        exitCodeList = {Main.EXIT_CODE_0, Main.EXIT_CODE_1, Main.EXIT_CODE_2, Main.EXIT_CODE_3, Main.EXIT_CODE_5,
                Main.EXIT_CODE_130},
        description = {"Benchmark an OpenAI-compatible endpoint (default: the embedded simulator).",
                "Writes evalscope-compatible files under OUTPUTS/[TIMESTAMP/]NAME/parallel_P_number_N/ "
                        + "plus requests.jsonl (every request, failures included)."})
public final class PerfCommand implements Callable<Integer> {
    @Mixin
    PerfOptions options = new PerfOptions();

    @Mixin
    EvalscopeOnlyFlags evalscopeOnly = new EvalscopeOnlyFlags();

    @Spec
    CommandSpec spec;

    private final StopSignal stop = new StopSignal();
    private volatile SessionRunner session;
    /** What stopped the run early: an internal error (a bug) or an output that could not be written. */
    private RuntimeException failure;
    private MultiTurnPerf multiTurn; // null unless --multi-turn
    private Map<String, String> environment = System.getenv();
    private boolean installSignalHandler = true;
    private PromptLengthStats sweepPromptLengths; // whole sweep, for the report
    /** The tokenizer that synthesized and counted prompts of a target length (the user's or the bundled default). */
    private String lengthTokenizer;
    private ServerTokenize.Result serverCounted; // --server-tokenize, null when off
    private TlsOptions tls; // how https servers are checked (--ca-cert, --insecure, --sim-tls)
    private ShardRun shards = ShardRun.NONE; // --shard I/N --run-group G (issue 21)

    @Mixin
    ServerMetricsOption serverMetrics = new ServerMetricsOption(); // --server-metrics URL|off

    @Mixin
    CancelOptions cancel = new CancelOptions(); // --cancel-rate, --cancel-after-ms

    @picocli.CommandLine.Option(names = "--dry-run", description = "Print the run's spec (JSON: targets, workloads, "
            + "points, outputs; the key by reference) on stdout and exit: nothing is sent, nothing is written. "
            + "`unibench run FILE` runs such a file.")
    boolean dryRun;

    private CancelPolicy cancels = CancelPolicy.NONE;

    /** For tests: the environment to read API keys from, and no JVM shutdown hook. */
    PerfCommand forTest(Map<String, String> env) {
        this.environment = env;
        this.installSignalHandler = false;
        return this;
    }

    /** Stops the run as Ctrl-C does: no new requests, in-flight ones cancelled, partial report written. */
    public void stop() {
        stop.stop();
        SessionRunner s = session;
        if (s != null) s.stop();
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        evalscopeOnly.check(err);
        shards = ShardRun.prepare(options, environment); // this shard's slice, written into the options
        PerfSettings s = PerfSettings.resolve(options, environment);
        Double maxErrorRate = RunVerdict.checkedLimit(options.maxErrorRate, "--max-error-rate");
        if (options.serverTokenize < 0) {
            throw new io.unibench.BadInputException("--server-tokenize " + options.serverTokenize + ": expected >= 0");
        }
        tls = PerfSettings.tls(options, s.embeddedSimulator());
        cancels = cancel.policy(s.seed());
        Tokenizer tokenizer = options.tokenizerPath != null ? Tokenizers.load(options.tokenizerPath) : null;
        if (options.tokenizePrompt) s = s.tokenizingPrompts(tokenizer); // apis: --tokenize-prompt
        if (dryRun) {
            Path root = outputRoot(s);
            out.println(RunSpecJson.toJson(spec(s, s.url(), root)));
            return 0;
        }
        lengthTokenizer = tokenizer != null ? tokenizer.name() : Tokenizers.DEFAULT;
        sweepPromptLengths = new PromptLengthStats(lengthTokenizer);
        DatasetLoader datasets = new DatasetLoader(s, options, tokenizer);
        // Load the first run's prompts before anything starts, so a bad dataset fails fast and alone.
        multiTurn = MultiTurnPerf.createIfRequested(s, options, tokenizer, firstCount(s), spec.commandLine().getErr());
        if (multiTurn != null) multiTurn.cancels = cancels;
        List<Prompt> firstPrompts = multiTurn != null ? MultiTurnPerf.PROBE_ONLY
                : datasets.load(options.datasetOffset, firstCount(s));
        Path root = createOutputRoot(s);
        SimServer sim = null;
        try {
            String url = s.url();
            if (s.embeddedSimulator()) {
                sim = startSimulator(s);
                url = sim.baseUrl() + s.format().path();
            }
            return runSweep(s, url, root, tokenizer, datasets, firstPrompts, out, err, maxErrorRate);
        } finally {
            if (sim != null) sim.close();
        }
    }

    /** The embedded simulator; with --sim-tls it serves https with a certificate made now, which the client trusts. */
    private SimServer startSimulator(PerfSettings s) {
        SimConfig config = SimConfig.defaults().withModel(s.model());
        if (!options.simTls) return SimServer.start(config);
        ServerCertificate cert = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        if (!options.insecure) tls = new TlsOptions(cert.chain(), false);
        return SimServer.start(config, Tokenizers.load(config.tokenizer()), cert.serverContext());
    }

    private int firstCount(PerfSettings s) {
        return s.number().get(0) + PerfSettings.warmupCount(options.warmupNum, s.number().get(0));
    }

    /** The results folder, made before anything starts: a path that cannot be a folder is bad input. */
    private Path createOutputRoot(PerfSettings s) {
        Path root = outputRoot(s);
        try {
            return Files.createDirectories(root);
        } catch (IOException e) {
            throw BadInputException.io("--outputs-dir", options.outputsDir, e);
        }
    }

    private int runSweep(PerfSettings s, String url, Path root, Tokenizer userTokenizer, DatasetLoader datasets,
                         List<Prompt> firstPrompts, PrintWriter out, PrintWriter err, Double maxErrorRate)
            throws Exception {
        // without --tokenizer-path, counts the server does not report are a labelled character estimate
        Tokenizer counting = userTokenizer != null ? userTokenizer : AgenticFlags.estimate(options);
        RunSpec spec = spec(s, url, root);
        CountDownLatch reportWritten = new CountDownLatch(1);
        RunHistory history = RunHistory.open(options.history, environment, err);
        HistoryRecorder store = new HistoryRecorder(history, t -> HistoryRecorder.perfStart(s, options, url,
                root.resolve(firstLabel(s, spec)).resolve("benchmark_args.json")));
        // after the store opened, so a bad --db is the only line
        if (s.embeddedSimulator()) {
            err.println("Target: embedded simulator at " + url + " (no --url given; see `unibench sim --help`)");
        }
        long sweepTotal = s.number().stream().mapToLong(Integer::longValue).sum();
        ProgressFile progressFile = !options.enableProgressTracker ? null
                : new ProgressFile(root, spec.sla() != null ? null : sweepTotal); // a search's total is not known
        boolean terminal = ProgressSink.stderrIsTerminal();
        ServerMetricsHook server = new ServerMetricsHook(serverMetrics, err); // --server-metrics
        PerfPoints points = new PerfPoints(spec, datasets, multiTurn, firstPrompts,
                new RecordFactory(counting, userTokenizer != null), stop, err, progressFile,
                sweepPromptLengths, lengthTokenizer, terminal, environment, shards);
        SessionRunner.Result ran = null;
        boolean stopped = false;
        try (EventHub events = new EventHub();
             AutoCloseable bar = terminal ? events.subscribe(new ProgressView(err, multiTurn != null)) : null) {
            points.cancels = cancels;
            session = new SessionRunner(spec, environment, options.debug, stop, events, store, err).observe(server)
                    .warmUpClient(options.noClientWarmup ? null : ClientWarmup.Budget.DEFAULT);
            Thread hook = installSignalHandler ? installHook(reportWritten) : null;
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
                failure = ran.failure();
                serverCounted = points.serverCounted();
                events.close(); // the bar's last line before the report
                String text = TerminalReport.render(ran.points(), basicInfo(s, url, root, ran.checks(), stopped))
                        + (sla != null ? "\n" + sla.report() : "");
                out.println(text);
                out.print(server.table()); // the server's own metrics per point, when it had any
                failure = Main.firstFailure(failure, () -> OutputFailedException.writeWhole(
                        root.resolve("performance_summary.txt"), text.getBytes(StandardCharsets.UTF_8)));
                if (s.defaultLoad()) out.println("Reproduce: " + reproduceCommand(s));
                out.println("Results: " + root.toAbsolutePath());
                if (failure != null) err.println(Main.failureLine(failure));
                else if (stopped) err.println("Interrupted: the report above is partial.");
            } finally {
                boolean early = ran == null || stopped || failure != null;
                if (progressFile != null) failure = Main.firstFailure(failure, () -> progressFile.finish(early));
                store.close(early);
                shards.finish(store.runId(), ran == null ? List.of() : ran.checks(), stopped, failure != null, err);
                reportWritten.countDown();
                if (hook != null && !stopped) removeHook(hook);
            }
        }
        if (failure != null) return Main.exitCode(failure);
        return RunVerdict.exitCode(RunVerdict.byLabel(ran.points()), maxErrorRate, stopped, err);
    }

    /** The run these flags describe, against {@code url} (null: the embedded simulator's, not started yet). */
    private RunSpec spec(PerfSettings s, String url, Path root) {
        RunSpec.Cancels cancels = cancel.rate == null ? null
                : new RunSpec.Cancels(cancel.rate, cancel.afterMs == null ? null : Duration.ofMillis(cancel.afterMs));
        return s.spec(options, url, tls, root.getFileName().toString(), root, environment, shards.shard(), cancels);
    }

    /** The first point's folder (an SLA search's: the sweep's first point, as before the search chose its own). */
    private static String firstLabel(PerfSettings s, RunSpec spec) {
        if (!spec.points().isEmpty()) return spec.points().getFirst().label();
        int n = s.number().getFirst();
        double r = s.rate().getFirst();
        return (s.openLoop() ? LoadPlan.openLoop(n, r, null, 0) : new LoadPlan(s.parallel().getFirst(), n, r, null, 0)).label();
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

    private Path outputRoot(PerfSettings s) {
        String name = options.name != null ? options.name : modelId(s.model());
        name = name.replaceAll("[<>:\"|?*\\\\/\\x00]", "_");
        Path base = Path.of(options.outputsDir);
        if (options.noTimestamp) return base.resolve(name);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"));
        return base.resolve(stamp).resolve(name);
    }

    private static String modelId(String model) {
        String trimmed = model.endsWith("/") ? model.substring(0, model.length() - 1) : model;
        return trimmed.substring(trimmed.lastIndexOf('/') + 1);
    }

    private Map<String, String> basicInfo(PerfSettings s, String url, Path root, List<SelfCheckReport> checks,
                                          boolean stopped) {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("Model", s.model());
        info.put("Target", s.embeddedSimulator() ? url + " (embedded simulator)" : Secrets.redact(url));
        info.put("API", s.format().label());
        info.put("Dataset", s.dataset());
        info.put("Output Path", root.toString());
        selfCheckInfo(info, checks, s.embeddedSimulator());
        if (sweepPromptLengths.describe() != null) info.put("Prompt Lengths", sweepPromptLengths.describe());
        if (serverCounted != null) info.put("Server-Counted Prompts", serverCounted.describe());
        if (failure != null) info.put("Status", "stopped by an error (partial report)");
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

    private String reproduceCommand(PerfSettings s) {
        return "./unibench perf --url sim --parallel " + join(s.parallel()) + " --number " + join(s.number())
                + " --dataset " + s.dataset() + " --tokenizer-path " + (options.tokenizerPath != null
                ? options.tokenizerPath : Tokenizers.DEFAULT) + " --min-prompt-length " + s.minPromptLength()
                + " --max-prompt-length " + s.maxPromptLength() + " --max-tokens " + s.generation().maxTokensMin()
                + " --sleep-interval " + s.sleepIntervalSeconds();
    }

    private static String join(List<Integer> values) {
        StringBuilder sb = new StringBuilder();
        for (int v : values) sb.append(sb.isEmpty() ? "" : " ").append(v);
        return sb.toString();
    }
}
