package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine seen over HTTP: queue answers, cancellation in stats and /metrics, multi-turn prefix hits. */
class SimEngineHttpTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(0).withItlMs(1).withPrefillMsPerToken(0);

    private static ObjectNode chat(String text, int maxTokens, boolean stream) {
        ObjectNode b = JSON.createObjectNode();
        b.putArray("messages").addObject().put("role", "user").put("content", text);
        b.put("max_tokens", maxTokens);
        b.put("ignore_eos", true);
        b.put("stream", stream);
        return b;
    }

    private static void await(SimServer s, Predicate<SimStats> condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.test(s.stats())) {
            assertThat(System.nanoTime()).as("within 10 s: " + s.stats() + "\n" + s.metricsText()).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void fullQueueIs429AndALongWaitIs503BothWithRetryAfterAndTheQueueDrains() throws Exception {
        SimConfig c = FAST.withItlMs(20).with(Map.of("max-num-seqs", 1, "max-queue", 1, "max-queue-wait-ms", 600,
                "retry-after-s", 3));
        try (SimServer sim = SimServer.start(c, TOKENIZER);
             RawHttp busy = new RawHttp(sim.port()); RawHttp waiter = new RawHttp(sim.port());
             RawHttp third = new RawHttp(sim.port())) {
            long sent = busy.send("POST", "/v1/chat/completions", chat("occupies the only slot", 500, true).toString());
            busy.read(sent, 2); // head + first token: it runs (500 tokens x 20 ms = 10 s, cut short below)
            waiter.send("POST", "/v1/chat/completions", chat("waits", 3, false).toString());
            await(sim, s -> s.waiting() == 1);
            RawHttp.Response full = third.exchange("POST", "/v1/chat/completions", chat("no room", 3, false).toString());
            assertThat(full.status()).isEqualTo(429);
            assertThat(full.headers()).containsEntry("retry-after", "3");
            RawHttp.Response expired = waiter.read(0, Integer.MAX_VALUE);
            assertThat(expired.status()).isEqualTo(503);
            assertThat(expired.headers()).containsEntry("retry-after", "3");
            assertThat(expired.body()).contains("waited longer than 600 ms");
            busy.close(); // load stops
            await(sim, s -> s.running() == 0 && s.waiting() == 0 && s.streamsActive() == 0);
            assertThat(sim.stats().rejected()).isEqualTo(2);
            assertThat(sim.metricsText()).contains("reason=\"queue_full\"} 1", "reason=\"queue_timeout\"} 1",
                    "vllm:num_requests_waiting{model_name=\"unibench-sim\"} 0");
        }
    }

    @Test
    void disconnectFreesTheSlotAndMetricsShowTheCancellation() throws Exception {
        try (SimServer sim = SimServer.start(FAST.withItlMs(10), TOKENIZER)) {
            try (RawHttp client = new RawHttp(sim.port())) {
                long sent = client.send("POST", "/v1/chat/completions", chat("abandoned", 5000, true).toString());
                client.read(sent, 3);
                await(sim, s -> s.running() == 1);
            }
            await(sim, s -> s.running() == 0 && s.streamsCancelled() == 1);
            long tokens = sim.stats().generationTokensTotal();
            long steps = sim.stats().engineSteps();
            // the engine is idle now: a later request adds exactly its own tokens, the cancelled one none
            try (RawHttp client = new RawHttp(sim.port())) {
                assertThat(client.exchange("POST", "/v1/chat/completions", chat("next", 7, false).toString()).status())
                        .isEqualTo(200);
            }
            assertThat(sim.stats().generationTokensTotal()).isEqualTo(tokens + 7);
            assertThat(sim.stats().engineSteps()).isEqualTo(steps + 7);
            String metrics = sim.metricsText();
            assertThat(metrics).contains("unibench:requests_cancelled_total{model_name=\"unibench-sim\"} 1",
                    "vllm:num_requests_running{model_name=\"unibench-sim\"} 0",
                    "vllm:generation_tokens_total{model_name=\"unibench-sim\"} " + (tokens + 7));
        }
    }

    @Test
    void metricsEndpointSpeaksPrometheusWithVllmNames() throws Exception {
        try (SimServer sim = SimServer.start(FAST, TOKENIZER); RawHttp client = new RawHttp(sim.port())) {
            client.exchange("POST", "/v1/chat/completions", chat("one", 5, true).toString());
            RawHttp.Response r = client.exchange("GET", "/metrics", null);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.headers().get("content-type")).startsWith("text/plain");
            assertThat(r.body()).contains("# TYPE vllm:time_to_first_token_seconds histogram",
                    "vllm:time_to_first_token_seconds_bucket{model_name=\"unibench-sim\",le=\"+Inf\"} 1",
                    "vllm:inter_token_latency_seconds_count{model_name=\"unibench-sim\"} 4",
                    "vllm:generation_tokens_total{model_name=\"unibench-sim\"} 5",
                    "vllm:request_success_total{model_name=\"unibench-sim\",finish_reason=\"length\"} 1",
                    "vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
                    "vllm:prompt_tokens_total");
        }
    }

    @Test
    void tokenizeAnswersLlamaCppAndVllmBodies() throws Exception {
        try (SimServer sim = SimServer.start(FAST, TOKENIZER); RawHttp client = new RawHttp(sim.port())) {
            String text = "The quick brown fox jumps over the lazy dog.";
            JsonNode llama = JSON.readTree(client.exchange("POST", "/tokenize",
                    "{\"content\":\"" + text + "\"}").body());
            assertThat(llama.get("tokens")).hasSize(TOKENIZER.count(text));
            assertThat(llama.get("tokens").get(0).asInt()).isEqualTo(TOKENIZER.encode(text)[0]);
            JsonNode vllm = JSON.readTree(client.exchange("POST", "/tokenize",
                    "{\"model\":\"m\",\"prompt\":\"" + text + "\",\"add_special_tokens\":false}").body());
            assertThat(vllm.get("count").asInt()).isEqualTo(TOKENIZER.count(text));
            JsonNode chat = JSON.readTree(client.exchange("POST", "/tokenize",
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}").body());
            assertThat(chat.get("count").asInt()).isEqualTo(TOKENIZER.count(ChatTemplate.render(
                    java.util.List.of(new ChatTemplate.Message("user", text)))));
            assertThat(client.exchange("POST", "/tokenize", "{\"model\":\"m\"}").status()).isEqualTo(400);
        }
    }

    /** Every bundled encoding: the reply's words tokenize apart from the template text around them. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"cl100k_base", "o200k_base", "p50k_base", "r50k_base"})
    void secondTurnHitsTheBlockAlignedPromptAndReplyOfTheFirst(String encoding) throws Exception {
        Tokenizer tokenizer = Tokenizers.load(encoding);
        try (SimServer sim = SimServer.start(FAST.withTokenizer(encoding), tokenizer);
             RawHttp client = new RawHttp(sim.port())) {
            ObjectNode turn1 = chat("Tell me about rivers and the sea. ".repeat(20), 12, false);
            JsonNode r1 = JSON.readTree(client.exchange("POST", "/v1/chat/completions", turn1.toString()).body());
            assertThat(r1.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
            String reply = r1.at("/choices/0/message/content").asText();
            ObjectNode turn2 = turn1.deepCopy();
            ArrayNode messages = (ArrayNode) turn2.get("messages");
            messages.addObject().put("role", "assistant").put("content", reply);
            messages.addObject().put("role", "user").put("content", "And the lakes?");
            JsonNode r2 = JSON.readTree(client.exchange("POST", "/v1/chat/completions", turn2.toString()).body());
            // the tokens turn 1 left with KV: its prompt and its reply but the reply's last token (never fed back)
            int[] p1 = tokenizer.encode(ChatTemplate.render(java.util.List.of(
                    new ChatTemplate.Message("user", turn1.at("/messages/0/content").asText()))));
            int[] r = tokenizer.encode(reply);
            assertThat(r).hasSize(r1.at("/usage/completion_tokens").asInt()); // one token per word
            int[] computed = java.util.stream.IntStream.concat(java.util.Arrays.stream(p1),
                    java.util.Arrays.stream(r, 0, r.length - 1)).toArray();
            int[] p2 = tokenizer.encode(ChatTemplate.render(java.util.List.of(
                    new ChatTemplate.Message("user", turn1.at("/messages/0/content").asText()),
                    new ChatTemplate.Message("assistant", reply),
                    new ChatTemplate.Message("user", "And the lakes?"))));
            // the template puts nothing between the prompt and the reply that tokenizes across the boundary
            int shared = 0;
            while (shared < Math.min(computed.length, p2.length) && computed[shared] == p2[shared]) shared++;
            assertThat(shared).isEqualTo(computed.length);
            int expected = computed.length / 16 * 16;
            assertThat(expected).isGreaterThan(p1.length / 16 * 16);
            assertThat(r2.at("/usage/prompt_tokens").asInt()).isEqualTo(p2.length);
            assertThat(r2.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(expected);
        }
    }
}
