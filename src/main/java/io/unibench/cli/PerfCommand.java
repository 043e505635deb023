package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.client.TlsOptions;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.tokenizer.Tokenizers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

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

    private final io.unibench.engine.StopSignal stop = new io.unibench.engine.StopSignal();
    private volatile PerfRun running;
    private Map<String, String> environment = System.getenv();
    private boolean installSignalHandler = true;
    private ShardRun shards = ShardRun.NONE; // --shard I/N --run-group G (issue 21)

    @Mixin
    ServerMetricsOption serverMetrics = new ServerMetricsOption(); // --server-metrics URL|off

    @Mixin
    CancelOptions cancel = new CancelOptions(); // --cancel-rate, --cancel-after-ms

    @picocli.CommandLine.Option(names = "--dry-run", description = "Print the run's spec (JSON: targets, workloads, "
            + "points, outputs; the key by reference) on stdout and exit: nothing is sent, nothing is written. "
            + "`unibench run FILE` runs such a file. Default: off (the run is sent).")
    boolean dryRun;

    /** For tests: the environment to read API keys from, and no JVM shutdown hook. */
    PerfCommand forTest(Map<String, String> env) {
        this.environment = env;
        this.installSignalHandler = false;
        return this;
    }

    /** Stops the run as Ctrl-C does: no new requests, in-flight ones cancelled, partial report written. */
    public void stop() {
        stop.stop();
        PerfRun r = running;
        if (r != null) r.stop();
    }

    /** The flags → a {@link RunSpec} → {@link PerfRun}, the execution {@code unibench run FILE} shares. */
    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        evalscopeOnly.check(err);
        shards = ShardRun.prepare(options, environment); // --shard's flags; the spec is sliced below
        PerfSettings s = PerfSettings.resolve(options, environment);
        Double maxErrorRate = RunVerdict.checkedLimit(options.maxErrorRate, "--max-error-rate");
        if (options.serverTokenize < 0) {
            throw new io.unibench.BadInputException("--server-tokenize " + options.serverTokenize + ": expected >= 0");
        }
        checkConversationFlags(options, err);
        TlsOptions tls = PerfSettings.tls(options, s.embeddedSimulator());
        cancel.policy(s.seed()); // checks --cancel-rate and --cancel-after-ms
        RunSpec described = shards.slice(spec(s, tls, outputRoot(s))); // this shard's slice: RunSpec.slice
        PerfRun.check(described, "perf");
        if (dryRun) {
            out.println(RunSpecJson.toJson(described));
            return 0;
        }
        running = new PerfRun(new PerfRun.Process(environment, installSignalHandler, options.debug,
                !options.noClientWarmup, serverMetrics, maxErrorRate, shards,
                e -> BadInputException.io("--outputs-dir", options.outputsDir, e),
                s.defaultLoad() ? reproduceCommand(s) : null), stop);
        return running.run(described, out, err);
    }

    /** The run these flags describe (against the embedded simulator's URL: null, until it runs). */
    private RunSpec spec(PerfSettings s, TlsOptions tls, Path root) {
        RunSpec.Cancels cancels = cancel.rate == null ? null
                : new RunSpec.Cancels(cancel.rate, cancel.afterMs == null ? null : Duration.ofMillis(cancel.afterMs));
        return s.spec(options, s.url(), tls, root.getFileName().toString(), root, environment, io.unibench.engine.Shard.WHOLE, cancels);
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

    /**
     * {@code perf}'s conversation flags, before they become a spec: without {@code --multi-turn} they are errors;
     * {@code --multi-turn-args} is deprecated (a warning on {@code err}).
     */
    private static void checkConversationFlags(PerfOptions o, PrintWriter err) {
        if (!o.multiTurn) {
            for (Map.Entry<String, Object> flag : Map.<String, Object>of("--min-turns", nullToFalse(o.minTurns),
                    "--max-turns", nullToFalse(o.maxTurns), "--rate-mode", nullToFalse(o.rateMode),
                    "--multi-turn-args", nullToFalse(o.multiTurnArgs), "--tool-latency-scale",
                    nullToFalse(o.toolLatencyScale), "--max-traces", nullToFalse(o.maxTraces), "--swe-smith-input",
                    nullToFalse(o.sweSmithInput)).entrySet()) {
                if (!Boolean.FALSE.equals(flag.getValue())) {
                    throw new BadInputException(flag.getKey() + " applies to conversations: add --multi-turn");
                }
            }
            return;
        }
        if (o.prompt != null) throw new BadInputException("--prompt cannot be used with --multi-turn (use a dataset)");
        if (o.multiTurnArgs != null) {
            err.println("Warning: --multi-turn-args is deprecated; use --dataset-args (its keys were added where "
                    + "--dataset-args has none)");
        }
    }

    private static Object nullToFalse(Object v) {
        return v == null ? Boolean.FALSE : v;
    }
}
