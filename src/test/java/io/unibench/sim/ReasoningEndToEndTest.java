package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.cli.Main;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Reasoning models' two TTFTs (issue 30 §3), through the real client against the simulator's reasoning knob: TTFT
 * is the first reasoning token, TTFCT the first answer token, the reasoning tokens come from the usage, and the
 * answer part has its own TPOT; a run without reasoning is unchanged (first content = first token, no new keys).
 * No timing is asserted: the gap TTFCT − TTFT is checked against the reply's own chunk intervals.
 */
class ReasoningEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TOKENS = 12;
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(1).withItlMs(1).withPrefillMsPerToken(0)
            .withMeanOutputTokens(100_000); // every reply runs to max_tokens, whether ignore_eos is read or not

    @TempDir
    Path out;

    private record Run(List<JsonNode> records, JsonNode summary, JsonNode percentiles, String terminal) {}

    private Run run(SimServer sim, String api, String path) throws Exception {
        List<String> args = new ArrayList<>(List.of("perf", "--no-db", "--url", sim.baseUrl() + path,
                "--api", api, "--model", "unibench-sim", "--outputs-dir", out.toString(), "--no-timestamp",
                "--name", "r", "--parallel", "2", "--number", "6", "--max-tokens", Integer.toString(TOKENS),
                "--extra-args", "{\"ignore_eos\": true}", "--no-test-connection"));
        StringWriter o = new StringWriter(), e = new StringWriter();
        int exit = Main.execute(args.toArray(String[]::new), new PrintWriter(o, true), new PrintWriter(e, true));
        assertThat(exit).as(e.toString()).isZero();
        Path dir = out.resolve("r").resolve("parallel_2_number_6");
        List<JsonNode> records = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) records.add(JSON.readTree(line));
        return new Run(records, JSON.readTree(dir.resolve("benchmark_summary.json").toFile()),
                JSON.readTree(dir.resolve("benchmark_percentile.json").toFile()), o.toString());
    }

    @ParameterizedTest(name = "{0} {2}")
    @CsvSource({"openai, /v1/chat/completions, reasoning_content, 1",
            "openai, /v1/chat/completions, reasoning, 1",
            "openai_responses, /v1/responses, reasoning_content, 1",
            "anthropic, /v1/messages, reasoning_content, -1"})
    void reasoningComesFirstAndTheAnswerHasItsOwnTtftAndTpot(String api, String path, String field,
                                                            int reportsReasoning) throws Exception {
        SimConfig reasoning = FAST.with("reasoning-share", 0.5).with("reasoning-field", field);
        try (SimServer sim = SimServer.start(reasoning, Tokenizers.load("cl100k_base"))) {
            Run r = run(sim, api, path);
            assertThat(r.records()).hasSize(6);
            long totalReasoning = 0;
            for (JsonNode row : r.records()) {
                assertThat(row.get("success").asBoolean()).as(row.toString()).isTrue();
                int tokens = row.get("completion_tokens").asInt(); // 12 where ignore_eos is honoured
                assertThat(tokens).isGreaterThanOrEqualTo(4);
                int thinking = tokens / 2; // floor(0.5 x tokens)
                totalReasoning += thinking;
                double firstToken = row.get("first_token_s").asDouble();
                double firstContent = row.get("first_content_token_s").asDouble();
                // the answer's first chunk is the one after the reasoning chunks: TTFCT − TTFT is exactly their gaps
                JsonNode itl = row.get("itl_s");
                assertThat(itl.size()).isEqualTo(tokens - 1);
                double reasoningGaps = 0;
                for (int i = 0; i < thinking; i++) reasoningGaps += itl.get(i).asDouble();
                assertThat(firstContent - firstToken).isCloseTo(reasoningGaps, within(1e-6));
                assertThat(row.get("ttfct_s").asDouble()).isCloseTo(row.get("ttft_s").asDouble() + reasoningGaps,
                        within(1e-6));
                if (reportsReasoning > 0) {
                    assertThat(row.get("reasoning_tokens").asInt()).isEqualTo(thinking);
                    // answer TPOT: the time after the first answer token over the answer's other tokens
                    double answerTpot = (row.get("latency_s").asDouble() - row.get("ttfct_s").asDouble())
                            / (tokens - thinking - 1);
                    assertThat(row.get("answer_tpot_s").asDouble()).isCloseTo(answerTpot, within(1e-6));
                } else {
                    // Anthropic's usage does not split its output: reasoning unknown, and with it the answer's TPOT
                    // (whether or not the first answer chunk came in the same read as the first thinking chunk)
                    assertThat(row.get("reasoning_tokens").isNull()).as(row.toString()).isTrue();
                    assertThat(row.get("answer_tpot_s").isNull()).isTrue();
                }
            }
            JsonNode s = r.summary();
            assertThat(s.get("Avg TTFCT (ms)").asDouble()).isGreaterThanOrEqualTo(s.get("Avg TTFT (ms)").asDouble());
            assertThat(s.has("Avg Answer TPOT (ms)")).isTrue();
            if (reportsReasoning > 0) assertThat(s.get("Total Reasoning Tokens").asLong()).isEqualTo(totalReasoning);
            for (JsonNode row : r.percentiles()) assertThat(row.has("TTFCT (ms)")).isTrue();
            assertThat(r.terminal()).contains("TTFCT (ms, to answer)");
            // TTFCT's intervals where TTFT's are: the mean's t-interval in the summary, the p50's (6 samples are
            // enough for one) in the terminal's row, "p50 [low, high]" as TTFT's
            assertThat(s.get("Avg TTFCT (ms) 95% CI")).hasSize(2);
            if (reportsReasoning > 0) assertThat(s.get("Avg Answer TPOT (ms) 95% CI")).hasSize(2);
            String ttfctRow = r.terminal().lines().filter(l -> l.contains("TTFCT (ms, to answer)")).findFirst()
                    .orElseThrow();
            assertThat(ttfctRow).as(r.terminal()).containsPattern("\\d \\[[0-9.,]+, [0-9.,]+\\]");
            String ttftRow = r.terminal().lines().filter(l -> l.contains("TTFT (ms)")).findFirst().orElseThrow();
            assertThat(ttftRow).containsPattern("\\d \\[[0-9.,]+, [0-9.,]+\\]");
        }
    }

    @Test
    void withoutReasoningTheFirstContentIsTheFirstTokenAndNothingIsAdded() throws Exception {
        try (SimServer sim = SimServer.start(FAST, Tokenizers.load("cl100k_base"))) {
            Run r = run(sim, "openai", "/v1/chat/completions");
            for (JsonNode row : r.records()) {
                assertThat(row.get("success").asBoolean()).isTrue();
                assertThat(row.get("first_content_token_s").asDouble()).isEqualTo(row.get("first_token_s").asDouble());
                assertThat(row.get("ttfct_s").asDouble()).isEqualTo(row.get("ttft_s").asDouble());
                assertThat(row.get("answer_tpot_s").asDouble()).isEqualTo(row.get("tpot_s").asDouble());
                assertThat(row.get("reasoning_tokens").asInt()).isZero();
            }
            assertThat(r.summary().has("Avg TTFCT (ms)")).isFalse();
            assertThat(r.summary().has("Total Reasoning Tokens")).isFalse();
            for (JsonNode row : r.percentiles()) assertThat(row.has("TTFCT (ms)")).isFalse();
            assertThat(r.terminal()).doesNotContain("TTFCT");
        }
    }
}
