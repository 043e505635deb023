package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.client.ClientConfig;
import io.unibench.client.LlmClient;
import io.unibench.Secrets;
import io.unibench.client.TlsOptions;
import io.unibench.engine.BenchmarkRunner;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.ServerTokenize;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.RunFailedException;
import io.unibench.engine.RunOutcome;
import io.unibench.engine.StopSignal;
import io.unibench.engine.selfcheck.SelfCheck;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.metrics.PromptLengthStats;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.report.EvalscopeFiles;
import io.unibench.report.RequestsJsonlWriter;
import io.unibench.report.TerminalReport;
import io.unibench.sim.SimCertificate;
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
import java.io.UncheckedIOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code unibench perf}: the benchmark, flag-compatible with {@code evalscope perf}. */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        exitCodeListHeading = Main.EXIT_CODES_HEADING,
        exitCodeList = {Main.EXIT_CODE_0, Main.EXIT_CODE_1, Main.EXIT_CODE_2, Main.EXIT_CODE_3, Main.EXIT_CODE_130},
        description = {"Benchmark an OpenAI-compatible endpoint (default: the embedded simulator).",
                "Writes evalscope-compatible files under OUTPUTS/[TIMESTAMP/]NAME/parallel_P_number_N/ "
                        + "plus requests.jsonl (every request, failures included)."})
public final class PerfCommand implements Callable<Integer> {
    @Mixin
    PerfOptions options = new PerfOptions();

    @Mixin
    EvalscopeOnlyFlags evalscopeOnly = new EvalscopeOnlyFlags();

    @Mixin
    ServerMetricsOption serverMetrics = new ServerMetricsOption(); // issue 19 hook

    @Mixin
    CancelOptions cancel = new CancelOptions(); // issue 19 hook

    @Spec
    CommandSpec spec;

    private final StopSignal stop = new StopSignal();
    private volatile LlmClient activeClient;
    /** The bug that ended the sweep early (a worker, sink or hook threw); its report is partial. */
    /** What stopped the run early: an internal error (a bug) or an output that could not be written. */
    private RuntimeException failure;
    private MultiTurnPerf multiTurn; // null unless --multi-turn
    private Map<String, String> environment = System.getenv();
    private boolean installSignalHandler = true;
    private StoreHook store; // run history (--db / --no-db), opened by runSweep
    private ProgressFile progressFile; // --enable-progress-tracker, else null
    private PromptLengthStats sweepPromptLengths; // whole sweep, for the report
    /** The tokenizer that synthesized and counted prompts of a target length (the user's or the bundled default). */
    private String lengthTokenizer;
    private ServerTokenize.Result serverCounted; // --server-tokenize, null when off
    private TlsOptions tls; // how https servers are checked (--ca-cert, --insecure, --sim-tls)
    private ServerMetricsHook serverHook; // issue 19 hook: --server-metrics
    private io.unibench.engine.CancelPolicy cancels; // issue 19 hook: --cancel-rate

    /** For tests: the environment to read API keys from, and no JVM shutdown hook. */
    PerfCommand forTest(Map<String, String> env) {
        this.environment = env;
        this.installSignalHandler = false;
        return this;
    }

