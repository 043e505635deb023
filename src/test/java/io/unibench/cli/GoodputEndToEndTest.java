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

/** --goodput through the real CLI against the simulator: the count, the rate, the files, the tables, the history. */
class GoodputEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startSimulator() {
        // latency = 20 ms + 10 ms per token after the first: 5 tokens ≈ 60 ms, 40 tokens ≈ 410 ms
        sim = SimServer.start(SimConfig.defaults().withTtftMs(20).withPrefillMsPerToken(0).withItlMs(10));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private String[] args(String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "g", "--sleep-interval", "0",
                "--no-test-connection", "--db", out.resolve("history.db").toString()));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    @Test
    void goodRequestsAreTheSuccessesMeetingEveryObjectiveAndTheirRateIsBesideRps() throws IOException {
        CliHarness.Run run = CliHarness.main(args("--parallel", "8", "--number", "48", "--max-tokens", "5", "40",
                "--extra-args", "{\"ignore_eos\": true}", "--seed", "3", "--goodput", "e2el:240", "ttft:0.5s"));
        assertThat(run.exit()).as(run.err()).isZero();
        Path point = out.resolve("g/parallel_8_number_48");

        // the requests meeting e2el ≤ 240 ms and ttft ≤ 500 ms, counted from requests.jsonl's own figures
        long expected = 0;
        for (String line : Files.readAllLines(point.resolve("requests.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            if (r.get("success").asBoolean() && r.get("latency_s").asDouble() * 1000 <= 240
                    && r.get("ttft_s").asDouble() * 1000 <= 500) expected++;
        }
        assertThat(expected).as("the draw of 5..40 tokens puts requests on both sides").isBetween(1L, 47L);

        JsonNode summary = JSON.readTree(point.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Good Requests").asLong()).isEqualTo(expected);
        assertThat(summary.get("Goodput SLO (ms)").asText()).isEqualTo("ttft:500 e2el:240");
        double rps = summary.get("Req Throughput (req/s)").asDouble();
        assertThat(summary.get("Request Goodput (req/s)").asDouble())
                .isCloseTo(rps * expected / 48.0, org.assertj.core.data.Offset.offset(1e-4))
                .isLessThan(rps);
        assertThat(run.out()).contains("Goodput", "met every objective (ttft:500 e2el:240, ms): " + expected + " of 48");

        CliHarness.Run list = CliHarness.main("runs", "list", "--db", out.resolve("history.db").toString(), "--json");
        String runId = JSON.readTree(list.out()).get(0).get("run_id").asText();
        CliHarness.Run show = CliHarness.main("runs", "show", runId, "--db", out.resolve("history.db").toString());
        assertThat(show.out()).contains("Goodput", summary.get("Request Goodput (req/s)").asText());
    }

    @Test
    void withoutGoodputNoKeyAndNoColumn() throws IOException {
        CliHarness.Run run = CliHarness.main(args("--parallel", "2", "--number", "4", "--max-tokens", "4"));
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode summary = JSON.readTree(out.resolve("g/parallel_2_number_4/benchmark_summary.json").toFile());
        assertThat(summary.has("Request Goodput (req/s)")).isFalse();
        assertThat(run.out()).doesNotContain("Goodput");
    }

    @Test
    void badObjectivesAreOneLineNamingTheFlag() {
        for (String[] bad : List.of(new String[] {"ttft"}, new String[] {"ttfx:5"}, new String[] {"ttft:-1"},
                new String[] {"tpot:fast"}, new String[] {"ttft:5", "ttft:6"})) {
            List<String> a = new ArrayList<>(List.of(args("--number", "1", "--goodput")));
            a.addAll(List.of(bad));
            CliHarness.Run run = CliHarness.main(a.toArray(String[]::new));
            assertThat(run.exit()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(run.err().strip()).startsWith("unibench: --goodput").doesNotContain("\n").doesNotContain("Exception");
        }
    }
}
