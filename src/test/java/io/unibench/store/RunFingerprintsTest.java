package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.WorkloadFingerprint;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * Who counted a run's prompt and output tokens, per tool as its source does it (docs/import.md's table): vLLM's
 * prompts by its tokenizer and outputs from the server's usage, evalscope's and GuideLLM's both from the usage,
 * AIPerf's both by its tokenizer unless it was told to trust the server's usage, ours as its points counted them.
 */
class RunFingerprintsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static StoredRun imported(String format, String args) throws Exception {
        JsonNode config = JSON.readTree("{\"imported_from\": \"" + format + "\", \"source_args\": " + args + "}");
        return new StoredRun(row(), config, JSON.readTree("{}"), List.of());
    }

    private static RunRow row() {
        return new RunRow("r", null, "m", null, RunRow.FINISHED, 0, 1L, 1, 1, List.of(), null);
    }

    private static Map<String, Object> tokens(StoredRun run) {
        Map<String, Object> m = RunFingerprints.of(run).toMap();
        return Map.of("prompt", String.valueOf(m.get("prompt_tokens")), "output", String.valueOf(m.get("output_tokens")));
    }

    @Test
    void eachToolSaysWhoCountedEachSide() throws Exception {
        assertThat(tokens(imported("vllm-bench-serve", "{\"backend\": \"openai-chat\", \"tokenizer_id\": \"qwen-plus\"}")))
                .containsEntry("prompt", "tokenizer qwen-plus")
                .containsEntry("output", "server usage (else tokenizer qwen-plus)");
        assertThat(tokens(imported("evalscope-perf", "{\"tokenizer_path\": \"stub\", \"stream\": true}")))
                .containsEntry("prompt", "server usage (else tokenizer stub)")
                .containsEntry("output", "server usage (else tokenizer stub)");
        assertThat(tokens(imported("aiperf", "{\"endpoint\": {\"model_names\": [\"openai/gpt-oss-20b\"]}}")))
                .containsEntry("prompt", "tokenizer openai/gpt-oss-20b")
                .containsEntry("output", "tokenizer openai/gpt-oss-20b");
        assertThat(tokens(imported("aiperf", "{\"endpoint\": {\"use_server_token_count\": true}, "
                + "\"tokenizer\": {\"name\": \"t\"}}")))
                .containsEntry("prompt", "server usage").containsEntry("output", "server usage");
        assertThat(tokens(imported("guidellm", "{\"spec\": {\"backend\": {}, \"profile\": {\"kind\": \"constant\"}}}")))
                .containsEntry("prompt", "server usage")
                .containsEntry("output", "server usage (else one token per chunk)");
        // a Benchmark Report does not say how its tool counted: not known
        assertThat(tokens(imported("br-v0.2", "{}"))).containsEntry("prompt", "null").containsEntry("output", "null");
    }

    @Test
    void oursIsWhatItsPointsCounted() throws Exception {
        StoredPoint server = point("{\"Token Count Source\": \"server\"}");
        StoredPoint tokenizer = point("{\"Token Count Source\": \"client tokenizer\"}");
        JsonNode config = JSON.readTree("{\"tokenizer\": \"Qwen/Qwen3-0.6B\"}");
        assertThat(tokens(new StoredRun(row(), config, null, List.of(server))))
                .containsEntry("prompt", "server usage").containsEntry("output", "server usage");
        assertThat(tokens(new StoredRun(row(), config, null, List.of(tokenizer))))
                .containsEntry("output", "tokenizer Qwen/Qwen3-0.6B");
        // ours counted by the server against vLLM's: its output side compares, its prompt side does not
        WorkloadFingerprint ours = RunFingerprints.of(new StoredRun(row(), config, null, List.of(server)));
        WorkloadFingerprint vllm = RunFingerprints.of(imported("vllm-bench-serve", "{\"tokenizer_id\": \"qwen-plus\"}"));
        assertThat(WorkloadFingerprint.refusals(ours, vllm)).extracting(WorkloadFingerprint.Refusal::field)
                .contains("prompt_tokens").doesNotContain("output_tokens");
        // a run without points (stored before the counts were recorded): not known
        assertThat(tokens(new StoredRun(row(), config, null, List.of()))).containsEntry("output", "null");
    }

    private static StoredPoint point(String summary) throws Exception {
        return new StoredPoint(0, "p0", 1, -1, 1, 0, JSON.readTree(summary), null, null, null, null);
    }
}