    /** Stops the run as Ctrl-C does: no new requests, in-flight ones cancelled, partial report written. */
    public void stop() {
        stop.stop();
        LlmClient client = activeClient;
        if (client != null) client.cancelAll();
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        evalscopeOnly.check(err);
        PerfSettings s = PerfSettings.resolve(options, environment);
        Double maxErrorRate = RunVerdict.checkedLimit(options.maxErrorRate, "--max-error-rate");
        if (options.serverTokenize < 0) {
            throw new io.unibench.BadInputException("--server-tokenize " + options.serverTokenize + ": expected >= 0");
        }
        tls = PerfSettings.tls(options, s.embeddedSimulator());
        cancels = cancel.policy(s.seed()); // issue 19 hook
        Tokenizer tokenizer = options.tokenizerPath != null ? Tokenizers.load(options.tokenizerPath) : null;
        lengthTokenizer = tokenizer != null ? tokenizer.name() : Tokenizers.DEFAULT;
        sweepPromptLengths = new PromptLengthStats(lengthTokenizer);
        DatasetLoader datasets = new DatasetLoader(s, options, tokenizer);
        // Load the first run's prompts before anything starts, so a bad dataset fails fast and alone.
        multiTurn = MultiTurnPerf.createIfRequested(s, options, tokenizer, firstCount(s), spec.commandLine().getErr());
        if (multiTurn != null) multiTurn.cancels = cancels; // issue 19 hook
        List<Prompt> firstPrompts = multiTurn != null ? MultiTurnPerf.PROBE_ONLY
                : datasets.load(options.datasetOffset, firstCount(s));
        Path root = createOutputRoot(s);
        SimServer sim = null;
        try {
            String url = s.url();
            if (s.embeddedSimulator()) {
                sim = startSimulator(s);
                url = sim.baseUrl() + (s.format() == io.unibench.client.ApiFormat.CHAT
                        ? "/v1/chat/completions" : "/v1/completions");
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
        SimCertificate cert = SimCommand.selfSigned("--sim-tls");
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
        // the open loop has no bound: the pool is as large as the largest run (connections open as needed)
        int peak = (s.openLoop() ? s.number() : s.parallel()).stream().mapToInt(Integer::intValue).max().orElse(1);
        ClientConfig config = new ClientConfig(URI.create(url), requestHeaders(s, url),
                seconds(options.connectTimeout), seconds(options.readTimeout), seconds(options.totalTimeout),
                peak * 2 + 8, options.debug, tls);
        CountDownLatch reportWritten = new CountDownLatch(1);
        store = StoreHook.open(options, s, url, environment, err);
        serverHook = new ServerMetricsHook(serverMetrics, err, url); // issue 19 hook
        // after the store opened, so a bad --db is the only line
        if (s.embeddedSimulator()) {
            err.println("Target: embedded simulator at " + url + " (no --url given; see `unibench sim --help`)");
        }
        List<RunResult> results = new ArrayList<>();
        List<SelfCheckReport> checks = new ArrayList<>();
        boolean stopped = false;
        long sweepTotal = s.number().stream().mapToLong(Integer::longValue).sum();
        progressFile = options.enableProgressTracker ? new ProgressFile(root, sweepTotal) : null;
        try (LlmClient client = new LlmClient(config)) {
            activeClient = client;
            if (stop.isStopped()) client.cancelAll();
            Thread hook = installSignalHandler ? installHook(reportWritten) : null;
            try {
                RecordFactory records = new RecordFactory(counting, userTokenizer != null);
                BenchmarkRunner runner = cancels.runner(client, records, stop); // issue 19 hook: was new BenchmarkRunner(client, records, stop)
                long offset = options.datasetOffset;
                for (int i = 0; i < s.number().size() && !stopped && failure == null; i++) {
                    int number = s.number().get(i);
                    int warmup = PerfSettings.warmupCount(options.warmupNum, number);
                    LoadPlan plan = s.openLoop() ? LoadPlan.openLoop(number, s.rate().get(i), s.duration(), warmup)
                            : new LoadPlan(s.parallel().get(i), number, s.rate().get(i), s.duration(), warmup);
                    List<Prompt> prompts = i == 0 || multiTurn != null ? firstPrompts : datasets.load(offset, number + warmup);
                    if (i > 0 && multiTurn != null) multiTurn.prepare(offset, number + warmup);
                    RunResult result;
                    try (RequestFactory requests = new RequestFactory(prompts, s.generation(), s.seed() + offset,
                            Long.toString(System.currentTimeMillis(), 36) + "-" + i)) {
                        if (i == 0 && !options.noTestConnection) ConnectionTest.run(client, requests, url, stop);
                        if (i == 0 && options.serverTokenize > 0 && multiTurn == null) {
                            serverCounted = ServerTokenize.sample(URI.create(url), requestHeaders(s, url), s.model(),
                                    prompts, options.serverTokenize);
                            err.println("Server-counted prompt lengths: " + serverCounted.describe());
                        }
                        Path runDir = root.resolve(plan.label());
                        Files.createDirectories(runDir);
                        ArgsFile.write(runDir.resolve("benchmark_args.json"), s, options, url, plan, offset);
                        requests.awaitPrefetched(); // synthesized prompts are made before the point's clock starts
                        result = runPoint(plan, requests, runner, runDir, err, client, checks, s.seed() + offset,
                                i == 0);
                    }
                    results.add(result);
                    stopped = stop.isStopped();
                    offset += number;
                    if (failure != null) break;
                    if (!stopped && i + 1 < s.number().size() && s.sleepIntervalSeconds() > 0) {
                        stopped = stop.awaitUntil(System.nanoTime() + s.sleepIntervalSeconds() * 1_000_000_000L);
                    }
                }
                String text = TerminalReport.render(results, basicInfo(s, url, root, checks, stopped));
                out.println(text);
                out.print(serverHook.table()); // issue 19 hook
                Files.writeString(root.resolve("performance_summary.txt"), text);
                if (s.defaultLoad()) out.println("Reproduce: " + reproduceCommand(s));
                out.println("Results: " + root.toAbsolutePath());
                if (failure != null) err.println("unibench: " + failure.getMessage() + "; the report above is partial");
                else if (stopped) err.println("Interrupted: the report above is partial.");
            } finally {
                if (progressFile != null) progressFile.finish(stopped || failure != null);
                store.finish(stopped || failure != null);
                reportWritten.countDown();
                if (hook != null && !stopped) removeHook(hook);
            }
        }
        if (failure != null) return Main.EXIT_FAILED;
        return RunVerdict.exitCode(RunVerdict.byLabel(results), maxErrorRate, stopped, err);
    }

    private RunResult runPoint(LoadPlan plan, RequestFactory requests, BenchmarkRunner runner, Path runDir,
                               PrintWriter err, LlmClient client, List<SelfCheckReport> checks, long seed,
                               boolean firstPoint)
            throws InterruptedException, IOException {
        RunMetrics metrics = new RunMetrics();
        PromptLengthStats promptLengths = new PromptLengthStats(lengthTokenizer);
        RunInfo info = new RunInfo(plan.label(), plan.concurrency(), plan.paced() ? plan.rate() : -1, plan.number());
        long runStart = System.nanoTime();
        RunOutcome outcome = null;
        SelfCheck selfCheck = SelfCheck.start(client.ioLoops());
        io.unibench.engine.PointObserver.Point serverScrape = serverHook.start(plan.label()); // issue 19 hook
        try (RequestsJsonlWriter jsonl = new RequestsJsonlWriter(runDir.resolve("requests.jsonl"), runStart);
             ProgressSink progress = new ProgressSink(err, metrics, plan.label(), plan.number(),
                     ProgressSink.stderrIsTerminal(), options.logEveryNQuery);
             RecordSink stored = store.pointSink(info, runDir, runStart)) {
            RecordSink shown = multiTurn != null ? MultiTurnPerf.conversationProgress(progress) : progress;
            List<RecordSink> sinks = new ArrayList<>(List.of(metrics, jsonl, promptLengths, sweepPromptLengths, shown, stored));
            if (progressFile != null) {
                sinks.add(multiTurn != null ? MultiTurnPerf.conversationProgress(progressFile) : progressFile);
            }
            try {
                outcome = multiTurn != null ? multiTurn.run(activeClient, stop, plan, sinks, seed)
                        : runner.run(plan, requests, sinks, seed);
            } catch (RunFailedException e) {
                failure = e; // the sinks hold every request that ran: the point's partial report follows
                outcome = new RunOutcome(metrics.total(), true, false);
            }
        } catch (UncheckedIOException e) {
            // requests.jsonl could not be written (disk full, permissions; the writer reports it when closed): the
            // other sinks hold every request, so the report follows and the run stops here with exit 1
            failure = new UncheckedIOException(e.getMessage() + ": " + e.getCause().getMessage(), e.getCause());
            if (outcome == null) outcome = new RunOutcome(metrics.total(), true, false);
        }
        SelfCheckReport check = selfCheck.stop();
        checks.add(check);
        if (check.bottleneck()) err.println("[" + plan.label() + "] " + check.warningLine());
        if (outcome.hitDuration()) {
            err.println("[" + plan.label() + "] --duration reached after " + outcome.sent() + " requests");
        }
        RunResult result = metrics.result(info);
        Map<String, Object> extraKeys = new LinkedHashMap<>(check.summaryKeys());
        extraKeys.putAll(promptLengths.summaryKeys());
        if (serverCounted != null && firstPoint) extraKeys.putAll(serverCounted.summaryKeys()); // its prompts were sampled
        extraKeys.putAll(serverHook.finish(serverScrape, runDir, result, store)); // issue 19 hook
        extraKeys.putAll(cancels.summaryKeys()); // issue 19 hook
        store.pointFinished(result, extraKeys);
        EvalscopeFiles.write(runDir, result, extraKeys);
        return result;
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

    /**
     * --headers, then the URL's user info as Basic authorization (as evalscope's HTTP client, aiohttp, sends it)
     * unless an Authorization header is given, then the API key (which wins).
     */
    private Map<String, String> requestHeaders(PerfSettings s, String url) {
        Map<String, String> headers = new LinkedHashMap<>(s.headers());
        String userInfo = URI.create(url).getUserInfo();
        boolean authorizationGiven = headers.keySet().stream().anyMatch(h -> h.equalsIgnoreCase("Authorization"));
        if (userInfo != null && !authorizationGiven) {
            headers.put("Authorization", "Basic " + java.util.Base64.getEncoder()
                    .encodeToString(userInfo.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        if (s.apiKey() != null && !s.apiKey().isEmpty()) headers.put("Authorization", "Bearer " + s.apiKey());
        return headers;
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
        info.put("API", s.format() == io.unibench.client.ApiFormat.CHAT ? "openai chat completions" : "openai completions");
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

    private static Duration seconds(Double s) {
        return s == null ? null : Duration.ofNanos((long) (s * 1e9));
    }
}
