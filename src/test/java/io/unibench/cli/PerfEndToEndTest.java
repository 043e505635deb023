package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The real CLI against the simulator on a loopback port: files, numbers, sweep, duration, interrupt. */
class PerfEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TTFT_MS = 40;
    private static final double ITL_MS = 10;
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startSimulator() {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(TTFT_MS).withPrefillMsPerToken(0).withItlMs(ITL_MS));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private String url() {
        return sim.baseUrl() + "/v1/chat/completions";
    }

    private List<String> args(String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", url(), "--model", "m", "--outputs-dir",
                out.toString(), "--no-timestamp", "--name", "t", "--sleep-interval", "0"));
        a.addAll(List.of(extra));
        return a;
    }

    private static JsonNode read(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    /** The simulator's own TTFT and ITL histograms so far: {ttft sum s, ttft count, itl sum s, itl count}. */
    private static double[] simMeans() {
        String text = sim.metricsText();
        return new double[] {metric(text, "vllm:time_to_first_token_seconds_sum"),
                metric(text, "vllm:time_to_first_token_seconds_count"),
                metric(text, "vllm:inter_token_latency_seconds_sum"), metric(text, "vllm:inter_token_latency_seconds_count")};
    }

    private static double metric(String prometheus, String name) {
        for (String line : prometheus.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " not in\n" + prometheus);
    }

    @Test
    void measuredTtftAndTpotMatchTheSimulatorsConfiguredLatencies() throws IOException {
        double[] simBefore = simMeans();
        CliHarness.Run run = CliHarness.main(args("--parallel", "4", "--number", "40", "--max-tokens", "20",
                "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "64", "--max-prompt-length", "64",
                "--api-key", "sk-test-secret-123456", "--no-test-connection").toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        double[] simAfter = simMeans();
        Path dir = out.resolve("t").resolve("parallel_4_number_40");
        JsonNode summary = read(dir.resolve("benchmark_summary.json"));
        assertThat(summary.get("Total Requests").asLong()).isEqualTo(40);
        assertThat(summary.get("Success Requests").asLong()).isEqualTo(40);
        assertThat(summary.get("Avg Output Tokens").asDouble()).isEqualTo(20.0);

        // What the client measured against what the simulator itself did for these 40 requests (its own TTFT and
        // inter-token histograms, from arrival and between steps: sum / count over this run). The simulator's timers
        // fire at or after their deadline, so its figures are at least the configured ones; scheduling delay on a
        // shared machine lands in both. The client adds only what happens between its start stamp and the server's
        // arrival, and between the server's step and the client's read: loopback and the event loops, a few ms at
        // most on average. ITL and TPOT span the same steps on both sides, so they agree to well under a ms.
        double serverTtftMs = (simAfter[0] - simBefore[0]) / (simAfter[1] - simBefore[1]) * 1000;
        double serverItlMs = (simAfter[2] - simBefore[2]) / (simAfter[3] - simBefore[3]) * 1000;
        assertThat(simAfter[1] - simBefore[1]).isEqualTo(40); // exactly this run's requests
        assertThat(serverTtftMs).isGreaterThanOrEqualTo(TTFT_MS - 0.5);
        assertThat(serverItlMs).isGreaterThanOrEqualTo(ITL_MS - 0.5);
        assertThat(summary.get("Avg TTFT (ms)").asDouble() - serverTtftMs).isBetween(-0.5, 15.0);
        assertThat(summary.get("Avg ITL (ms)").asDouble()).isCloseTo(serverItlMs, org.assertj.core.api.Assertions.within(1.0));
        assertThat(summary.get("Avg TPOT (ms)").asDouble()).isCloseTo(serverItlMs, org.assertj.core.api.Assertions.within(1.0));

        for (String f : List.of("benchmark_args.json", "benchmark_summary.json", "benchmark_percentile.json",
                "workload_throughput.json", "workload_timeline.json", "requests.jsonl")) {
            assertThat(dir.resolve(f)).exists();
        }
        assertThat(Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize(40);
        assertThat(out.resolve("t").resolve("performance_summary.txt")).content()
                .contains("Performance Overview").contains("Per-Request Metrics");
        assertThat(read(dir.resolve("benchmark_args.json")).get("api_key").asText()).isEqualTo("sk-***456");
        try (Stream<Path> files = Files.walk(out)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f)).as(f.toString()).doesNotContain("sk-test-secret-123456");
            }
        }
        assertThat(run.out() + run.err()).doesNotContain("sk-test-secret-123456");
    }

    @Test
    void sweepRunsEachPairInOrderAndAdvancesTheDatasetOffset() throws IOException {
        CliHarness.Run run = CliHarness.main(args("--parallel", "1", "2", "--number", "3", "5", "--max-tokens", "4",
                "--min-prompt-length", "16", "--max-prompt-length", "32").toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        Path root = out.resolve("t");
        assertThat(read(root.resolve("parallel_1_number_3/benchmark_summary.json")).get("Total Requests").asLong()).isEqualTo(3);
        assertThat(read(root.resolve("parallel_2_number_5/benchmark_summary.json")).get("Total Requests").asLong()).isEqualTo(5);
        assertThat(read(root.resolve("parallel_1_number_3/benchmark_args.json")).get("dataset_offset").asLong()).isZero();
        assertThat(read(root.resolve("parallel_2_number_5/benchmark_args.json")).get("dataset_offset").asLong()).isEqualTo(3);
        assertThat(run.out()).contains("Performance Overview");
    }

    @Test
    void durationStopsDispatchingAndLetsInFlightRequestsFinish() throws IOException {
        CliHarness.Run run = CliHarness.main(args("--parallel", "4", "--number", "1000000", "--duration", "0.5",
                "--max-tokens", "3", "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "8",
                "--max-prompt-length", "8").toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        Path dir = out.resolve("t/parallel_4_number_1000000");
        JsonNode summary = read(dir.resolve("benchmark_summary.json"));
        assertThat(summary.get("Failed Requests").asLong()).isZero();
        assertThat(run.err()).contains("--duration reached");
        // From the records' own moments: no request started 0.5 s or more after the first (the deadline is set just
        // before it), and the workers kept sending until the deadline: a worker stops only when it finds the
        // deadline passed after a reply, so the last reply ended at most a recording gap before it (0.1 s allowed for
        // that and the workers' start).
        List<JsonNode> records = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) records.add(JSON.readTree(line));
        assertThat(records).hasSize((int) summary.get("Total Requests").asLong()).hasSizeGreaterThan(4);
        double first = records.stream().mapToDouble(r -> r.get("start_s").asDouble()).min().orElseThrow();
        assertThat(records).allMatch(r -> r.get("start_s").asDouble() - first < 0.5);
        double lastEnd = records.stream().mapToDouble(r -> r.get("end_s").asDouble()).max().orElseThrow();
        assertThat(lastEnd - first).isGreaterThan(0.4);
    }

    @Test
    void stopWritesAPartialReportWithCancelledRequestsRecorded() throws Exception {
        stopMidRunAndCheckThePartialReport("parallel_4_number_100000");
    }

    /** The open loop: no thread waits for a request, so the cancelled ones reach the report through the recorder. */
    @Test
    void stopInTheOpenLoopRecordsTheCancelledRequestsToo() throws Exception {
        stopMidRunAndCheckThePartialReport("parallel_4_number_100000", "--rate", "400");
    }

    private void stopMidRunAndCheckThePartialReport(String point, String... extra) throws Exception {
        PerfCommand command = new PerfCommand();
        List<String> all = new ArrayList<>(args("--parallel", "4", "--number", "100000", "--max-tokens", "50",
                "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "8", "--max-prompt-length", "8"));
        all.addAll(List.of(extra));
        String[] a = all.subList(1, all.size()).toArray(String[]::new); // without "perf": the command is given
        CompletableFuture<CliHarness.Run> running = CompletableFuture.supplyAsync(() -> CliHarness.perf(command, a));
        Path jsonl = out.resolve("t/" + point + "/requests.jsonl");
        // Wait (at most 30 s) until some requests are on disk, then interrupt as Ctrl-C would.
        for (int i = 0; i < 3000 && lines(jsonl) < 8 && !running.isDone(); i++) {
            LockSupport.parkNanos(10_000_000L);
        }
        command.stop();
        CliHarness.Run run = running.get();
        assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_INTERRUPTED);
        assertThat(out.resolve("t/performance_summary.txt")).exists();
        JsonNode summary = read(out.resolve("t/" + point + "/benchmark_summary.json"));
        List<String> records = Files.readAllLines(jsonl);
        assertThat(summary.get("Total Requests").asLong()).isEqualTo(records.size());
        long cancelled = records.stream().filter(r -> r.contains("\"cancelled\"")).count();
        assertThat(cancelled).isPositive();
        assertThat(summary.get("Total Requests").asLong()).isLessThan(100_000);
        // the cancelled requests are shown as such, not as failures that lower the success rate
        assertThat(summary.get("Cancelled Requests").asLong()).isEqualTo(cancelled);
        assertThat(summary.get("Failed Requests").asLong()).isZero();
        assertThat(summary.get("Success Requests").asLong() + cancelled).isEqualTo(records.size());
        assertThat(summary.get("Success Rate (%)").asDouble()).isEqualTo(100.0);
        assertThat(run.out()).contains(cancelled + " requests in flight were cancelled by the stop: not failures");
    }

    @Test
    void rateRunsAnOpenLoopScheduleAndReportsQueueingDelay() throws IOException {
        CliHarness.Run run = CliHarness.main(args("--parallel", "2", "--number", "12", "--rate", "50",
                "--max-tokens", "3", "--min-prompt-length", "8", "--max-prompt-length", "8").toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode summary = read(out.resolve("t/parallel_2_number_12/benchmark_summary.json"));
        assertThat(summary.get("Request Rate (req/s)").asDouble()).isEqualTo(50.0);
        assertThat(summary.get("Success Requests").asLong()).isEqualTo(12);
        assertThat(summary.get("Avg Queue Delay (ms)").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(summary.get("Avg Latency incl. Queue (s)").asDouble())
                .isGreaterThanOrEqualTo(summary.get("Avg Latency (s)").asDouble());
        assertThat(Files.readString(out.resolve("t/parallel_2_number_12/requests.jsonl")))
                .doesNotContain("\"scheduled_s\":null");
    }

    @Test
    void warmupRequestsAreSentButNotReported() throws IOException {
        SimServer own = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1));
        try {
            CliHarness.Run run = CliHarness.main("perf", "--url", own.baseUrl() + "/v1", "--model", "m",
                    "--outputs-dir", out.toString(), "--no-timestamp", "--name", "w", "--parallel", "2",
                    "--number", "5", "--warmup-num", "3", "--max-tokens", "2", "--min-prompt-length", "8",
                    "--max-prompt-length", "8");
            assertThat(run.exit()).as(run.err()).isZero();
            JsonNode summary = read(out.resolve("w/parallel_2_number_5/benchmark_summary.json"));
            assertThat(summary.get("Total Requests").asLong()).isEqualTo(5);
            assertThat(Files.readAllLines(out.resolve("w/parallel_2_number_5/requests.jsonl"))).hasSize(5);
            // the server saw the connection test, 3 warmup and 5 measured requests
            assertThat(own.stats().requestsReceived()).isEqualTo(1 + 3 + 5);
        } finally {
            own.close();
        }
    }

    @Test
    void theClientWarmUpIsShownAndSendsNothingToTheTarget() throws IOException {
        try (SimServer own = SimServer.start(SimConfig.defaults().withTtftMs(0).withPrefillMsPerToken(0).withItlMs(0))) {
            CliHarness.Run run = CliHarness.main(warmupRun(own, "cw"));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.err()).containsPattern("client warm-up: \\d+ ms, \\d+ requests to an in-process loopback "
                    + "responder, none to the target");
            // the connection test and the 3 measured requests; the warm-up's went to the loopback responder
            assertThat(own.stats().requestsReceived()).isEqualTo(1 + 3);

            CliHarness.Run skipped = CliHarness.main(Stream.concat(Stream.of(warmupRun(own, "nw")),
                    Stream.of("--no-client-warmup")).toArray(String[]::new));
            assertThat(skipped.exit()).as(skipped.err()).isZero();
            assertThat(skipped.err()).doesNotContain("client warm-up");
            assertThat(own.stats().requestsReceived()).isEqualTo(2 * (1 + 3));
        }
    }

    private String[] warmupRun(SimServer target, String name) {
        return new String[] {"perf", "--url", target.baseUrl() + "/v1", "--model", "m", "--outputs-dir", out.toString(),
                "--no-timestamp", "--name", name, "--parallel", "1", "--number", "3", "--max-tokens", "2",
                "--prompt", "hi"};
    }

    @Test
    void nonStreamedAndLegacyCompletionsRequestsAreMeasured() throws IOException {
        CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/completions", "--model", "m",
                "--outputs-dir", out.toString(), "--no-timestamp", "--name", "c", "--parallel", "2", "--number",
                "4", "--no-stream", "--max-tokens", "5", "--extra-args", "{\"ignore_eos\": true}",
                "--min-prompt-length", "8", "--max-prompt-length", "8");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode summary = read(out.resolve("c/parallel_2_number_4/benchmark_summary.json"));
        assertThat(summary.get("Success Requests").asLong()).isEqualTo(4);
        assertThat(summary.get("Non-Stream Requests").asLong()).isEqualTo(4);
        assertThat(summary.get("Avg Output Tokens").asDouble()).isEqualTo(5.0);
        // non-streamed: the whole reply arrives at once, after TTFT + 4 inter-token gaps of the simulator
        assertThat(summary.get("Avg Latency (s)").asDouble()).isGreaterThanOrEqualTo((TTFT_MS + 4 * ITL_MS - 1) / 1000);
    }

    @Test
    void failedRequestsAreRecordedWithTheirErrorClassAndBrokenDown() throws IOException {
        // min_tokens above max_tokens is refused by the simulator with HTTP 400 for every measured request
        // (the connection test sends no extra args, so it passes)
        CliHarness.Run run = CliHarness.main(args("--parallel", "2", "--number", "6", "--max-tokens", "4",
                "--extra-args", "{\"min_tokens\": 50}", "--min-prompt-length", "8", "--max-prompt-length", "8")
                .toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isEqualTo(3); // no request succeeded
        JsonNode summary = read(out.resolve("t/parallel_2_number_6/benchmark_summary.json"));
        assertThat(summary.get("Total Requests").asLong()).isEqualTo(6);
        assertThat(summary.get("Failed Requests").asLong()).isEqualTo(6);
        List<String> records = Files.readAllLines(out.resolve("t/parallel_2_number_6/requests.jsonl"));
        assertThat(records).hasSize(6).allMatch(r -> r.contains("\"error_class\":\"http_400\""));
        assertThat(run.out()).contains("Errors").contains("http_400").contains("min_tokens");
    }

    private static long lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
