package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** trie replay, the swe_smith builder and swe_smith runs through the real CLI against the embedded simulator. */
class AgenticEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String SMALL = "src/test/resources/agentic/trie_small.jsonl";
    static final String TRAJ = "src/test/resources/shared-data/swe_agent/marshmallow-1867.traj";

    @TempDir
    Path out;

    @Test
    void trieReplayWritesTargetsPerRequestAndTraceExtras() throws IOException {
        CliHarness.Run run = CliHarness.main("perf", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t",
                "--multi-turn", "--dataset", "trie_agentic_coding", "--dataset-path", SMALL, "--number", "3",
                "--parallel", "3", "--tool-latency-scale", "0", "--extra-args", "{\"ignore_eos\": true}",
                "--tokenizer-path", "src/test/resources/shared-data/tokenizers/gpt2/tokenizer.json");
        assertThat(run.exit()).as(run.err()).isZero();
        Path dir = out.resolve("t").resolve("parallel_3_number_3");
        List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
        assertThat(lines).hasSize(6); // 3 + 1 + 2 requests
        for (String line : lines) {
            JsonNode r = JSON.readTree(line);
            assertThat(r.get("synthesized_prompt_tokens").asInt()).isEqualTo(r.get("target_prompt_tokens").asInt());
        }
        JsonNode summary = JSON.readTree(dir.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Synthesized Prompts").asLong()).isEqualTo(6);
        assertThat(summary.get("Prompts At Target Length").asLong()).isEqualTo(6);
        assertThat(summary.get("Max Abs Prompt Length Error").asLong()).isZero();
        JsonNode traces = JSON.readTree(dir.resolve("trace_summary.json").toFile());
        assertThat(traces.get("traces_per_second").asDouble()).isPositive();
        assertThat(traces.get("rows").findValuesAsText("metric")).contains("Turns/Trace", "Output Tokens/Trace",
                "Output Tokens/Turn", "Model Time (s)", "Idle Time (s)", "Idle Share (%)");
        assertThat(run.out()).contains("Traces/s").contains("Prompt Lengths").contains("6/6 at target length");
    }

    @Test
    void builderIsDeterministicAndItsFileRuns() throws IOException {
        Path a = out.resolve("a.json");
        Path b = out.resolve("b.json");
        for (Path p : List.of(a, b)) {
            CliHarness.Run run = CliHarness.main("dataset", "build-swe-smith", "--input", TRAJ, "--tokenizer-path",
                    "cl100k_base", "--first-turn-length", "[1500,2000]", "--subsequent-turn-length", "300",
                    "--min-turns", "2", "--max-turns", "3", "--number", "1", "--seed", "7", "--num-workers", "2",
                    "--output", p.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("Trajectories: 1, passed the pre-filter");
        }
        assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
        JsonNode file = JSON.readTree(a.toFile());
        assertThat(file.get("metadata").get("num_conversations").asInt()).isEqualTo(1);
        JsonNode turns = file.get("conversations").get(0);
        assertThat(turns.get(0).get("new_tokens").asInt()).isEqualTo(turns.get(0).get("target_tokens").asInt())
                .isBetween(1500, 2000);
        for (JsonNode t : turns) assertThat(t.get("new_tokens").asInt()).isEqualTo(t.get("target_tokens").asInt());

        CliHarness.Run run = CliHarness.main("perf", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "s",
                "--multi-turn", "--dataset", "swe_smith", "--dataset-path", a.toString(), "--number", "2",
                "--parallel", "1", "--max-tokens", "4");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode summary = JSON.readTree(out.resolve("s/parallel_1_number_2/benchmark_summary.json").toFile());
        assertThat(summary.get("Completed Traces").asLong()).isEqualTo(2); // the one conversation, cycled
    }

    @Test
    void badAgenticInputIsOneLineAndExitTwo() throws IOException {
        Path bad = out.resolve("bad.jsonl");
        Files.writeString(bad, "{\"input_prompt_length\": 5, \"num_turns\": 1}\n");
        assertBad(CliHarness.main("perf", "--multi-turn", "--dataset", "trie_code_qa", "--dataset-path",
                bad.toString()), bad + ":1: field 'assistant_response_length': missing");
        assertBad(CliHarness.main("perf", "--tool-latency-scale", "0"), "--tool-latency-scale applies to conversations");
        assertBad(CliHarness.main("perf", "--multi-turn", "--dataset", "swe_smith"), "needs --dataset-path");
        assertBad(CliHarness.main("dataset", "build-swe-smith", "--input", TRAJ, "--tokenizer-path", "cl100k_base",
                "--number", "2"), "fewer than --number 2");
        assertBad(CliHarness.main("dataset", "build-swe-smith", "--input", bad.toString(), "--tokenizer-path",
                "cl100k_base"), bad + ":1: field 'messages': missing");
    }

    private static void assertBad(CliHarness.Run run, String expected) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).contains(expected).doesNotContain("\n").doesNotContain("Exception");
    }
}
