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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * --sla-auto-tune through the real CLI against a simulator whose latency model makes the answer known: 4 sequences
 * at most run at once and a reply of 9 tokens takes T ≈ 500 ms, so up to 4 concurrent requests all take ≈ T and a
 * 5th waits a whole T first: the worst latency jumps from T to 2T past 4, and "p99_latency <= 0.85" holds up to 4.
 */
class SlaAutoTuneEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startSimulator() {
        SimConfig.Scheduling fourSlots = new SimConfig.Scheduling(4, 8192, 131_072, 10_000, 60_000, 1, 0, 0, true,
                List.of());
        // a request takes 100 + 8 × 50 = 500 ms in one of 4 slots (~0.6 s seen at 2 and 4); a fifth waits for a slot
        // (~0.95 s): the criterion (0.85 s) leaves a busy machine 250 ms of overhead where it must hold (100 ms was
        // not enough); where it must not, a busy machine only adds latency
        sim = SimServer.start(SimConfig.defaults().withTtftMs(100).withPrefillMsPerToken(0).withItlMs(50)
                .withScheduling(fourSlots));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private CliHarness.Run perf(String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "sla", "--sleep-interval", "0",
                "--no-db", "--max-tokens", "9", "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "16",
                "--max-prompt-length", "16"));
        a.addAll(List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    @Test
    void findsTheLargestConcurrencyMeetingTheLatencyCriterion() throws IOException {
        CliHarness.Run run = perf("--sla-auto-tune", "--sla-params", "{\"p99_latency\": \"<=0.85\"}",
                "--sla-num-runs", "2");
        assertThat(run.exit()).as(run.err()).isZero();
        Path root = out.resolve("sla");
        JsonNode summary = JSON.readTree(root.resolve("sla_summary.json").toFile());
        JsonNode selection = summary.get("selections").get(0);
        assertThat(selection.get("max_satisfied").asInt()).as(summary.toPrettyString()).isEqualTo(4);
        assertThat(selection.get("criteria").asText()).isEqualTo("p99_latency <= 0.85 s");
        assertThat(selection.get("note").asText()).startsWith("parallel 5 does not hold");
        // doubling 1, 2, 4, 8, then bisection 6, 5: each value twice, number = 2 × value
        for (int v : new int[] {1, 2, 4, 5, 6, 8}) {
            JsonNode probe = summary.get("parallel_" + v);
            assertThat(probe).as("parallel_%d", v).isNotNull();
            assertThat(probe.get("runs").asInt()).isEqualTo(2);
            assertThat(probe.get("total_requests").asInt()).isEqualTo(4 * v);
            assertThat(probe.at("/groups/1/passed").asBoolean()).as("passes at %d", v).isEqualTo(v <= 4);
            for (int i = 0; i < 2; i++) {
                JsonNode point = JSON.readTree(root.resolve("sla_tuning/sla_parallel_" + v + "_run_" + i)
                        .resolve("benchmark_summary.json").toFile());
                assertThat(point.get("Total Requests").asInt()).isEqualTo(2 * v);
                assertThat(point.get("Concurrency").asInt()).isEqualTo(v);
            }
        }
        assertThat(summary.has("parallel_3")).isFalse();
        assertThat(run.out()).contains("SLA Auto-tune Summary", "Max Satisfied", "p99_latency <= 0.85 s", "SLA Probes");
        assertThat(Files.readString(root.resolve("performance_summary.txt"))).contains("SLA Auto-tune Summary");
    }

    @Test
    void tunesTheRateAtTheFixedConcurrency() throws IOException {
        CliHarness.Run run = perf("--sla-auto-tune", "--sla-variable", "rate", "--sla-params",
                "{\"avg_latency\": \"<=10s\"}", "--sla-num-runs", "1", "--sla-upper-bound", "4",
                "--sla-fixed-parallel", "3", "--sla-number-multiplier", "1");
        assertThat(run.exit()).as(run.err()).isZero();
        Path root = out.resolve("sla");
        JsonNode summary = JSON.readTree(root.resolve("sla_summary.json").toFile());
        assertThat(summary.at("/selections/0/max_satisfied").asInt()).isEqualTo(4);
        assertThat(summary.at("/selections/0/note").asText()).contains("Holds at the upper bound (4)",
                "1 run per value");
        JsonNode point = JSON.readTree(root.resolve("sla_tuning/sla_rate_4_run_0/benchmark_summary.json").toFile());
        assertThat(point.get("Request Rate (req/s)").asDouble()).isEqualTo(4.0);
        assertThat(point.get("Concurrency").asInt()).isEqualTo(3);
        assertThat(point.get("Total Requests").asInt()).isEqualTo(4);
    }

    @Test
    void badSlaFlagsAreOneLineNamingTheFlag() {
        String[][] cases = {
                {"--sla-params", "{\"rps\": \"max\"}"},
                {"--sla-auto-tune"},
                {"--sla-auto-tune", "--sla-params", "{\"p98_latency\": \"<=1\"}"},
                {"--sla-auto-tune", "--sla-params", "{\"avg_latency\": \"<=1\"}", "--sla-num-runs", "0"},
                {"--sla-auto-tune", "--sla-params", "{\"avg_latency\": \"<=1\"}", "--sla-lower-bound", "8",
                        "--sla-upper-bound", "4"},
                {"--sla-auto-tune", "--sla-params", "{\"avg_latency\": \"<=1\"}", "--sla-variable", "speed"},
                {"--sla-auto-tune", "--sla-params", "{\"avg_latency\": \"<=1\"}", "--open-loop", "--rate", "2"},
                {"--sla-auto-tune", "--sla-params", "{\"avg_latency\": \"<=1\"}", "--sla-number-multiplier", "0"},
                {"--sla-auto-tune", "--sla-params", "{\"goodput\": \"max\"}"}};
        String[] named = {"--sla-", "--sla-auto-tune", "--sla-params", "--sla-num-runs", "--sla-upper-bound",
                "--sla-variable", "--sla-auto-tune", "--sla-number-multiplier", "--goodput"};
        for (int i = 0; i < cases.length; i++) {
            CliHarness.Run run = perf(cases[i]);
            assertThat(run.exit()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(run.err().strip()).as(String.join(" ", cases[i])).contains(named[i]).doesNotContain("\n")
                    .doesNotContain("Exception");
        }
    }
}
