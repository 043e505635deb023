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
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * --dataset mooncake_trace through the real CLI against the simulator: what reached the wire (lengths, max_tokens,
 * ignore_eos), the prefix-cache hits the trace's hash ids imply, exactly, and the send times of its timestamps.
 */
class MooncakeTraceEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startSimulator() {
        // 16-token KV blocks (vLLM's default), cached tokens reported in usage
        sim = SimServer.start(SimConfig.defaults().withTtftMs(2).withPrefillMsPerToken(0).withItlMs(1));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    /** Five requests 100 ms apart whose hash ids share prefixes (also replayed by ScenarioLoadsEndToEndTest). */
    static final List<String> TRACE = List.of(
            "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1, 2]}",
            "{\"timestamp\": 100, \"input_length\": 1100, \"output_length\": 6, \"hash_ids\": [1, 2, 3]}",
            "{\"timestamp\": 200, \"input_length\": 700, \"output_length\": 3, \"hash_ids\": [4, 2]}",
            "{\"timestamp\": 300, \"input_length\": 1024, \"output_length\": 5, \"hash_ids\": [1, 2]}",
            "{\"timestamp\": 400, \"input_length\": 1546, \"output_length\": 2, \"hash_ids\": [1, 2, 3, 5]}");

    private Path trace() throws IOException {
        return Files.write(out.resolve("trace.jsonl"), TRACE);
    }

    private CliHarness.Run perf(String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/completions", "--model", "m",
                "--outputs-dir", out.toString(), "--no-timestamp", "--name", "mc", "--sleep-interval", "0",
                "--no-db"));
        a.addAll(List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    private static List<JsonNode> rows(Path jsonl) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(jsonl)) rows.add(JSON.readTree(line));
        rows.sort(Comparator.comparingLong(r -> r.get("index").asLong()));
        return rows;
    }

    @Test
    void replaysTheTraceAtItsTimesWithItsLengthsAndItsPrefixSharing() throws IOException {
        // the connection test first warms the simulator (its first request loads its tokenizer), so the requests
        // reach it in the trace's order; a seed of this test's own gives blocks no other test cached
        CliHarness.Run run = perf("--dataset", "mooncake_trace", "--dataset-path", trace().toString(),
                "--trace-speedup", "2", "--seed", "77");
        assertThat(run.exit()).as(run.err()).isZero();
        // no --number: the whole trace; no --parallel: an open loop; Rate = 5 requests over 0.4 s / 2
        Path point = out.resolve("mc/rate_25.0_number_5");
        List<JsonNode> rows = rows(point.resolve("requests.jsonl"));
        assertThat(rows).hasSize(5).allMatch(r -> r.get("success").asBoolean());

        int[] input = {600, 1100, 700, 1024, 1546};
        int[] output = {4, 6, 3, 5, 2};
        // Cached = the common token prefix with an earlier prompt, in whole 16-token blocks, at most n − 1 tokens:
        // #1 holds all 600 tokens of #0 (blocks 1, 2; 2 partial there) → 592; #2 starts with block 4 → 0;
        // #3 is blocks 1, 2 of #1 exactly, 1024 tokens, capped at 1023 → 1008; #4 holds all 1100 of #1 → 1088.
        int[] cached = {0, 592, 0, 1008, 1088};
        double first = rows.getFirst().get("scheduled_s").asDouble();
        for (int i = 0; i < 5; i++) {
            JsonNode r = rows.get(i);
            assertThat(r.get("prompt_tokens").asInt()).as("prompt tokens %d", i).isEqualTo(input[i]);
            assertThat(r.get("completion_tokens").asInt()).as("completion tokens %d", i).isEqualTo(output[i]);
            assertThat(r.get("cached_tokens").asInt()).as("cached tokens %d", i).isEqualTo(cached[i]);
            assertThat(r.get("scheduled_s").asDouble() - first).as("sent at timestamp / 2, %d", i)
                    .isCloseTo(i * 0.05, within(2e-6));
        }
        JsonNode summary = JSON.readTree(point.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Trace Speedup").asDouble()).isEqualTo(2.0);
        assertThat(summary.get("Avg Queue Delay (ms)").isNumber()).as("schedule lag reported").isTrue();
        assertThat(summary.get("Concurrency").asInt()).isEqualTo(-1);
        assertThat(run.out()).contains("Queue Delay (ms)");
    }

    @Test
    void theShippedSampleRunsAsTheReadmeShows() {
        CliHarness.Run run = perf("--dataset", "mooncake_trace", "--dataset-path",
                "examples/data/mooncake/mooncake_trace_sample.jsonl", "--trace-speedup", "20", "--number", "12");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("mooncake_trace", "Cache Hit");
    }

    @Test
    void badTraceUseIsOneLineNamingTheFlag() throws IOException {
        String path = trace().toString();
        String[][] cases = {
                {"--dataset", "mooncake_trace"},
                {"--dataset", "mooncake_trace", "--dataset-path", path, "--rate", "3"},
                {"--dataset", "mooncake_trace", "--dataset-path", path, "--number", "6"},
                {"--dataset", "mooncake_trace", "--dataset-path", path, "--trace-speedup", "0"},
                {"--dataset", "mooncake_trace", "--dataset-path", path, "--burstiness", "2"},
                {"--number", "2", "--trace-speedup", "2"}};
        String[] named = {"--dataset-path", "--rate", "--number 6", "--trace-speedup", "--burstiness", "--trace-speedup"};
        for (int i = 0; i < cases.length; i++) {
            CliHarness.Run run = perf(cases[i]);
            assertThat(run.exit()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(run.err().strip()).as(String.join(" ", cases[i])).contains(named[i]).doesNotContain("\n")
                    .doesNotContain("Exception");
        }
    }
}
