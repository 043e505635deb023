package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code --api} end to end: the real CLI against the embedded simulator through the capturing proxy, checking
 * what reached the wire (path, headers, body) and what the run reported (summary, requests.jsonl).
 */
class ApiFormatsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;
    private static CapturingProxy proxy;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws IOException {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withPrefillMsPerToken(0).withItlMs(1));
        proxy = new CapturingProxy(sim.baseUrl());
    }

    @AfterAll
    static void stop() {
        proxy.close();
        sim.close();
    }

    record Result(int exit, String out, String err, List<CapturingProxy.Captured> requests, Path root) {
        Result ok() {
            assertThat(exit).as(err).isZero();
            assertThat(requests).as(err).isNotEmpty();
            return this;
        }

        JsonNode body() {
            return requests.getFirst().body();
        }

        JsonNode summary() {
            return read(root.resolve("parallel_2_number_4/benchmark_summary.json"));
        }

        List<JsonNode> jsonl() {
            try {
                List<JsonNode> rows = new ArrayList<>();
                for (String line : Files.readAllLines(root.resolve("parallel_2_number_4/requests.jsonl"))) rows.add(JSON.readTree(line));
                return rows;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void refused(String flag) {
            assertThat(exit).as(err).isEqualTo(2);
            assertThat(err.strip()).contains(flag).doesNotContain("\n").doesNotContain("Exception");
            assertThat(requests).isEmpty();
        }
    }

    private static JsonNode read(Path file) {
        try {
            return JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** perf against the proxy: 4 requests at concurrency 2, the flags given after the defaults. */
    private Result run(String... flags) {
        List<String> args = new ArrayList<>(List.of("perf", "--no-db", "--no-test-connection", "--url",
                proxy.baseUrl() + "/v1", "--model", "m", "--outputs-dir", tmp.resolve("out").toString(), "--name", "t",
                "--no-timestamp", "--number", "4", "--parallel", "2"));
        List<String> given = Arrays.asList(flags);
        if (!given.contains("--min-prompt-length")) args.addAll(List.of("--min-prompt-length", "16", "--max-prompt-length", "16"));
        args.addAll(given);
        proxy.clear();
        CliHarness.Run run = CliHarness.main(args.toArray(String[]::new));
        return new Result(run.exit(), run.out(), run.err(), proxy.requests(), tmp.resolve("out").resolve("t"));
    }

    @Test
    void responsesApiStreamsTypedEventsAndReportsTheirUsage() {
        Result r = run("--api", "openai_responses", "--max-tokens", "6").ok();
        assertThat(r.requests()).allSatisfy(c -> assertThat(c.path()).isEqualTo("/v1/responses"));
        JsonNode body = r.body();
        assertThat(body.get("max_output_tokens").asInt()).isEqualTo(6);
        assertThat(body.get("input").get(0).get("role").asText()).isEqualTo("user");
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.has("max_tokens")).isFalse();
        assertThat(body.has("stream_options")).isFalse();
        assertThat(body.has("messages")).isFalse();
        JsonNode s = r.summary();
        assertThat(s.get("Success Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Stream Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Avg Output Tokens").asDouble()).isBetween(1.0, 6.0);
        assertThat(s.get("Avg TTFT (ms)").asDouble()).isPositive();
        assertThat(s.get("Token Count Source").asText()).isEqualTo("server");
        // the prompt tokens are the simulator's count of the rendered messages, as input_tokens said
        assertThat(s.get("Avg Input Tokens").asDouble()).isGreaterThan(16);
        assertThat(r.jsonl()).allSatisfy(row -> assertThat(row.get("finish_reason").asText())
                .isIn("completed", "max_output_tokens"));
        assertThat(r.out()).contains("openai responses");
    }

    @Test
    void responsesApiFailureIsItsErrorClassWithTheServersCode() {
        Result r = run("--api", "responses", "--max-tokens", "8", "--headers", "X-Unibench-Fault={\"type\":\"fail-midstream\",\"after_chunks\":0}");
        assertThat(r.exit()).as(r.err()).isNotEqualTo(2);
        assertThat(r.requests()).isNotEmpty();
        JsonNode row = r.jsonl().getFirst();
        assertThat(row.get("success").asBoolean()).isFalse();
        assertThat(row.get("error_class").asText()).isEqualTo("business_error");
        assertThat(row.get("error_type").asText()).isEqualTo("server_error");
        assertThat(row.get("error_message").asText()).contains("injected fault");
    }

    @Test
    void anthropicMessagesSendItsHeadersAndFieldsAndReadItsEvents() {
        Result r = run("--api", "anthropic", "--api-key", "sk-ant-secret-4242", "--max-tokens", "5", "--stop", "END",
                "--top-k", "7").ok();
        CapturingProxy.Captured first = r.requests().getFirst();
        assertThat(first.path()).isEqualTo("/v1/messages");
        assertThat(first.headers()).containsEntry("x-api-key", "sk-ant-secret-4242")
                .containsEntry("anthropic-version", "2023-06-01").doesNotContainKey("authorization");
        JsonNode body = first.body();
        assertThat(body.get("max_tokens").asInt()).isEqualTo(5);
        assertThat(body.get("stop_sequences").get(0).asText()).isEqualTo("END");
        assertThat(body.get("top_k").asInt()).isEqualTo(7);
        assertThat(body.get("messages").get(0).get("role").asText()).isEqualTo("user");
        assertThat(body.has("stream_options")).isFalse();
        JsonNode s = r.summary();
        assertThat(s.get("Success Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Avg Output Tokens").asDouble()).isBetween(1.0, 5.0);
        assertThat(s.get("Token Count Source").asText()).isEqualTo("server");
        assertThat(r.jsonl()).allSatisfy(row -> assertThat(row.get("finish_reason").asText()).isIn("end_turn", "max_tokens"));
        // the key never reaches a file in clear
        try (var files = Files.walk(r.root())) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f)).as(f.toString()).doesNotContain("secret-4242");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anthropicMultiTurnFeedsRepliesBackAndReadsTheCacheFromCacheReadInputTokens() {
        Result r = run("--api", "anthropic", "--multi-turn", "--dataset", "random_multi_turn", "--max-turns", "3",
                "--min-turns", "3", "--max-tokens", "4").ok();
        JsonNode third = r.requests().stream().map(CapturingProxy.Captured::body)
                .filter(b -> b.get("messages").size() == 5).findFirst().orElseThrow();
        assertThat(third.get("messages").get(1).get("role").asText()).isEqualTo("assistant");
        assertThat(third.get("messages").get(1).get("content").asText()).isNotEmpty();
        JsonNode s = r.summary();
        assertThat(s.get("Success Requests").asInt()).isEqualTo(12);
        assertThat(s.get("Cache Hit Source").asText()).isEqualTo("server");
        assertThat(s.get("KV Cache Hit Rate (%)").asDouble()).isPositive();
    }

    @Test
    void embeddingsBatchesInputsAndReportsInputThroughput() {
        Result r = run("--api", "openai_embedding", "--dataset", "random_embedding_batch", "--extra-args",
                "{\"batch_size\": 3}").ok();
        assertThat(r.requests()).allSatisfy(c -> assertThat(c.path()).isEqualTo("/v1/embeddings"));
        JsonNode body = r.body();
        assertThat(body.get("input").size()).isEqualTo(3);
        assertThat(body.get("model").asText()).isEqualTo("m");
        assertThat(body.get("batch_size").asInt()).isEqualTo(3); // evalscope sends its extra args too
        assertThat(body.has("max_tokens")).isFalse();
        assertThat(body.has("stream")).isFalse();
        JsonNode s = r.summary();
        assertThat(s.get("Success Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Non-Stream Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Avg Output Tokens").asDouble()).isZero();
        assertThat(s.get("Avg Input Tokens").asDouble()).isEqualTo(48.0); // 3 texts of exactly 16 tokens
        double latency = s.get("Avg Latency (s)").asDouble();
        assertThat(s.get("Input Throughput (tok/s)").asDouble()).isCloseTo(48.0 / latency,
                org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(r.out()).contains("Embedding/Rerank Performance Test Summary");
        JsonNode percentiles = read(r.root().resolve("parallel_2_number_4/benchmark_percentile.json"));
        assertThat(percentiles.get(0).has("Input (tok/s)")).isTrue();
    }

    @Test
    void rerankSendsQueryAndDocuments() {
        Result r = run("--api", "openai_rerank", "--extra-args", "{\"num_documents\": 3}").ok();
        assertThat(r.requests()).allSatisfy(c -> assertThat(c.path()).isEqualTo("/v1/rerank"));
        JsonNode body = r.body();
        assertThat(body.get("query").asText()).isNotEmpty();
        assertThat(body.get("documents").size()).isEqualTo(3);
        JsonNode s = r.summary();
        assertThat(s.get("Success Requests").asInt()).isEqualTo(4);
        assertThat(s.get("Input Throughput (tok/s)").asDouble()).isPositive();
    }

    @Test
    void tokenizePromptSendsExactTokenIdsToCompletions() {
        Result r = run("--tokenize-prompt", "--tokenizer-path", Tokenizers.DEFAULT, "--dataset", "random",
                "--min-prompt-length", "40", "--max-prompt-length", "40", "--max-tokens", "2").ok();
        CapturingProxy.Captured first = r.requests().getFirst();
        assertThat(first.path()).isEqualTo("/v1/completions");
        JsonNode prompt = first.body().get("prompt");
        assertThat(prompt.isArray()).isTrue();
        assertThat(prompt.size()).isEqualTo(40);
        assertThat(prompt.get(0).isInt()).isTrue();
        assertThat(r.summary().get("Avg Input Tokens").asDouble()).isEqualTo(40.0); // the server counted the ids
    }

    @Test
    void flagsAnApiHasNoFieldForAreRefused() {
        run("--api", "responses", "--stop", "x").refused("--stop");
        run("--api", "anthropic", "--min-tokens", "2").refused("--min-tokens");
        run("--api", "openai_embedding", "--max-tokens", "4").refused("--max-tokens");
        run("--api", "rerank", "--dataset", "random").refused("--dataset random");
        run("--api", "openai", "--dataset", "random_embedding").refused("--dataset random_embedding");
        run("--api", "anthropic", "--tokenize-prompt").refused("--tokenize-prompt");
        run("--api", "gemini").refused("--api 'gemini'");
    }
}
