package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's own timings (llama.cpp's {@code timings}, emitted by the simulator with {@code llamacpp-timings})
 * through the real CLI: kept per request in requests.jsonl, compared with the client's TTFT and TPOT in the report
 * and the summary, and whole in the {@code --debug} log.
 */
class ServerTimingsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TTFT_MS = 40;
    private static final double PREFILL_MS_PER_TOKEN = 0.5;
    private static final double ITL_MS = 10;
    private static final int TOKENS = 12;

    @TempDir
    Path out;

    private static SimServer sim(boolean timings) {
        return SimServer.start(SimConfig.defaults().withTtftMs(TTFT_MS).withPrefillMsPerToken(PREFILL_MS_PER_TOKEN)
                .withItlMs(ITL_MS).withLlamacppTimings(timings));
    }

    private List<String> args(SimServer sim, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--sleep-interval", "0",
                "--parallel", "1", "--number", "6", "--max-tokens", Integer.toString(TOKENS),
                "--extra-args", "{\"ignore_eos\": true}", "--min-prompt-length", "64", "--max-prompt-length", "64"));
        a.addAll(List.of(extra));
        return a;
    }

    private List<JsonNode> requests() throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("t/parallel_1_number_6/requests.jsonl"))) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    @Test
    void theServersTimingsAreKeptPerRequestAndShownBesideTheClientsFigures() throws IOException {
        try (SimServer sim = sim(true)) {
            CliHarness.Run run = CliHarness.main(args(sim).toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
        }
        List<JsonNode> rows = requests();
        assertThat(rows).hasSize(6);
        for (JsonNode r : rows) {
            assertThat(r.get("server_predicted_n").asInt()).isEqualTo(TOKENS).isEqualTo(r.get("completion_tokens").asInt());
            assertThat(r.get("server_prompt_n").asInt() + r.get("server_cache_n").asInt())
                    .isEqualTo(r.get("prompt_tokens").asInt());
            double prefill = r.get("server_prompt_ms").asDouble();
            // the engine's clock: the uncached prompt's prefill at its configured cost, decode steps of ITL_MS each
            assertThat(prefill).isGreaterThanOrEqualTo(r.get("server_prompt_n").asInt() * PREFILL_MS_PER_TOKEN - 1e-6);
            double decodePerToken = r.get("server_predicted_ms").asDouble() / (TOKENS - 1);
            // at least ITL_MS: the simulator's steps are timed on its clock, which a busy machine only makes later
            assertThat(decodePerToken).isGreaterThanOrEqualTo(ITL_MS - 1e-6);
            // the client's TTFT holds the server's prefill plus the API overhead the prefill clock does not see
            assertThat(r.get("ttft_s").asDouble() * 1000 - prefill).isGreaterThanOrEqualTo(TTFT_MS - 1);
        }
        JsonNode summary = JSON.readTree(out.resolve("t/parallel_1_number_6/benchmark_summary.json").toFile());
        assertThat(summary.get("Server Timings Requests").asLong()).isEqualTo(6);
        assertThat(summary.get("P50 TTFT - Server Prefill (ms)").asDouble()).isGreaterThanOrEqualTo(TTFT_MS - 1);
        assertThat(summary.get("Avg Server Decode per Token (ms)").asDouble()).isGreaterThanOrEqualTo(ITL_MS - 1e-6);
        String report = Files.readString(out.resolve("t/performance_summary.txt"));
        assertThat(report).contains("Server vs Client (the server's own timings)", "Server Prefill",
                "TTFT - Server Prefill", "Server Decode per Token", "TPOT - Server Decode per Token",
                "6 of 6 successful requests carried the server's timings");
    }

    /** The extra arguments of {@link #args} with the usage switched off, as a user tells a llama.cpp server. */
    private List<String> argsWithoutUsage(SimServer sim, String... extra) {
        List<String> a = args(sim, extra);
        a.set(a.indexOf("{\"ignore_eos\": true}"),
                "{\"ignore_eos\": true, \"stream_options\": {\"include_usage\": false}}");
        return a;
    }

    @Test
    void withoutUsageTheTokenCountsAreTheServersTimingsAndSaySo() throws IOException {
        CliHarness.Run run;
        try (SimServer sim = sim(true)) {
            run = CliHarness.main(argsWithoutUsage(sim).toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
        }
        for (JsonNode r : requests()) {
            // exact: the server's predicted_n, never a character estimate of the text
            assertThat(r.get("completion_tokens").asInt()).isEqualTo(TOKENS).isEqualTo(r.get("server_predicted_n").asInt());
            assertThat(r.get("prompt_tokens").asInt())
                    .isEqualTo(r.get("server_prompt_n").asInt() + r.get("server_cache_n").asInt());
            assertThat(r.get("token_source").asText()).isEqualTo("server_timings");
            assertThat(r.get("cached_tokens").asInt()).isEqualTo(r.get("server_cache_n").asInt());
        }
        JsonNode summary = JSON.readTree(out.resolve("t/parallel_1_number_6/benchmark_summary.json").toFile());
        assertThat(summary.get("Token Count Source").asText()).isEqualTo("server timings");
        assertThat(summary.has("From Client Token Counts")).isFalse();
        assertThat(summary.get("Cached Tokens Source").asText()).isEqualTo("timings.cache_n");
        assertThat(summary.get("Avg Client TPOT (ms)").asDouble()).isGreaterThanOrEqualTo(ITL_MS - 1);
        assertThat(run.out()).contains("token counts are the server's timings").doesNotContain("estimated from characters");
    }

    @Test
    void aReplyNotStreamedIsComparedByItsLatencyAndTheServersWholeDecode() throws IOException {
        CliHarness.Run run;
        try (SimServer sim = sim(true)) {
            run = CliHarness.main(args(sim, "--no-stream").toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
        }
        JsonNode summary = JSON.readTree(out.resolve("t/parallel_1_number_6/benchmark_summary.json").toFile());
        assertThat(summary.has("Avg TTFT - Server Prefill (ms)")).isFalse();
        double decode = summary.get("Avg Server Decode (whole reply) (ms)").asDouble();
        assertThat(decode).isGreaterThanOrEqualTo((TOKENS - 1) * ITL_MS - 1e-6);
        assertThat(summary.get("Avg Latency - Server Prefill - Decode (ms)").asDouble())
                .isLessThan(summary.get("Avg Client Latency (not streamed) (ms)").asDouble() - decode + 1e-6);
        String report = Files.readString(out.resolve("t/performance_summary.txt"));
        assertThat(report).contains("Client Latency (not streamed)", "Server Decode (whole reply)",
                "Latency - Server Prefill - Decode", "a reply that was not streamed has no TTFT")
                .doesNotContain("TTFT - Server Prefill");
    }

    @Test
    void theStoredRunRebuildsTheSameServerVsClientTable() {
        String db = out.resolve("history.db").toString();
        CliHarness.Run run;
        try (SimServer sim = sim(true)) {
            run = CliHarness.main(args(sim, "--db", db).toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
        }
        int at = run.err().indexOf("Run history: run ");
        assertThat(at).as(run.err()).isNotNegative();
        String id = run.err().substring(at + "Run history: run ".length()).split(" ")[0];
        CliHarness.Run report = CliHarness.main("runs", "report", id, "--db", db);
        assertThat(report.exit()).as(report.err()).isZero();
        assertThat(section(report.out())).isEqualTo(section(run.out())).contains("TTFT - Server Prefill");
    }

    /** The Server vs Client table of a report. */
    private static String section(String report) {
        int from = report.indexOf("Server vs Client");
        assertThat(from).as(report).isNotNegative();
        return report.substring(from, report.indexOf("\n\n", from));
    }

    @Test
    void withoutTimingsFromTheServerTheFieldsAreNullAndNoTableIsShown() throws IOException {
        try (SimServer sim = sim(false)) {
            CliHarness.Run run = CliHarness.main(args(sim).toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).doesNotContain("Server vs Client");
        }
        for (JsonNode r : requests()) {
            assertThat(r.get("server_prompt_ms").isNull()).isTrue();
            assertThat(r.get("server_predicted_n").isNull()).isTrue();
        }
        JsonNode summary = JSON.readTree(out.resolve("t/parallel_1_number_6/benchmark_summary.json").toFile());
        assertThat(summary.has("Server Timings Requests")).isFalse();
    }

    @Test
    void debugLogsTheLastChunkWholeWithItsUsageAndTimings() {
        // the client's debug log goes to the process's stderr
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        CliHarness.Run run;
        try (SimServer sim = sim(true)) {
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            run = CliHarness.main(args(sim, "--debug", "--api-key", "sk-debug-secret-987654").toArray(String[]::new));
        } finally {
            System.setErr(saved);
        }
        assertThat(run.exit()).as(run.err()).isZero();
        String log = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        String last = log.lines().filter(l -> l.contains("\"timings\"")).findFirst().orElseThrow();
        assertThat(last.length()).isGreaterThan(400); // longer than the old 200-character cut
        assertThat(last).contains("\"usage\":{\"prompt_tokens\"", "\"predicted_per_second\":");
        assertThat(log + run.err() + run.out()).doesNotContain("sk-debug-secret-987654");
    }
}
