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
 * Issue 30 §4 through the real CLI and client against the simulator on 127.0.0.1: {@code --retry-on} against its
 * 429 faults (Retry-After honoured), a token budget that ends the run with a partial report, and the flags' bad
 * input. One request at a time and seeded faults, so every count is exact.
 */
class RunLimitsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    /** A simulator refusing a seeded 40 % of requests with HTTP 429 and {@code Retry-After: 0}. */
    private static SimServer refusing() {
        SimConfig c = SimConfig.defaults().withTtftMs(1).withItlMs(1).withSeed(7);
        return SimServer.start(c.withFaults(new SimConfig.Faults(Map.of(FaultKind.HTTP_429, 0.4), 0, 0, 2, 0)));
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
    void refusalsAreRetriedAfterTheirRetryAfterAndEachRetryIsRecordedAndCounted() throws IOException {
        try (SimServer sim = refusing()) {
            CliHarness.Run without = perf(sim, 20);
            assertThat(without.exit()).as(without.err()).isZero();
            long refused = requests(20).stream().filter(r -> r.get("http_status").asInt() == 429).count();
            assertThat(refused).isPositive(); // the faults strike without --retry-on: refusals are results
            assertThat(requests(20)).allMatch(r -> r.get("retries").asInt() == 0);

            CliHarness.Run run = perf(sim, 20, "--retry-on", "429,503", "--max-retries", "10");
            assertThat(run.exit()).as(run.err()).isZero();
            List<JsonNode> rows = requests(20);
            assertThat(rows).hasSize(20).allMatch(r -> r.get("success").asBoolean());
            long retries = rows.stream().mapToLong(r -> r.get("retries").asLong()).sum();
            assertThat(retries).isPositive();
            assertThat(rows).allMatch(r -> r.get("retry_wait_s").asDouble() == 0.0); // Retry-After: 0, honoured
            long retried = rows.stream().filter(r -> r.get("retries").asInt() > 0).count();
            assertThat(run.out()).containsPattern("refusals retried \\(requests\\)\\s*│\\s*" + retries + " \\("
                    + retried + "\\)");
        }
    }

    @Test
    void aTokenBudgetEndsTheRunWithAPartialReportThatSaysWhy() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = perf(sim, 50, "--max-total-tokens", "100");
            assertThat(run.exit()).as(run.err()).isZero(); // the budget is the run's planned end, not an interrupt
            List<JsonNode> rows = requests(50);
            long spent = rows.stream().mapToLong(r -> r.get("prompt_tokens").asLong() + r.get("completion_tokens")
                    .asLong()).sum();
            assertThat(rows.size()).isLessThan(50);
            assertThat(spent).isGreaterThanOrEqualTo(100);
            long before = spent - rows.getLast().get("prompt_tokens").asLong()
                    - rows.getLast().get("completion_tokens").asLong();
            assertThat(before).isLessThan(100); // it stopped at the request that spent it
            String line = String.format(java.util.Locale.ROOT, "budget reached: %,d of 100 tokens", spent);
            assertThat(run.err()).contains("Stopped: " + line + "; the report above is partial.");
            assertThat(run.out()).contains("stopped: " + line + " (partial report)");
            JsonNode summary = JSON.readTree(out.resolve("t/parallel_1_number_50/benchmark_summary.json").toFile());
            assertThat(summary.get("Stopped By").asText()).isEqualTo(line);
        }
    }

    /** The scenario file's keys map onto the same spec: retries against the 429s, then a token budget stops it. */
    @Test
    void aScenarioFilesRetryAndBudgetKeysWorkAsPerfsFlags() throws IOException {
        try (SimServer sim = refusing()) {
            Path file = out.resolve("limits.yaml");
            Files.writeString(file, """
                    name: limits
                    providers:
                      - {name: p, base_url: "%s", model: m}
                    generation: {temperature: 0, max_tokens: 4}
                    concurrency: {levels: [1, 2], requests_per_level: 12}
                    retry: {on: [429], max_retries: 10}
                    budget: {max_total_tokens: 150}
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "hello"}
                    """.formatted(sim.baseUrl() + "/v1"));
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("runs").toString(), "--no-timestamp", "--no-db");
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.err()).containsPattern("Stopped: budget reached: 1\\d\\d of 150 tokens; the report above is "
                    + "partial\\.");
            List<JsonNode> rows = new ArrayList<>();
            for (String line : Files.readAllLines(out.resolve("runs/limits/p/qa/parallel_1/requests.jsonl"))) {
                rows.add(JSON.readTree(line));
            }
            assertThat(rows).isNotEmpty().allMatch(r -> r.get("success").asBoolean()); // every 429 retried
            assertThat(rows.stream().mapToInt(r -> r.get("retries").asInt()).sum()).isPositive();
            assertThat(rows.size()).isLessThan(12); // the budget struck in the first level
            assertThat(out.resolve("runs/limits/p/qa/parallel_2")).doesNotExist();
        }
    }

    @Test
    void aScenarioFilesLimitsAreCheckedByTheSharedRules() throws IOException {
        Path file = out.resolve("bad.yaml");
        Files.writeString(file, """
                name: bad
                providers:
                  - {name: p, base_url: "http://127.0.0.1:1/v1", model: m}
                concurrency: {levels: [1], requests_per_level: 2}
                budget: {max_cost: 2}
                scenarios:
                  - {name: qa, type: chat, prompt: "hello"}
                """);
        CliHarness.Run run = CliHarness.run("--config", file.toString(), "--no-db");
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains("budget.max_cost: 2.0: needs token prices");
    }

    @Test
    void theLimitsFlagsBadInputIsOneLine() {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            assertBad(perf(sim, 1, "--max-cost", "2"), "--max-cost 2.0: needs token prices");
            assertBad(perf(sim, 1, "--retry-on", "429"), "--retry-on 429: needs a count of retries");
            assertBad(perf(sim, 1, "--retry-on", "200", "--max-retries", "2"), "--retry-on 200: must be an HTTP status");
            assertBad(perf(sim, 1, "--max-retries", "2"), "--max-retries 2: needs the statuses to retry");
            assertBad(perf(sim, 1, "--target-precision", "0"), "--target-precision 0.0: must be a percentage");
            assertBad(perf(sim, 1, "--price-input", "1"), "--price-input 1.0: needs --price-output too");
        }
    }

    private static void assertBad(CliHarness.Run run, String line) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("unibench: " + line).doesNotContain("\n");
    }
}
