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
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator keeps a finished reply's KV blocks after its prompt's, as vLLM and SGLang do: through the real
 * client and a two-turn conversation, turn 2 (which re-sends turn 1's prompt and reply) hits the block-aligned
 * prompt + reply of turn 1.
 */
class ReplyPrefixCacheEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BLOCK = 16;
    private static final int REPLY = 21;

    @TempDir
    Path out;

    @Test
    void turnTwoHitsTheBlockAlignedPromptAndReplyOfTurnOne() throws IOException {
        Path data = out.resolve("conv.jsonl");
        Files.writeString(data, """
                [{"role":"user","content":"%s"},{"role":"assistant","content":"x"},{"role":"user","content":"and then?"}]
                """.formatted("Tell me about the history of the river and the city that grew on its banks ".repeat(3)));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withBlockSize(BLOCK))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-db",
                    "--no-test-connection", "--multi-turn", "--dataset", "custom_multi_turn", "--dataset-path",
                    data.toString(), "--number", "1", "--parallel", "1", "--max-tokens", Integer.toString(REPLY),
                    "--extra-args", "{\"ignore_eos\": true}");
            assertThat(run.exit()).as(run.err()).isZero();
        }
        List<String> lines = Files.readAllLines(out.resolve("t/parallel_1_number_1/requests.jsonl"));
        assertThat(lines).hasSize(2);
        JsonNode turn1 = JSON.readTree(lines.get(0));
        JsonNode turn2 = JSON.readTree(lines.get(1));
        int p1 = turn1.get("prompt_tokens").asInt();
        assertThat(turn1.get("completion_tokens").asInt()).isEqualTo(REPLY);
        assertThat(turn1.get("cached_tokens").asInt()).isZero();
        // all of the reply's tokens but the last have KV (the last was sampled, never fed back)
        int expected = (p1 + REPLY - 1) / BLOCK * BLOCK;
        assertThat(expected).as("more than the prompt's own blocks").isGreaterThan(p1 / BLOCK * BLOCK);
        assertThat(turn2.get("cached_tokens").asInt()).isEqualTo(expected);
        assertThat(turn2.get("prompt_tokens").asInt()).isGreaterThan(p1 + REPLY);
    }
}
