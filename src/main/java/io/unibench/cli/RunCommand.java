package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;
import io.unibench.client.ClientWarmup;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.engine.spec.SpecParts;
import io.unibench.scenario.ScenarioSpec;
import io.unibench.metrics.LevelName;
import io.unibench.report.scenario.ReportFiles;
import io.unibench.report.scenario.ScenarioReport;
import io.unibench.report.scenario.ScenarioResults;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.LoadsText;
import io.unibench.scenario.ScenarioFile;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredRun;
import io.unibench.web.ReportPage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code unibench run --config bench.yaml}: the scenario file workflow (providers, ramp, comparison, cost); and
 * {@code unibench run spec.json}: a run spec ({@code perf --dry-run}'s, told apart by {@code spec_version}) run as
 * {@code perf} runs it ({@link PerfRun}).
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        exitCodeListHeading = Main.EXIT_CODES_HEADING,
        exitCodeList = {Main.EXIT_CODE_0, Main.EXIT_CODE_1, Main.EXIT_CODE_2, Main.EXIT_CODE_3, Main.EXIT_CODE_5,
                Main.EXIT_CODE_130},
        description = {"Run a scenario file: every provider × scenario × concurrency level, then a provider comparison.",
                "The file format is in docs/scenarios.md and docs/reference/scenario-schema.md; examples in examples/.",
                "A run spec (JSON or YAML with \"spec_version\", as `perf --dry-run` prints it) runs as perf runs it."})
