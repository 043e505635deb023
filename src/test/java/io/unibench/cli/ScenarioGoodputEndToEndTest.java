package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A scenario file's {@code goodput}: each level's good requests per second, in its files and its report. */
class ScenarioGoodputEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private CliHarness.Run run(String goodput) throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, """
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {levels: [1, 3], requests_per_level: 6}
                rate_limit: 10000
                %s
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """.formatted(goodput));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new RunCommand().forTest(Map.of())), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute("--config", file.toString(), "--outputs-dir",
                dir.resolve("out").toString(), "--no-timestamp", "--no-db");
        return new CliHarness.Run(exit, out.toString(), err.toString());
    }

    private JsonNode summary(int level) throws Exception {
        return JSON.readTree(dir.resolve("out/bench/p/s/parallel_" + level + "/benchmark_summary.json").toFile());
    }

    @Test
    void objectivesEveryRequestMeetsMakeGoodputTheRequestRate() throws Exception {
        CliHarness.Run r = run("goodput: {e2el_ms: 60000, ttft_ms: 60000}");
        assertThat(r.exit()).as(r.err()).isZero();
        for (int level : List.of(1, 3)) {
            JsonNode s = summary(level);
            assertThat(s.get("Good Requests").asLong()).isEqualTo(6);
            assertThat(s.get("Request Goodput (req/s)").asDouble()).isEqualTo(s.get("Req Throughput (req/s)").asDouble());
            assertThat(s.get("Goodput SLO (ms)").asText()).isEqualTo("ttft:60000 e2el:60000");
        }
        assertThat(r.out()).contains("Goodput");
    }

    @Test
    void anObjectiveNoRequestMeetsMakesItZero() throws Exception {
        CliHarness.Run r = run("goodput: {ttft_ms: 0}");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(summary(1).get("Good Requests").asLong()).isZero();
        assertThat(summary(1).get("Request Goodput (req/s)").asDouble()).isZero();
    }

    @Test
    void withoutGoodputNoKeysAndABadKeyIsNamed() throws Exception {
        CliHarness.Run r = run("");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(summary(1).has("Request Goodput (req/s)")).isFalse();
        assertThat(r.out()).doesNotContain("Goodput");
        CliHarness.Run bad = run("goodput: {ttfx_ms: 5}");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("goodput");
    }
}
