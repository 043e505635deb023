package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.ScriptedServer;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** {@code perf --multi-turn} through the real CLI: flags, files, tables, bad input. */
class MultiTurnEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private static JsonNode row(JsonNode rows, String metric) {
        for (JsonNode r : rows) if (r.path("metric").asText().equals(metric)) return r;
        throw new AssertionError("no row " + metric);
    }

    @Test
    void customConversationsAgainstAScriptedServerGiveHandComputedFiguresInEveryFile() throws IOException {
        Path data = out.resolve("conv.jsonl");
        Files.writeString(data, """
                [{"role":"user","content":"a1"},{"role":"assistant","content":"x"},{"role":"user","content":"a2"}]
                [{"role":"user","content":"b1"}]
                """);
        // usage: 40 tokens per message; cached = every message but the last (the history), 0 for the probe
        try (ScriptedServer server = new ScriptedServer(body -> {
            int n = body.get("messages").size();
            return ScriptedServer.Reply.ok("reply", 40 * n, 8, 40 * (n - 1));
        })) {
            CliHarness.Run run = CliHarness.main("perf", "--url", server.uri().toString(), "--model", "m",
                    "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--multi-turn",
                    "--dataset", "custom_multi_turn", "--dataset-path", data.toString(), "--number", "4",
                    "--parallel", "1", "--max-tokens", "8");
            assertThat(run.exit()).as(run.err()).isZero();
            Path dir = out.resolve("t").resolve("parallel_1_number_4");
            // conversations a, b, a, b (cycled): prompts 40, 120, 40, 40, 120, 40; cached 0, 80, 0, 0, 80, 0
            JsonNode summary = JSON.readTree(dir.resolve("benchmark_summary.json").toFile());
            assertThat(summary.get("Total Requests").asLong()).isEqualTo(6);
            assertThat(summary.get("Avg Turns/Request").asDouble()).isCloseTo(8.0 / 6, within(1e-4));
            assertThat(summary.get("KV Cache Hit Rate (%)").asDouble()).isCloseTo(100.0 * 160 / 400, within(1e-4));
            assertThat(summary.get("Cache Hit Source").asText()).isEqualTo("server");
            assertThat(summary.get("Completed Traces").asLong()).isEqualTo(4);

            JsonNode traces = JSON.readTree(dir.resolve("trace_summary.json").toFile());
            assertThat(traces.get("n_traces").asLong()).isEqualTo(4);
            // per trace: a = 80/160 = 50 %, b = 0 % (twice each) → linear p50 = 25, p90 = 50
            JsonNode hit = row(traces.get("rows"), "Cache Hit Rate (%)");
            assertThat(hit.get("mean").asDouble()).isEqualTo(25.0);
            assertThat(hit.get("p50").asDouble()).isEqualTo(25.0);
            assertThat(hit.get("p90").asDouble()).isEqualTo(50.0);
            // eligible: a's second turn: 80 cached, eligible 48 (40 prompt + 8 completion of turn 1); the server
            // counts the reply as 40 tokens of history, so 32 of the hits are beyond what turn 1 left: capped, 100 %
            assertThat(row(traces.get("rows"), "Eligible Cache Hit Rate (%)").get("mean").asDouble()).isEqualTo(100.0);

            JsonNode positions = JSON.readTree(dir.resolve("turn_position_summary.json").toFile()).get("rows");
            assertThat(positions).hasSize(2);
            assertThat(positions.get(0).get("requests").asLong()).isEqualTo(4);
            assertThat(positions.get(1).get("cache_hit_percent").asDouble()).isCloseTo(100.0 * 80 / 120, within(1e-4));

            List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
            assertThat(lines).hasSize(6);
            JsonNode second = JSON.readTree(lines.get(1));
            assertThat(second.get("conversation_id").asText()).isEqualTo("bench-0");
            assertThat(second.get("turn").asInt()).isEqualTo(1);
            assertThat(second.get("is_first_turn").asBoolean()).isFalse();
            assertThat(second.get("is_last_turn").asBoolean()).isTrue();
            assertThat(second.get("cached_tokens").asInt()).isEqualTo(80);
            assertThat(second.get("cached_token_source").asText()).isEqualTo("server");

            String report = run.out();
            assertThat(report).contains("Per-Trace Metrics", "Per-Turn-Position Metrics", "Turns/Req",
                    "First-Turn TTFT (ms)", "Subsequent-Turn TTFT (ms)", "│ Traces │");
            assertThat(Files.readString(out.resolve("t").resolve("performance_summary.txt"))).contains("Per-Trace Metrics");
        }
    }

    @Test
    void randomConversationsAgainstTheEmbeddedSimulator() throws IOException {
        CliHarness.Run run = CliHarness.main("perf", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "r",
                "--multi-turn", "--min-turns", "2", "--max-turns", "3", "--number", "4", "--parallel", "2",
                "--min-prompt-length", "20", "--max-prompt-length", "40", "--max-tokens", "8", "--rate", "50");
        assertThat(run.exit()).as(run.err()).isZero();
        Path dir = out.resolve("r").resolve("parallel_2_number_4");
        JsonNode summary = JSON.readTree(dir.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Completed Traces").asLong()).isEqualTo(4);
        // every request is one turn of one of the 4 conversations, each of which sent all its 2 or 3 turns
        JsonNode traces = JSON.readTree(dir.resolve("trace_summary.json").toFile());
        JsonNode turns = java.util.stream.StreamSupport.stream(traces.get("rows").spliterator(), false)
                .filter(r -> r.get("metric").asText().equals("Turns/Trace")).findFirst().orElseThrow();
        long total = summary.get("Total Requests").asLong();
        assertThat(traces.get("n_traces").asLong()).isEqualTo(4);
        assertThat(turns.get("mean").asDouble() * 4).isEqualTo((double) total);
        assertThat(turns.get("min").asDouble()).isGreaterThanOrEqualTo(2);
        assertThat(turns.get("max").asDouble()).isLessThanOrEqualTo(3);
        assertThat(Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize((int) total);
        JsonNode args = JSON.readTree(dir.resolve("benchmark_args.json").toFile());
        assertThat(args.get("dataset").asText()).isEqualTo("random_multi_turn");
        assertThat(args.get("rate_mode").asText()).isEqualTo("think");
        assertThat(dir.resolve("trace_summary.json")).exists();
    }

    @Test
    void aServerClosingAfterEveryReplyAbandonsNoConversation() throws IOException {
        // llama.cpp's server closes the connection after each streamed reply although it said keep-alive
        SimConfig closing = SimConfig.defaults().withTtftMs(0).withPrefillMsPerToken(0).withItlMs(0)
                .with("close-after-reply", true);
        try (SimServer sim = SimServer.start(closing)) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions",
                    "--model", "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "c", "--multi-turn",
                    "--min-turns", "3", "--max-turns", "3", "--number", "30", "--parallel", "4",
                    "--min-prompt-length", "20", "--max-prompt-length", "40", "--max-tokens", "4");
            assertThat(run.exit()).as(run.err()).isZero();
            Path dir = out.resolve("c").resolve("parallel_4_number_30");
            JsonNode summary = JSON.readTree(dir.resolve("benchmark_summary.json").toFile());
            assertThat(summary.get("Failed Requests").asLong()).isZero();
            assertThat(summary.get("Completed Traces").asLong()).isEqualTo(30);
            JsonNode traces = JSON.readTree(dir.resolve("trace_summary.json").toFile());
            assertThat(traces.get("n_abandoned_traces").asLong()).isZero();
            long retried = 0;
            for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
                JsonNode r = JSON.readTree(line);
                assertThat(r.get("new_connection").asBoolean()).as("no connection outlives its reply").isTrue();
                if (r.get("retried_stale_connection").asBoolean()) {
                    retried++;
                    assertThat(r.get("stale_attempt_start_s").asDouble()).isLessThanOrEqualTo(r.get("start_s").asDouble());
                    assertThat(r.get("phases_ms").get("stale_attempt").asDouble()).isGreaterThanOrEqualTo(0);
                } else {
                    assertThat(r.get("stale_attempt_start_s").isNull()).isTrue();
                }
            }
            if (retried > 0) {
                assertThat(run.out()).contains(retried + " sent again after a stale pooled connection (counted as opened)");
            } else {
                assertThat(run.out()).doesNotContain("sent again after a stale pooled connection");
            }
        }
    }

    @Test
    void badMultiTurnInputIsOneLineAndExitTwo() throws IOException {
        Path bad = out.resolve("bad.jsonl");
        Files.writeString(bad, "[{\"role\":\"user\",\"content\":\"hi\"}]\n[{\"role\":\"user\"}]\n");
        assertBad(CliHarness.main("perf", "--max-turns", "3"), "--max-turns applies to conversations: add --multi-turn");
        assertBad(CliHarness.main("perf", "--multi-turn", "--dataset", "random"), "--dataset random is single-turn");
        assertBad(CliHarness.main("perf", "--dataset", "random_multi_turn"), "is a multi-turn dataset: add --multi-turn");
        assertBad(CliHarness.main("perf", "--multi-turn", "--max-turns", "2", "--rate-mode", "poisson"),
                "--rate-mode 'poisson': expected think or arrival");
        assertBad(CliHarness.main("perf", "--multi-turn", "--number", "1"), "needs --max-turns");
        assertBad(CliHarness.main("perf", "--multi-turn", "--dataset", "custom_multi_turn", "--dataset-path",
                bad.toString()), bad + ":2: field '[0].content': missing");
    }

    private static void assertBad(CliHarness.Run run, String expected) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).contains(expected).doesNotContain("\n").doesNotContain("Exception");
    }
}
