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
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every figure that rests on the client's token counts says so, the prompt-length line names the tokenizer that
 * counted, and {@code --server-tokenize} puts the server's own count beside the target: the real CLI against a
 * server without usage and against the simulator.
 */
class EstimateLabelsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private List<String> perf(String url, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", url, "--model", "m", "--outputs-dir",
                out.toString(), "--no-timestamp", "--name", "t", "--no-db", "--parallel", "1"));
        a.addAll(List.of(extra));
        return a;
    }

    private JsonNode summary(String point) throws IOException {
        return JSON.readTree(out.resolve("t").resolve(point).resolve("benchmark_summary.json").toFile());
    }

    @Test
    void withoutUsageTpotAndTheTokenFiguresAreLabelledEstimated() throws IOException {
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.withoutUsage("one two three four"))) {
            CliHarness.Run run = CliHarness.main(perf(server.uri().toString(), "--number", "3", "--prompt", "hello")
                    .toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("TPOT (ms, estimated)", "Input Tokens (estimated)",
                    "Output Tokens (estimated)", "TPOT, ITL per token and tokens per chunk are not the server's");
        }
        JsonNode s = summary("parallel_1_number_3");
        assertThat(s.get("Token Count Source").asText()).isEqualTo("estimated");
        assertThat(s.get("From Client Token Counts").asText()).contains("Avg TPOT (ms)", "Avg ITL per Token (ms)",
                "Avg Decoded Tok/Iter", "TPOT (ms)", "Output (tok/s)");
    }

    @Test
    void withServerUsageNothingIsLabelled() throws IOException {
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.ok("one two", 5, 2, null))) {
            CliHarness.Run run = CliHarness.main(perf(server.uri().toString(), "--number", "2", "--prompt", "hello")
                    .toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("TPOT (ms)").doesNotContain("estimated");
        }
        assertThat(summary("parallel_1_number_2").has("From Client Token Counts")).isFalse();
    }

    @Test
    void promptLengthsNameTheirTokenizerAndTheServersCountStandsBesideTheTarget() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            CliHarness.Run run = CliHarness.main(perf(sim.baseUrl() + "/v1/chat/completions", "--number", "4",
                    "--max-tokens", "2", "--dataset", "random", "--min-prompt-length", "50", "--max-prompt-length",
                    "90", "--server-tokenize", "3").toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("4/4 at target length by cl100k_base",
                    "3 prompts via " + sim.baseUrl() + "/tokenize: server ");
        }
        JsonNode s = summary("parallel_1_number_4");
        assertThat(s.get("Prompt Length Tokenizer").asText()).isEqualTo("cl100k_base");
        assertThat(s.get("Server Tokenized Prompts").asLong()).isEqualTo(3);
        // the simulator counts with the same tokenizer the prompts were synthesized with: exactly the targets
        assertThat(s.get("Avg Server-Counted Prompt Tokens").asDouble())
                .isEqualTo(s.get("Avg Target Prompt Tokens (server-counted sample)").asDouble());
        assertThat(s.get("Min Server-Counted Prompt Tokens").asLong()).isBetween(50L, 90L);
    }

    @Test
    void aServerWithoutTokenizeIsReportedAndTheRunGoesOn() throws IOException {
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.ok("one two", 5, 2, null))) {
            CliHarness.Run run = CliHarness.main(perf(server.uri().toString(), "--number", "2", "--dataset", "random",
                    "--min-prompt-length", "20", "--max-prompt-length", "20", "--server-tokenize", "2")
                    .toArray(String[]::new));
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("Server-Counted Prompts").contains("not counted: ");
        }
    }

    @Test
    void runCostsPricedWithClientCountsSayTheyAreEstimated() throws Exception {
        try (ScriptedServer server = new ScriptedServer(body -> ScriptedServer.Reply.withoutUsage("one two three"))) {
            Path file = out.resolve("bench.yaml");
            String base = server.uri().toString().replace("/chat/completions", "");
            Files.writeString(file, """
                    providers:
                      - {name: p, base_url: "%s", model: m, price: {input: 1.0, output: 2.0}}
                    generation: {temperature: 0, max_tokens: 4}
                    concurrency: {levels: [1], requests_per_level: 2}
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "Say three words."}
                    """.formatted(base));
            CliHarness.Run run = CliHarness.run("--config", file.toString(), "--outputs-dir",
                    out.resolve("run").toString(), "--no-timestamp", "--no-db", "--report", "html");
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("Cost / 1k req (estimated)", "Cost / 1M out tok (estimated)",
                    "Note: Cost is estimated: the server sent no usage for some requests (p 2 of 2)");
            String html = Files.readString(out.resolve("run/bench/scenario_report.html"));
            assertThat(html).contains("Cost / 1k req (estimated)", "Cost is estimated");
        }
    }
}
