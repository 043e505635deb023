package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;
import io.unibench.engine.selfcheck.Calibration;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code unibench calibrate}: the client's own ceiling on this machine. One {@code perf} point (the same flags →
 * {@code RunSpec} → {@code PerfRun} → session runner path, nothing of its own) of streamed requests at
 * {@code --parallel} (256) for {@code --duration} (10 s) against an embedded simulator that costs nothing per token
 * (no prefill, 1 ms decode steps, 16-token replies): what limits it is the client. Its throughput, CPU per 1,000
 * requests and event-loop lag, from the point's {@code benchmark_summary.json} and self-check, are stored with the
 * environment in {@link Calibration}'s file.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure this machine's client ceiling: streamed requests per second at --parallel against a "
                + "simulator that costs nothing, the CPU per 1,000 requests and the event-loop lag; stored in "
                + "$UNIBENCH_HOME/calibration.json (else ~/.unibench/calibration.json)."})
public final class CalibrateCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Tokens of each reply: short, so the requests, not the tokens, are what is counted. */
    static final int REPLY_TOKENS = 16;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "10", description = "How long to measure, seconds "
            + "(0 < S <= 600). Default: ${DEFAULT-VALUE}.")
    double durationSeconds;

    @Option(names = "--parallel", paramLabel = "P", defaultValue = "256", description = "Streamed requests in flight. "
            + "Default: ${DEFAULT-VALUE}.")
    int parallel;

    @Option(names = "--number", paramLabel = "N", description = "Most requests (a bound besides --duration). "
            + "Default: none.")
    Long number;

    @Option(names = "--file", paramLabel = "FILE", description = "Where to store the result. Default: "
            + "$UNIBENCH_HOME/calibration.json, else ~/.unibench/calibration.json.")
    Path file;

    @Spec
    CommandSpec spec;

    private Map<String, String> environment = System.getenv();

    /** For tests: the environment (UNIBENCH_HOME, HOME) the default file is found in. */
    CalibrateCommand forTest(Map<String, String> env) {
        this.environment = env;
        return this;
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(durationSeconds > 0 && durationSeconds <= 600)) {
            throw new BadInputException("--duration " + durationSeconds + ": expected 0 < S <= 600");
        }
        if (parallel < 1) throw new BadInputException("--parallel " + parallel + ": must be >= 1");
        if (number != null && number < 1) throw new BadInputException("--number " + number + ": must be >= 1");
        Path target = file != null ? file : Calibration.defaultFile(environment);
        Path work = Files.createTempDirectory("unibench-calibrate");
        try {
            SimConfig fast = SimConfig.defaults().withModel("calibrate").withTtftMs(0).withPrefillMsPerToken(0)
                    .withItlMs(1).with(Map.of("decode-ms-per-seq", 0.0, "max-num-seqs", Math.max(256, parallel)));
            int exit;
            try (SimServer sim = SimServer.start(fast)) {
                long n = number != null ? number : 100_000_000L; // --duration ends it
                String[] args = {"perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model", "calibrate",
                        "--parallel", Integer.toString(parallel), "--number", Long.toString(n),
                        "--duration", Double.toString(durationSeconds), "--outputs-dir", work.toString(),
                        "--no-timestamp", "--name", "calibrate", "--max-tokens", Integer.toString(REPLY_TOKENS),
                        "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "32",
                        "--max-prompt-length", "32", "--sleep-interval", "0", "--no-db", "--server-metrics", "off"};
                exit = Main.execute(args, new PrintWriter(Writer.nullWriter()), err);
            }
            if (exit != 0) {
                err.println("unibench: calibrate: the measuring run ended with exit " + exit + "; nothing stored");
                return exit;
            }
            Calibration c = calibration(summary(work));
            c.write(target);
            out.println(String.format(Locale.ROOT, "Client ceiling on this machine (%d cores, %s): %.0f streamed "
                            + "req/s at %d in flight; %.2f CPU-s per 1,000 requests (client and simulator, %.0f%% of "
                            + "the cores); event-loop lag p99 %.2f ms; %d requests in %.1f s.",
                    c.cores(), c.jvm(), c.requestsPerSecond(), c.concurrency(), c.cpuSecondsPer1000(),
                    c.cpuPercentOfCores(), c.eventLoopLagP99Ms(), c.requests(), c.durationSeconds()));
            out.println(String.format(Locale.ROOT, "A point asking more than %.0f%% of it (%.0f req/s) measures the "
                    + "client as well as the server. Stored in %s", Calibration.DOCUMENTED_SHARE * 100,
                    c.requestsPerSecond() * Calibration.DOCUMENTED_SHARE, target));
            return 0;
        } finally {
            deleteTree(work);
        }
    }

    /** The measuring point's {@code benchmark_summary.json}. */
    private static JsonNode summary(Path work) throws IOException {
        try (Stream<Path> files = Files.walk(work)) {
            Path found = files.filter(p -> p.getFileName().toString().equals("benchmark_summary.json")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the measuring run wrote no benchmark_summary.json"));
            return JSON.readTree(found.toFile());
        }
    }

    /** The stored figures from the point's summary and self-check keys. */
    static Calibration calibration(JsonNode s) {
        double rps = s.path("Req Throughput (req/s)").asDouble(Double.NaN);
        int cores = s.path("Client Cores").asInt(Runtime.getRuntime().availableProcessors());
        double cpuPercent = s.path("Client CPU Avg (%)").asDouble(Double.NaN);
        // CPU-seconds per second over the self-check's window, over requests per second
        double cpuPer1000 = cpuPercent / 100 * cores / rps * 1000;
        return new Calibration(rps, cpuPer1000, cpuPercent, s.path("Event Loop Lag P99 (ms)").asDouble(Double.NaN),
                s.path("Concurrency").asInt(), s.path("Success Requests").asLong(),
                s.path("Test Duration (s)").asDouble(Double.NaN), cores,
                System.getProperty("java.vm.name") + " " + Runtime.version(),
                System.getProperty("os.name") + " " + System.getProperty("os.arch"), Version.current(),
                Instant.now().toString());
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind is not worth failing the calibration for
        }
    }
}
