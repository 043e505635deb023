package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.FaultKind;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Errors keep the server's words (error_type beside the error class) and the exit status says whether the run's
 * requests succeeded: the real CLI against simulators with injected faults.
 */
class ErrorsAndExitEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private static SimServer sim(FaultKind fault, double rate) {
        SimConfig c = SimConfig.defaults().withTtftMs(1).withItlMs(1).withSeed(7);
        return SimServer.start(c.withFaults(new SimConfig.Faults(Map.of(fault, rate), 0, 0, 2, 1)));
    }

    private CliHarness.Run perf(SimServer sim, int number, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-test-connection",
                "--no-db", "--parallel", "1", "--number", Integer.toString(number), "--max-tokens", "6",
                "--extra-args", "{\"ignore_eos\": true}", "--prompt", "hello there"));
        a.addAll(List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    private List<JsonNode> requests(int number) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("t/parallel_1_number_" + number + "/requests.jsonl"))) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    @Test
    void aRunInWhichNoRequestSucceededExitsThreeAndKeepsTheMidStreamErrorType() throws IOException {
        try (SimServer sim = sim(FaultKind.FAIL_MIDSTREAM, 1.0)) {
            CliHarness.Run run = perf(sim, 4);
            assertThat(run.exit()).as(run.err()).isEqualTo(3);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).containsExactly(
                    "unibench: no request succeeded (4 of 4 failed; see the Errors table)");
        }
        assertThat(requests(4)).hasSize(4).allSatisfy(r -> {
            assertThat(r.get("error_class").asText()).isEqualTo("business_error");
            assertThat(r.get("error_type").asText()).isEqualTo("InternalServerError"); // the SSE error event's type
        });
        String report = Files.readString(out.resolve("t/performance_summary.txt"));
        assertThat(report).contains("Server error type").containsPattern("business_error\\s+│\\s+InternalServerError\\s+│\\s+4\\s");
    }

    @Test
    void anErrorBodysTypeIsKeptBesideItsHttpClass() throws IOException {
        SimConfig.Scheduling small = new SimConfig.Scheduling(256, 8192, 12, 10_000, 60_000, 1, 0.01, 0, true, List.of());
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withScheduling(small))) {
            CliHarness.Run run = perf(sim, 2);
            assertThat(run.exit()).as(run.err()).isEqualTo(3);
        }
        assertThat(requests(2)).allSatisfy(r -> {
            assertThat(r.get("error_class").asText()).isEqualTo("http_400");
            assertThat(r.get("error_type").asText()).isEqualTo("BadRequestError"); // vLLM's context-length refusal
        });
    }

    @Test
    void maxErrorRateTurnsAnErrorRateAboveItIntoExitThree() throws IOException {
        int failed;
        try (SimServer sim = sim(FaultKind.HTTP_500, 0.5)) {
            CliHarness.Run all = perf(sim, 10, "--max-error-rate", "100");
            assertThat(all.exit()).as(all.err()).isZero();
        }
        failed = (int) requests(10).stream().filter(r -> !r.get("success").asBoolean()).count();
        assertThat(failed).as("the seeded draws fail some requests, not all").isBetween(1, 9);
        double percent = failed * 10.0;
        try (SimServer sim = sim(FaultKind.HTTP_500, 0.5)) { // the same seed: the same failures
            CliHarness.Run above = perf(sim, 10, "--max-error-rate", Double.toString(percent - 1));
            assertThat(above.exit()).as(above.err()).isEqualTo(3);
            assertThat(above.err()).contains("unibench: parallel_1_number_10: " + failed + " of 10 requests failed");
        }
        try (SimServer sim = sim(FaultKind.HTTP_500, 0.5)) {
            CliHarness.Run at = perf(sim, 10, "--max-error-rate", Double.toString(percent));
            assertThat(at.exit()).as(at.err()).isZero();
        }
    }

    @Test
    void aMaxErrorRateOutsideZeroToHundredIsBadInput() {
        try (SimServer sim = sim(FaultKind.HTTP_500, 0)) {
            CliHarness.Run run = perf(sim, 1, "--max-error-rate", "150");
            assertThat(run.exit()).isEqualTo(2);
            assertThat(run.err().strip()).isEqualTo("unibench: --max-error-rate 150.0: expected a percentage from 0 to 100");
        }
    }

    @Test
    void helpListsTheExitCodes() {
        for (String command : List.of("perf", "run")) {
            CliHarness.Run help = CliHarness.main(command, "--help");
            assertThat(help.out()).contains("Exit codes:", "the run completed, but no request succeeded",
                    "--max-error-rate");
        }
    }

    /** A gated scenario file ({@code max_error_rate: 0}) of one chat scenario {@code qa} at {@code load}. */
    private Path gatedFile(String name, SimServer sim, String load) throws IOException {
        Path file = out.resolve(name);
        Files.writeString(file, """
                providers:
                  - {name: p, base_url: "%s", model: m}
                generation: {temperature: 0, max_tokens: 4}
                %s
                max_error_rate: 0
                scenarios:
                  - {name: qa, type: chat, stream: true, prompt: "hello"}
                """.formatted(sim.baseUrl() + "/v1", load));
        return file;
    }

    /** The run of a gated file: exit 3 and its error line. */
    private String gated(Path file, String dir) {
        CliHarness.Run r = CliHarness.run("--config", file.toString(), "--outputs-dir", out.resolve(dir).toString(),
                "--no-timestamp", "--no-db");
        assertThat(r.exit()).as(r.err()).isEqualTo(3);
        return r.err();
    }

    /** Each rate level is gated on its own and named by its rate (they all have concurrency -1: one used to hide the rest). */
    @Test
    void theErrorGateNamesARateLevelByItsRate() throws Exception {
        try (SimServer sim = sim(FaultKind.HTTP_500, 0.5)) {
            assertThat(gated(gatedFile("rates.yaml", sim, "request_rate: {levels: [50, 100], requests_per_level: 10}"), "r"))
                    .containsPattern("unibench: p / qa / rate 50 req/s: \\d+ of 10 requests failed")
                    .doesNotContain("concurrency -1");
        }
    }

    @Test
    void theScenarioFilesMaxErrorRateGatesTheRunAndTheFlagOverridesIt() throws Exception {
        try (SimServer sim = sim(FaultKind.HTTP_500, 0.3)) {
            Path file = gatedFile("gate.yaml", sim, "concurrency: {levels: [1], requests_per_level: 10}\nrate_limit: 1000");
            assertThat(gated(file, "a")).containsPattern("unibench: p / qa / concurrency 1: [1-9] of 10 requests failed "
                    + "\\(\\d+\\.\\d%\\), above --max-error-rate 0%");
            CliHarness.Run flag = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("b").toString(), "--no-timestamp", "--no-db", "--max-error-rate", "100");
            assertThat(flag.exit()).as(flag.err()).isZero();
        }
        Path bad = out.resolve("bad.yaml");
        Files.writeString(bad, """
                providers: [{name: p, base_url: sim, model: m}]
                max_error_rate: 150
                scenarios: [{name: qa, type: chat, prompt: "hello"}]
                """);
        CliHarness.Run refused = CliHarness.run("--config", bad.toString(), "--check");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("bad.yaml:2: max_error_rate");
    }

    @Test
    void runExitsThreeWhenNoRequestOfItsLevelsSucceeded() throws Exception {
        // the one-token probe fits the model length; every scenario request is too long for it (HTTP 400)
        SimConfig.Scheduling small = new SimConfig.Scheduling(256, 8192, 40, 10_000, 60_000, 1, 0.01, 0, true, List.of());
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withScheduling(small))) {
            Path file = out.resolve("bench.yaml");
            Files.writeString(file, """
                    providers:
                      - {name: p, base_url: "%s", model: m}
                    generation: {temperature: 0, max_tokens: 8}
                    concurrency: {levels: [1], requests_per_level: 2}
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "%s"}
                    """.formatted(sim.baseUrl() + "/v1", "word ".repeat(60).strip()));
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("run").toString(), "--no-timestamp", "--no-db");
            assertThat(run.exit()).as(run.err()).isEqualTo(3);
            assertThat(run.err()).contains("unibench: no request succeeded (2 of 2 failed");
            assertThat(run.out()).contains("http_400 [BadRequestError] × 2");
        }
    }

    @Test
    void aRequestsFileThatCannotBeWrittenEndsTheRunWithTheReportAndOneLineExitFive() throws IOException {
        // requests.jsonl is a link to /dev/full: every write fails with "No space left on device", as a full disk does
        Path point = Files.createDirectories(out.resolve("t/parallel_1_number_3"));
        Files.createSymbolicLink(point.resolve("requests.jsonl"), Path.of("/dev/full"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-test-connection",
                    "--no-db", "--parallel", "1", "1", "--number", "3", "4", "--sleep-interval", "0",
                    "--max-tokens", "6", "--prompt", "hello there");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .isEqualTo("unibench: cannot write " + point.resolve("requests.jsonl") + ": No space left on device;"
                            + " the run stopped there, the report above is what was measured");
            assertThat(run.err()).doesNotContain("\tat ", "Exception in thread");
            assertThat(run.out()).contains("Performance Overview", "stopped by an error (partial report)");
        }
        assertThat(out.resolve("t/parallel_1_number_4")).doesNotExist(); // the sweep stopped at the failed point
        assertThat(out.resolve("t/performance_summary.txt")).exists();
        assertThat(point.resolve("benchmark_summary.json")).exists(); // the other files still had room
    }

    /**
     * A full disk (issue 27): every file of the point fails with "No space left on device" (each file, or the
     * temporary file it is written whole through, is a link to /dev/full), the server's metrics included. The run
     * ends with the report on the terminal, one line naming the first file that failed, no stack trace, exit 5, and
     * no file cut in the middle. Before: a stack trace from server_metrics.json, no report, exit 1.
     */
    @Test
    void aFullDiskEndsTheRunCleanlyWithTheReportAndOneLine() throws IOException {
        Path point = Files.createDirectories(out.resolve("t/parallel_2_number_6"));
        Path full = Path.of("/dev/full");
        Files.createSymbolicLink(point.resolve("requests.jsonl"), full);
        List<String> files = List.of("benchmark_summary.json", "benchmark_percentile.json", "workload_throughput.json",
                "workload_timeline.json", "server_metrics.json");
        for (String f : files) Files.createSymbolicLink(point.resolve(f + ".tmp"), full);
        Files.createSymbolicLink(out.resolve("t/performance_summary.txt.tmp"), full);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-test-connection",
                    "--no-db", "--parallel", "2", "--number", "6", "--max-tokens", "6", "--prompt", "hello there");
            assertThat(run.exit()).as(run.err()).isEqualTo(5);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .startsWith("unibench: cannot write " + point.resolve("requests.jsonl") + ": No space left on device");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("Performance Overview", "Results: ");
        }
        for (String f : files) assertThat(point.resolve(f)).as(f).doesNotExist(); // none cut, none half-written
        // the first of evalscope's files failed (the rest were not tried) and the server's metrics too: no .tmp left
        assertThat(point.resolve("benchmark_summary.json.tmp")).doesNotExist();
        assertThat(point.resolve("server_metrics.json.tmp")).doesNotExist();
        assertThat(out.resolve("t/performance_summary.txt")).doesNotExist();
    }

    /**
     * Issue 27's leftover: the FIRST write of {@code progress.json} fails (its temporary file is a link to /dev/full).
     * The run ends as a {@code requests.jsonl} failure does: the report from what was measured, one line naming the
     * file, exit 5. Before: the one line and exit 5, but no report at all (it failed before the session started).
     */
    @Test
    void aProgressFileWhoseFirstWriteFailsEndsTheRunWithTheReportAndOneLine() throws IOException {
        Files.createDirectories(out.resolve("t"));
        Files.createSymbolicLink(out.resolve("t/progress.json.tmp"), Path.of("/dev/full"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = perf(sim, 4, "--enable-progress-tracker");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .isEqualTo("unibench: cannot write " + out.resolve("t/progress.json") + ": No space left on device;"
                            + " the run stopped there, the report above is what was measured");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("Performance Overview", "stopped by an error (partial report)");
        }
        assertThat(requests(4)).isNotEmpty(); // what was measured is kept
    }

    /**
     * Nothing false: a run whose report ({@code performance_summary.txt}) cannot be written ends as a failed run
     * everywhere its end is recorded — one line naming the file, exit 5, {@code progress.json}'s last state
     * {@code failed} and the run history's status {@code failed} — and keeps what it measured. Before: exit 5 and the
     * line, but {@code progress.json} said {@code completed} and the stored run {@code finished} (both were recorded
     * before the report was written).
     */
    @Test
    void aReportThatCannotBeWrittenEndsTheRunAsFailedInProgressFileAndHistory() throws Exception {
        Files.createDirectories(out.resolve("t"));
        Files.createSymbolicLink(out.resolve("t/performance_summary.txt.tmp"), Path.of("/dev/full"));
        Path db = out.resolve("history.db");
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-test-connection",
                    "--db", db.toString(), "--parallel", "1", "--number", "4", "--max-tokens", "6",
                    "--prompt", "hello there", "--enable-progress-tracker");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .isEqualTo("unibench: cannot write " + out.resolve("t/performance_summary.txt") + ": No space left"
                            + " on device; the run stopped there, the report above is what was measured");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("Performance Overview");
        }
        JsonNode progress = JSON.readTree(out.resolve("t/progress.json").toFile());
        assertThat(progress.get("status").asText()).isEqualTo("failed");
        assertThat(progress.get("processed_count").asLong()).isEqualTo(4);
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(
                io.unibench.store.StoreLocation.resolve(db.toString(), Map.of()))) {
            assertThat(store.list(io.unibench.store.RunFilter.all(10))).singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo(io.unibench.store.RunRow.FAILED));
        }
        assertThat(requests(4)).hasSize(4); // what was measured is kept
        assertThat(out.resolve("t/parallel_1_number_4/benchmark_summary.json")).exists();
        assertThat(out.resolve("t/performance_summary.txt")).doesNotExist();
    }

    /** The same for {@code sla_summary.json}, written once after the search: the search's report, one line, exit 5. */
    @Test
    void anSlaSummaryThatCannotBeWrittenEndsTheRunWithTheReportAndOneLine() throws IOException {
        Files.createDirectories(out.resolve("t"));
        Files.createSymbolicLink(out.resolve("t/sla_summary.json.tmp"), Path.of("/dev/full"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = perf(sim, 1, "--sla-auto-tune", "--sla-variable", "parallel", "--sla-params",
                    "{\"avg_latency\": \"<=60\"}", "--sla-num-runs", "1", "--sla-lower-bound", "1",
                    "--sla-upper-bound", "2", "--sla-number-multiplier", "1");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .isEqualTo("unibench: cannot write " + out.resolve("t/sla_summary.json") + ": No space left on"
                            + " device; the run stopped there, the report above is what was measured");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("Performance Overview", "SLA Auto-tune Summary");
        }
        assertThat(out.resolve("t/sla_summary.json")).doesNotExist();
    }

    /** {@code unibench run}'s outputs the same way: the level's requests.jsonl and the scenario summary. */
    @Test
    void aScenarioRunOnAFullDiskEndsCleanlyWithTheReportAndOneLine() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            Path file = twoLevelScenario("full", sim);
            Path root = out.resolve("runs/full");
            Path level = Files.createDirectories(root.resolve("p/qa/parallel_1"));
            Path full = Path.of("/dev/full");
            Files.createSymbolicLink(level.resolve("requests.jsonl"), full);
            Files.createSymbolicLink(root.resolve("scenario_summary.txt.tmp"), full);
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("runs").toString(), "--no-timestamp", "--no-db");
            assertThat(run.exit()).as(run.err()).isEqualTo(5);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .startsWith("unibench: cannot write " + level.resolve("requests.jsonl") + ": No space left on device");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("p", "qa");
            assertThat(root.resolve("p/qa/parallel_2")).doesNotExist(); // the run stopped at the failed level
            assertThat(root.resolve("scenario_summary.txt")).doesNotExist();
        }
    }

    /**
     * {@code run --config} as {@code perf}: a {@code scenario_summary.txt} that cannot be written (its temporary file
     * is a link to /dev/full) ends the run as failed in the run history too — every provider's stored run, the first
     * provider's (ended when the second started) included — with the one line and exit 5, and what was measured kept.
     * Before: exit 5 and the line, but both stored runs said {@code finished} (the summary was written after the
     * session had recorded their ends).
     */
    @Test
    void aScenarioSummaryThatCannotBeWrittenEndsEveryProvidersStoredRunAsFailed() throws Exception {
        assertScenarioReportFailureEndsStoredRunsFailed("scenario_summary.txt");
    }

    /** The same for a {@code --report} file ({@code scenario_report.csv}), written after the summary. */
    @Test
    void aScenarioReportFileThatCannotBeWrittenEndsEveryProvidersStoredRunAsFailed() throws Exception {
        assertScenarioReportFailureEndsStoredRunsFailed("scenario_report.csv");
    }

    private void assertScenarioReportFailureEndsStoredRunsFailed(String unwritable) throws Exception {
        Path db = out.resolve("history.db");
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            Path file = out.resolve("two.yaml");
            Files.writeString(file, """
                    name: two
                    providers:
                      - {name: p, base_url: "%1$s", model: m}
                      - {name: q, base_url: "%1$s", model: m}
                    generation: {temperature: 0, max_tokens: 4}
                    concurrency: {levels: [1], requests_per_level: 2}
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "hello"}
                    """.formatted(sim.baseUrl() + "/v1"));
            Path root = Files.createDirectories(out.resolve("runs/two"));
            Files.createSymbolicLink(root.resolve(unwritable + ".tmp"), Path.of("/dev/full"));
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("runs").toString(), "--no-timestamp", "--db", db.toString(), "--report", "csv",
                    "--no-client-warmup");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .startsWith("unibench: cannot write " + root.resolve(unwritable) + ": No space left on device");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(root.resolve(unwritable)).doesNotExist();
            assertThat(root.resolve("q/qa/parallel_1/requests.jsonl")).exists(); // what was measured is kept
        }
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(
                io.unibench.store.StoreLocation.resolve(db.toString(), Map.of()))) {
            assertThat(store.list(io.unibench.store.RunFilter.all(10))).hasSize(2).allSatisfy(r -> {
                assertThat(r.status()).isEqualTo(io.unibench.store.RunRow.FAILED);
                assertThat(r.statusReason()).startsWith("cannot write ");
            });
        }
    }

    /**
     * A scenario's {@code sla_auto_tune} whose {@code sla_summary.json} cannot be written ends as perf's search does:
     * the report of the levels it measured, one line naming the file, exit 5 (before: the one line and no report).
     */
    @Test
    void aScenarioSlaSummaryThatCannotBeWrittenEndsTheRunWithTheReportAndOneLine() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            Path file = out.resolve("tune.yaml");
            Files.writeString(file, """
                    name: tune
                    providers:
                      - {name: p, base_url: "%s", model: m}
                    generation: {temperature: 0, max_tokens: 4}
                    sla_auto_tune:
                      variable: parallel
                      params: {avg_latency: "<=60"}
                      num_runs: 1
                      upper_bound: 2
                      number_multiplier: 1
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "hello"}
                    """.formatted(sim.baseUrl() + "/v1"));
            Path series = Files.createDirectories(out.resolve("runs/tune/p/qa"));
            Files.createSymbolicLink(series.resolve("sla_summary.json.tmp"), Path.of("/dev/full"));
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("runs").toString(), "--no-timestamp", "--no-db");
            assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_OUTPUT_FAILED);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .startsWith("unibench: cannot write " + series.resolve("sla_summary.json") + ": No space left on");
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(run.out()).contains("p", "qa", "Results: ");
            assertThat(series.resolve("sla_summary.json")).doesNotExist();
        }
    }

    @Test
    void aScenarioLevelFolderThatCannotBeMadeEndsCleanlyInOneLine() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            Path file = twoLevelScenario("blocked", sim);
            Path root = out.resolve("runs/blocked");
            // a file where the second level's folder goes: the first level runs, the second cannot start
            Path level = root.resolve("p/qa/parallel_2");
            Files.createDirectories(level.getParent());
            Files.writeString(level, "in the way");
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("runs").toString(), "--no-timestamp", "--no-db");
            assertThat(run.exit()).as(run.err()).isEqualTo(5);
            assertThat(run.err().lines().filter(l -> l.startsWith("unibench: "))).singleElement().asString()
                    .startsWith("unibench: cannot write " + level);
            assertThat(run.err()).doesNotContain("\tat ", "Exception");
            assertThat(root.resolve("p/qa/parallel_1/requests.jsonl")).exists(); // what was measured is kept
        }
    }

    /** A scenario file NAME.yaml: one provider on {@code sim}, one chat scenario, levels 1 and 2 of 3 requests. */
    private Path twoLevelScenario(String name, SimServer sim) throws IOException {
        Path file = out.resolve(name + ".yaml");
        Files.writeString(file, """
                name: %s
                providers:
                  - {name: p, base_url: "%s", model: m}
                generation: {temperature: 0, max_tokens: 4}
                concurrency: {levels: [1, 2], requests_per_level: 3}
                scenarios:
                  - {name: qa, type: chat, stream: true, prompt: "hello"}
                """.formatted(name, sim.baseUrl() + "/v1"));
        return file;
    }
}