public final class RunCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "the scenario file (YAML), or a run spec")
    Path config;

    @picocli.CommandLine.Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
            description = "the scenario file or run spec (instead of --config)")
    Path file;

    @Option(names = "--report", split = ",", paramLabel = "FORMAT",
            description = "extra report files: ${COMPLETION-CANDIDATES} (comma-separated or repeated); default: none")
    List<ReportFiles.Format> report = new ArrayList<>();

    @Option(names = "--outputs-dir", paramLabel = "DIR", description = "output root (default: ${DEFAULT-VALUE})")
    String outputsDir = "outputs";

    @Option(names = "--no-timestamp", description = "write to OUTPUTS/NAME/ instead of OUTPUTS/TIMESTAMP/NAME/")
    boolean noTimestamp;

    @Option(names = "--check", description = "validate the file and exit without sending anything")
    boolean checkOnly;

    @Option(names = "--dry-run", description = "print the run's spec (JSON: targets, workloads, points, outputs; keys "
            + "by reference) on stdout and exit: nothing is sent, nothing is written")
    boolean dryRun;

    @Mixin
    ServerMetricsOption serverMetrics = new ServerMetricsOption(); // --server-metrics URL|off

    @Mixin
    HistoryOptions history = new HistoryOptions();

    @Mixin
    ShardOptions shard = new ShardOptions(); // --shard I/N --run-group G: one shard of a sharded run (issue 21)

    @Option(names = "--max-error-rate", paramLabel = "PCT", description = "exit 3 when a level of a provider and "
            + "scenario failed more than PCT percent of its requests (CI gates; overrides the file's max_error_rate); a "
            + "run in which no request succeeded exits 3 whatever this is (default: the file's, else no limit)")
    Double maxErrorRate;

    @Option(names = "--no-client-warmup", description = "skip the client's warm-up before each provider's first "
            + "level: a bounded run of its own request path (at most 600 requests, 1 s) against an in-process loopback "
            + "responder, nothing sent to the provider, its time printed (default: warm up)")
    boolean noClientWarmup;

    @Spec
    CommandSpec spec;

    private Map<String, String> environment = System.getenv();
    private boolean installSignalHandler = true;
    private volatile SessionRunner session;
    private Thread hook; // the interrupt hook of the running session, removed once its report is written
    private ScenarioResults lastResults;

    /** For tests: the environment to read API keys from, and no JVM shutdown hook. */
    RunCommand forTest(Map<String, String> env) {
        this.environment = env;
        this.installSignalHandler = false;
        return this;
    }

    /** The results of the last run (tests). */
    ScenarioResults lastResults() {
        return lastResults;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RunVerdict.checkedLimit(maxErrorRate, "--max-error-rate");
        if ((file == null) == (config == null)) {
            throw new BadInputException(file == null ? "run: give the file (run FILE, or --config FILE)"
                    : "run " + file + " and --config " + config + ": give one file");
        }
        if (config == null) config = file;
        com.fasterxml.jackson.databind.JsonNode specDoc = specDocument(config);
        if (specDoc != null) return runSpec(RunSpecJson.fromTree(specDoc, config.toString()), out, err);
        String text = io.unibench.workload.TextFiles.readUtf8(config.toString(), config.toString());
        return runDocument(config.toString(), config.getFileName().toString(), text, out, err);
    }

    /**
     * A schedule's round, in this process ({@link CliRoundLauncher}): its document run as {@code run --config} runs a
     * file of that name, recorded in {@code db} with {@code tags}, under {@code outputsDir}. Bad input and an output
     * that cannot be written are thrown, not printed; a run a failure ended leaves it in {@link #lastFailure()}.
     */
    int round(String documentName, String document, String db, List<String> tags, String outputsDir, PrintWriter out,
              PrintWriter err) throws Exception {
        history.store.db = db;
        history.tags = new ArrayList<>(tags);
        this.outputsDir = outputsDir;
        return runDocument(documentName, documentName, document, out, err);
    }

    /** What ended the last run early (a bug, an output that could not be written); null when nothing did. */
    RuntimeException lastFailure() {
        return lastFailure;
    }

    private RuntimeException lastFailure;

    /** A scenario document ({@code fileName}: its name, which names its runs; {@code where}: how errors name it). */
    private int runDocument(String where, String fileName, String text, PrintWriter out, PrintWriter err)
            throws Exception {
        BenchConfig bench = ScenarioFile.parse(fileName, text, environment);
        // alerts: and notify: are checked by the validator schedule add uses (a run does not fire them; a file
        // that one command calls valid, the other does not refuse)
        io.unibench.schedule.AlertsDocument.parse(fileName, text);
        ShardRun shards = ShardRun.forScenario(shard, history, bench, environment);
        Double errorLimit = maxErrorRate != null ? maxErrorRate : bench.maxErrorRatePercent();
        if (checkOnly) {
            List<String> loads = LoadsText.lines(bench);
            out.println(where + ": valid (" + bench.providers().size() + " provider(s), " + bench.scenarios().size()
                    + " scenario(s), " + loads.getFirst() + ")");
            loads.stream().skip(1).forEach(line -> out.println("  " + line));
            return 0;
        }
        Path root = outputRoot(bench);
        if (dryRun) {
            RunSpec described = ScenarioSpec.of(bench, ScenarioTargets.described(bench), root,
                    new RunSpec.History(!history.noDb, history.store.db, history.tags), shards.shard());
            out.println(RunSpecJson.toJson(described));
            return 0;
        }
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw BadInputException.io("--outputs-dir", root, e);
        }
        CountDownLatch reportWritten = new CountDownLatch(1);
        ServerMetricsHook server = new ServerMetricsHook(serverMetrics, err); // --server-metrics
        hook = null;
        boolean html = report.contains(ReportFiles.Format.html);
        Path scratch = null; // --no-db --report html: the stored runs the report draws, deleted after it
        ScenarioSession.Ran ran = null;
        HistoryRecorder[] recorded = new HistoryRecorder[1]; // closed by the session: the HTML report reads its runs
        boolean failed = true; // a failure ended the run: the session's, or a report file's (the shard's row says so)
        try {
            if (html && history.noDb) scratch = Files.createTempDirectory("unibench-report");
            RunHistory runHistory = scratch == null ? RunHistory.open(history, environment, err)
                    : RunHistory.scratch(StoreLocation.sqlite(scratch.resolve("report.db")),
                    new PrintWriter(java.io.Writer.nullWriter()));
            ran = ScenarioSession.run(bench, root,
                    new RunSpec.History(!history.noDb, history.store.db, history.tags), environment,
                    new ScenarioSession.Wiring(spec -> recorded[0] = new HistoryRecorder(runHistory,
                            HistoryRecorder.scenarioStart(history.tags, fileName, text, bench, spec)), server, null, session -> {
                                this.session = session;
                                // before its first point: the client's own request path warmed, nothing to the target
                                session.warmUpClient(noClientWarmup ? null : ClientWarmup.Budget.DEFAULT);
                                if (installSignalHandler) hook = installHook(reportWritten);
                            }, shards.shard(), (point, stop) -> shards.awaitPoint(point, stop, err)), err);
            ScenarioResults results = ScenarioNames.results(bench, ran);
            lastResults = results;
            String summary = ScenarioReport.render(results);
            out.println(summary);
            out.print(server.table()); // the servers' own metrics per level, when they had any
            // the report files are written once every provider's run has ended: one that cannot be written ends
            // every provider's stored run as failed, before the HTML report draws them
            RuntimeException reportFailure = Main.firstFailure(null, () -> OutputFailedException
                    .writeWhole(root.resolve("scenario_summary.txt"), summary.getBytes(StandardCharsets.UTF_8)));
            if (reportFailure != null) recorded[0].reportFailed(reportFailure);
            String page = html ? htmlReport(runHistory, recorded[0], bench, results) : null;
            List<Path> written = new ArrayList<>();
            reportFailure = Main.firstFailure(reportFailure,
                    () -> written.addAll(ReportFiles.write(root, results, report, page)));
            if (reportFailure != null) recorded[0].reportFailed(reportFailure);
            RuntimeException failure = ran.session().failure() != null ? ran.session().failure() : reportFailure;
            failed = failure != null;
            for (Path f : written) out.println("Report: " + f.toAbsolutePath());
            out.println("Results: " + root.toAbsolutePath());
            lastFailure = failure;
            if (failure != null) {
                err.println(Main.failureLine(failure));
                return Main.exitCode(failure);
            }
            String limitStop = ran.session().stopReason(); // a budget: the run's planned end, judged as finished
            if (limitStop != null) err.println("Stopped: " + limitStop + "; the report above is partial.");
            return RunVerdict.exitCode(points(results), errorLimit, results.stopped() && limitStop == null, err);
        } finally {
            reportWritten.countDown();
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException exiting) {
                    // the JVM is exiting; the hook found the report written
                }
            }
            if (recorded[0] != null) shards.finish(recorded[0].runId(), ran == null ? List.of() : ran.session().checks(),
                    session != null && session.stopped(), failed, err);
            if (scratch != null) deleteScratch(scratch);
        }
    }

    /** The file's document when it is a run spec ({@code spec_version}); null for anything else. */
    private static com.fasterxml.jackson.databind.JsonNode specDocument(Path file) {
        com.fasterxml.jackson.databind.JsonNode doc;
        try {
            doc = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                    .readTree(file.toFile());
        } catch (IOException | RuntimeException e) {
            return null; // the scenario loader says what is wrong with the file
        }
        return RunSpecJson.isSpec(doc) ? doc : null;
    }

    /**
     * A spec file: run as {@code perf} runs its spec. Its outputs are the spec's, so the flags that would set them are
     * refused; {@code --no-db}, {@code --db} and {@code --tag} override its history. {@code --shard I/N --run-group G}
     * runs shard I of the whole spec (sliced as {@code perf --shard} slices), and a spec that is already a shard's
     * ({@code /shard}) runs with {@code --run-group G} ({@link ShardRun#forSpec}).
     */
    private int runSpec(RunSpec file, PrintWriter out, PrintWriter err) throws Exception {
        String where = config.toString();
        var parsed = spec.commandLine().getParseResult();
        for (String flag : List.of("--outputs-dir", "--no-timestamp", "--report")) {
            if (parsed.hasMatchedOption(flag)) {
                throw new BadInputException(flag + ": " + where + " is a run spec, whose outputs are its own (/outputs)");
            }
        }
        RunSpec.History h = file.history();
        ShardRun[] shards = {ShardRun.NONE};
        RunSpec run = ShardRun.forSpec(shard, file.withHistory(new RunSpec.History(h.enabled() && !history.noDb,
                history.store.db != null ? history.store.db : h.db(), history.tags.isEmpty() ? h.tags() : history.tags)),
                environment, where, shards);
        List<RunSpec> parts = SpecParts.of(run); // each target × workload, one after another
        for (RunSpec part : parts) PerfRun.check(part, where);
        if (checkOnly) {
            out.println(where + ": valid run spec (" + (run.sla().size() == 1 ? "an SLA search"
                    : run.sla().size() > 1 ? run.sla().size() + " SLA searches"
                    : run.points().size() + " point(s)") + (parts.size() > 1 ? " in " + parts.size() + " target × "
                    + "workload runs" : "") + ")");
            return 0;
        }
        if (dryRun) {
            out.println(RunSpecJson.toJson(run));
            return 0;
        }
        int exit = 0;
        for (RunSpec part : parts) {
            if (parts.size() > 1) {
                err.println("Run " + part.targets().getFirst().name() + " × " + part.workloads().getFirst().name()
                        + ": " + (part.sla().isEmpty() ? part.points().size() + " point(s)" : "an SLA search") + " into "
                        + part.outputs().root());
            }
            PerfRun perf = new PerfRun(new PerfRun.Process(environment, installSignalHandler, false, !noClientWarmup,
                    serverMetrics, maxErrorRate, shards[0],
                    e -> BadInputException.io(where + ": /outputs/root", part.outputs().root(), e), null),
                    new io.unibench.engine.StopSignal());
            int code = perf.run(part, out, err);
            if (exit == 0) exit = code;
            // a stop (Ctrl-C, a budget) or a failure ends the run; an error gate's 3 lets the next part run
            if (perf.stopped() || perf.failure() != null) break;
        }
        return exit;
    }

    /** {@code scenario_report.html}: each provider's stored run drawn as the platform's run page draws it. */
    private static String htmlReport(RunHistory history, HistoryRecorder recorded, BenchConfig bench,
                                     ScenarioResults results) throws SQLException {
        try (RunStore store = RunStore.open(history.location())) {
            List<StoredRun> runs = new ArrayList<>();
            for (int t = 0; t < bench.providers().size(); t++) {
                String id = recorded.runId(t);
                if (id != null) runs.add(store.run(id));
            }
            return ReportPage.scenario(store, runs, results);
        }
    }

    private static void deleteScratch(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.deleteIfExists(f);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a temporary folder left behind is the OS's to clear; the report is written
        }
    }

    /** Every level of every series, named provider / scenario / level ({@code concurrency 8}, {@code rate 10 req/s}). */
    private static Map<String, io.unibench.metrics.RunResult> points(ScenarioResults results) {
        Map<String, io.unibench.metrics.RunResult> m = new LinkedHashMap<>();
        for (ScenarioResults.Series s : results.series()) {
            for (ScenarioResults.Level l : s.levels()) {
                m.put(s.provider().name() + " / " + s.scenario().name() + " / " + LevelName.display(l.name()), l.result());
            }
        }
        return m;
    }

    private Thread installHook(CountDownLatch reportWritten) {
        Thread hook = new Thread(() -> {
            SessionRunner s = session;
            if (s != null) s.stop();
            try {
                reportWritten.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "unibench-run-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    private Path outputRoot(BenchConfig bench) {
        String name = bench.name().replaceAll("[<>:\"|?*\\\\/\\x00]", "_");
        Path base = Path.of(outputsDir);
        if (noTimestamp) return base.resolve(name);
        return base.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"))).resolve(name);
    }
}
