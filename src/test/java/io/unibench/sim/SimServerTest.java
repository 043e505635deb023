package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    /** Fast timings: these tests check the wire format and the counts, not the latency. */
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(1).withItlMs(0.2).withPrefillMsPerToken(0);

    private static SimServer sim;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        sim = SimServer.start(FAST, TOKENIZER);
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    // ---- helpers ----

    private static ObjectNode chatBody(String userText) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "my-model");
        ObjectNode msg = body.putArray("messages").addObject();
        msg.put("role", "user");
        msg.put("content", userText);
        return body;
    }

    private static List<JsonNode> json(List<RawHttp.Event> events) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (RawHttp.Event e : events.subList(0, events.size() - 1)) out.add(JSON.readTree(e.data()));
        return out;
    }

    private static RawHttp.Response raw(SimServer server, String method, String path, Object body) throws IOException {
        try (RawHttp client = new RawHttp(server.port())) {
            return client.exchange(method, path, body == null ? null : JSON.writeValueAsString(body));
        }
    }

    private static JsonNode postJson(SimServer server, String path, Object body, int expectedStatus) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : JSON.writeValueAsString(body)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expectedStatus);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        return JSON.readTree(r.body());
    }

    private static String renderedUser(String text) {
        return "<|user|>\n" + text + "\n<|assistant|>\n";
    }

    private static void awaitStats(SimServer server, Predicate<SimStats> condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L; // bounded: a broken server fails instead of hanging
        while (!condition.test(server.stats())) {
            assertThat(System.nanoTime()).as("stats condition within 10 s: " + server.stats()).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    // ---- streaming format ----

    @Test
    void chatStreamHasRoleContentFinishUsageAndDone() throws Exception {
        ObjectNode body = chatBody("Tell me about the stream format test number one.");
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        body.put("max_tokens", 200);
        RawHttp.Response r = raw(sim, "POST", "/v1/chat/completions", body);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers()).containsEntry("content-type", "text/event-stream")
                .containsEntry("cache-control", "no-cache").containsEntry("transfer-encoding", "chunked");
        assertThat(r.events()).last().extracting(RawHttp.Event::data).isEqualTo("[DONE]");
        List<JsonNode> chunks = json(r.events());

        JsonNode role = chunks.get(0);
        assertThat(role.get("object").asText()).isEqualTo("chat.completion.chunk");
        assertThat(role.get("model").asText()).isEqualTo("my-model");
        assertThat(role.at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        assertThat(role.at("/choices/0/delta/content").asText()).isEmpty();
        assertThat(role.at("/choices/0/finish_reason").isNull()).isTrue();

        JsonNode usage = chunks.get(chunks.size() - 1);
        assertThat(usage.get("choices")).isEmpty();
        JsonNode finish = chunks.get(chunks.size() - 2);
        assertThat(finish.at("/choices/0/delta").isEmpty()).isTrue();
        String reason = finish.at("/choices/0/finish_reason").asText();
        assertThat(reason).isIn("stop", "length");

        List<JsonNode> content = chunks.subList(1, chunks.size() - 2);
        assertThat(content).isNotEmpty().allSatisfy(c -> {
            assertThat(c.at("/choices/0/delta/content").asText()).matches(" [a-z]+");
            assertThat(c.at("/choices/0/finish_reason").isNull()).isTrue();
        });
        assertThat(chunks).extracting(c -> c.get("id").asText()).containsOnly(role.get("id").asText());
        assertThat(role.get("id").asText()).startsWith("chatcmpl-");

        String text = content.stream().map(c -> c.at("/choices/0/delta/content").asText()).collect(Collectors.joining());
        int promptTokens = TOKENIZER.count(renderedUser("Tell me about the stream format test number one."));
        assertThat(usage.at("/usage/prompt_tokens").asInt()).isEqualTo(promptTokens);
        assertThat(usage.at("/usage/completion_tokens").asInt()).isEqualTo(content.size())
                .isEqualTo(TOKENIZER.count(text));
        assertThat(usage.at("/usage/total_tokens").asInt()).isEqualTo(promptTokens + content.size());
        assertThat(usage.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
        assertThat(reason).isEqualTo(content.size() == 200 ? "length" : "stop");
    }

    @Test
    void chatStreamWithoutIncludeUsageHasNoUsageChunk() throws Exception {
        ObjectNode body = chatBody("No usage please.");
        body.put("stream", true);
        body.put("max_tokens", 5);
        body.put("ignore_eos", true);
        List<JsonNode> chunks = json(raw(sim, "POST", "/v1/chat/completions", body).events());
        assertThat(chunks).hasSize(1 + 5 + 1).noneMatch(c -> c.has("usage"));
        assertThat(chunks.get(6).at("/choices/0/finish_reason").asText()).isEqualTo("length");

        body.putObject("stream_options").put("include_usage", false);
        assertThat(json(raw(sim, "POST", "/v1/chat/completions", body).events())).hasSize(7);
    }

    @Test
    void completionsStreamUsesTextChunks() throws Exception {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "m2");
        body.put("prompt", "Once upon a time in a completions stream");
        body.put("stream", true);
        body.put("max_tokens", 8);
        body.put("ignore_eos", true);
        body.putObject("stream_options").put("include_usage", true);
        List<JsonNode> chunks = json(raw(sim, "POST", "/v1/completions", body).events());
        assertThat(chunks).hasSize(8 + 2);
        assertThat(chunks).allSatisfy(c -> assertThat(c.get("object").asText()).isEqualTo("text_completion"));
        assertThat(chunks.get(0).get("id").asText()).startsWith("cmpl-");
        assertThat(chunks.subList(0, 8)).allSatisfy(c -> assertThat(c.at("/choices/0/text").asText()).matches(" [a-z]+"));
        assertThat(chunks.get(8).at("/choices/0/text").asText()).isEmpty();
        assertThat(chunks.get(8).at("/choices/0/finish_reason").asText()).isEqualTo("length");
        JsonNode usage = chunks.get(9).get("usage");
        assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(TOKENIZER.count("Once upon a time in a completions stream"));
        assertThat(usage.get("completion_tokens").asInt()).isEqualTo(8);
    }

    @Test
    void aRealClientReadsTheStream() throws Exception {
        ObjectNode body = chatBody("JDK client stream");
        body.put("stream", true);
        body.put("max_tokens", 12);
        body.put("ignore_eos", true);
        HttpResponse<java.util.stream.Stream<String>> r = http.send(
                HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/chat/completions"))
                        .timeout(Duration.ofSeconds(20))
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofLines());
        List<String> data = r.body().filter(l -> l.startsWith("data: ")).toList();
        assertThat(data).hasSize(1 + 12 + 1 + 1).last().isEqualTo("data: [DONE]");
    }

    // ---- non-streamed ----

    @Test
    void nonStreamChatBodyHasMessageFinishAndUsage() throws Exception {
        ObjectNode body = chatBody("A non streamed question");
        body.put("max_completion_tokens", 30);
        body.put("min_tokens", 30);
        JsonNode r = postJson(sim, "/v1/chat/completions", body, 200);
        assertThat(r.get("object").asText()).isEqualTo("chat.completion");
        assertThat(r.get("model").asText()).isEqualTo("my-model");
        assertThat(r.at("/choices/0/message/role").asText()).isEqualTo("assistant");
        String content = r.at("/choices/0/message/content").asText();
        assertThat(TOKENIZER.count(content)).isEqualTo(30);
        assertThat(r.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        assertThat(r.at("/usage/prompt_tokens").asInt()).isEqualTo(TOKENIZER.count(renderedUser("A non streamed question")));
        assertThat(r.at("/usage/completion_tokens").asInt()).isEqualTo(30);
        assertThat(r.at("/usage/prompt_tokens_details/cached_tokens").isInt()).isTrue();
    }

    @Test
    void nonStreamCompletionsWithSeveralPromptsGivesOneChoiceEach() throws Exception {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode prompts = body.putArray("prompt");
        prompts.add("first prompt of a batch");
        prompts.add("second prompt, a bit longer than the first one");
        body.put("max_tokens", 6);
        body.put("ignore_eos", true);
        JsonNode r = postJson(sim, "/v1/completions", body, 200);
        assertThat(r.get("object").asText()).isEqualTo("text_completion");
        assertThat(r.get("model").asText()).as("absent model: the server's").isEqualTo("unibench-sim");
        assertThat(r.get("choices")).hasSize(2);
        assertThat(r.at("/choices/1/index").asInt()).isEqualTo(1);
        assertThat(TOKENIZER.count(r.at("/choices/1/text").asText())).isEqualTo(6);
        assertThat(r.at("/usage/prompt_tokens").asInt()).isEqualTo(
                TOKENIZER.count("first prompt of a batch") + TOKENIZER.count("second prompt, a bit longer than the first one"));
        assertThat(r.at("/usage/completion_tokens").asInt()).isEqualTo(12);
    }

    @Test
    void contentPartsAreJoinedAndSystemMessagesCount() throws Exception {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", "You are terse.");
        ObjectNode user = messages.addObject().put("role", "user");
        ArrayNode parts = user.putArray("content");
        parts.addObject().put("type", "text").put("text", "Part one.");
        parts.addObject().put("type", "image_url").putObject("image_url").put("url", "http://x/y.png");
        parts.addObject().put("type", "text").put("text", "Part two.");
        body.put("max_tokens", 1);
        JsonNode r = postJson(sim, "/v1/chat/completions", body, 200);
        String rendered = "<|system|>\nYou are terse.\n<|user|>\nPart one.\nPart two.\n<|assistant|>\n";
        assertThat(r.at("/usage/prompt_tokens").asInt()).isEqualTo(TOKENIZER.count(rendered));
    }

    // ---- output length control ----

    @Test
    void minAndMaxTokensBoundTheNaturalLength() throws Exception {
        for (int seed = 0; seed < 5; seed++) {
            ObjectNode body = chatBody("bounded lengths");
            body.put("max_tokens", 20);
            body.put("min_tokens", 15);
            body.put("seed", seed);
            JsonNode r = postJson(sim, "/v1/chat/completions", body, 200);
            int n = r.at("/usage/completion_tokens").asInt();
            assertThat(n).isBetween(15, 20);
            assertThat(r.at("/choices/0/finish_reason").asText()).isEqualTo(n == 20 ? "length" : "stop");
        }
    }

    @Test
    void sameRequestGivesSameOutput() throws Exception {
        ObjectNode body = chatBody("determinism check " + "x".repeat(10));
        body.put("max_tokens", 500);
        JsonNode a = postJson(sim, "/v1/chat/completions", body, 200);
        JsonNode b = postJson(sim, "/v1/chat/completions", body, 200);
        assertThat(a.at("/choices/0/message/content")).isEqualTo(b.at("/choices/0/message/content"));
        assertThat(a.at("/usage/completion_tokens")).isEqualTo(b.at("/usage/completion_tokens"));
        body.put("seed", 99);
        JsonNode c = postJson(sim, "/v1/chat/completions", body, 200);
        assertThat(c.at("/choices/0/message/content")).isNotEqualTo(a.at("/choices/0/message/content"));
    }

    // ---- prefix cache ----

    @Test
    void sharedTokenPrefixIsReportedAsCachedWholeBlocks() throws Exception {
        int[] prefix = IntStream.range(5000, 5100).toArray(); // 100 tokens
        JsonNode first = postJson(sim, "/v1/completions", tokenPrompt(prefix, 7000), 200);
        assertThat(first.at("/usage/prompt_tokens").asInt()).isEqualTo(130);
        assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
        JsonNode second = postJson(sim, "/v1/completions", tokenPrompt(prefix, 8000), 200);
        assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(100 / 16 * 16);
    }

    @Test
    void sharedTextPrefixIsCachedByTokens() throws Exception {
        String system = "You are a helpful assistant for the cached text prefix test. ".repeat(8);
        ObjectNode a = chatBody(system + "First question?");
        ObjectNode b = chatBody(system + "Second, different question?");
        a.put("max_tokens", 1);
        b.put("max_tokens", 1);
        postJson(sim, "/v1/chat/completions", a, 200);
        JsonNode r = postJson(sim, "/v1/chat/completions", b, 200);
        int[] ta = TOKENIZER.encode(renderedUser(system + "First question?"));
        int[] tb = TOKENIZER.encode(renderedUser(system + "Second, different question?"));
        int common = 0;
        while (common < Math.min(ta.length, tb.length) && ta[common] == tb[common]) common++;
        assertThat(common).isGreaterThan(32);
        assertThat(r.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(common / 16 * 16);
    }

    private static ObjectNode tokenPrompt(int[] prefix, int suffixStart) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode ids = body.putArray("prompt");
        for (int t : prefix) ids.add(t);
        for (int t = suffixStart; t < suffixStart + 30; t++) ids.add(t);
        body.put("max_tokens", 1);
        return body;
    }

    @Test
    void withoutCachedTokenReportingTheDetailsAreOmittedButTheCacheIsUsed() throws Exception {
        try (SimServer quiet = SimServer.start(FAST.withReportCachedTokens(false), TOKENIZER)) {
            int[] prefix = IntStream.range(100, 200).toArray();
            JsonNode first = postJson(quiet, "/v1/completions", tokenPrompt(prefix, 1000), 200);
            assertThat(first.get("usage").has("prompt_tokens_details")).isFalse();
            ObjectNode body = tokenPrompt(prefix, 2000);
            body.put("stream", true);
            body.putObject("stream_options").put("include_usage", true);
            List<JsonNode> chunks = json(raw(quiet, "POST", "/v1/completions", body).events());
            JsonNode usage = chunks.get(chunks.size() - 1).get("usage");
            assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(130);
            assertThat(usage.has("prompt_tokens_details")).isFalse();
            assertThat(quiet.stats().cachedTokensTotal()).isEqualTo(96);
        }
    }

    // ---- errors, models, health, keep-alive ----

    @Test
    void unknownPathIs404WithOpenAiError() throws Exception {
        RawHttp.Response r = raw(sim, "GET", "/v1/nothing-here", null);
        assertThat(r.status()).isEqualTo(404);
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("NotFoundError");
        assertThat(error.get("code").asInt()).isEqualTo(404);
        assertThat(error.get("param").isNull()).isTrue();
        assertThat(error.get("message").asText()).contains("/v1/nothing-here");
    }

    @Test
    void badRequestsAre400NamingTheField() throws Exception {
        assertBadRequest("/v1/chat/completions", "{not json", null, "JSON");
        assertBadRequest("/v1/chat/completions", "{\"model\":\"m\"}", "messages", "messages");
        assertBadRequest("/v1/chat/completions", "{\"messages\":[]}", "messages", "messages");
        assertBadRequest("/v1/chat/completions", "{\"messages\":[{\"content\":\"hi\"}]}", "messages[0].role", "messages[0].role");
        assertBadRequest("/v1/completions", "{\"model\":\"m\"}", "prompt", "prompt");
        assertBadRequest("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":0}", "max_tokens", "max_tokens");
        assertBadRequest("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":\"many\"}", "max_tokens", "max_tokens");
        assertBadRequest("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":3,\"min_tokens\":4}", "min_tokens", "min_tokens");
        assertBadRequest("/v1/completions", "{\"prompt\":\"x\",\"stream\":\"yes\"}", "stream", "stream");
        assertBadRequest("/v1/completions", "[1,2]", null, "JSON object");
    }

    private static void assertBadRequest(String path, String body, String param, String messagePart) throws Exception {
        JsonNode error = postJson(sim, path, body, 400).get("error");
        assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
        assertThat(error.get("code").asInt()).isEqualTo(400);
        assertThat(error.get("message").asText()).contains(messagePart);
        if (param == null) assertThat(error.get("param").isNull()).isTrue();
        else assertThat(error.get("param").asText()).isEqualTo(param);
    }

    @Test
    void modelsListsTheConfiguredModelAndHealthIsOk() throws Exception {
        HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/models")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(models.statusCode()).isEqualTo(200);
        JsonNode list = JSON.readTree(models.body());
        assertThat(list.get("object").asText()).isEqualTo("list");
        assertThat(list.at("/data/0/id").asText()).isEqualTo("unibench-sim");
        assertThat(list.at("/data/0/object").asText()).isEqualTo("model");
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(sim.baseUrl()).isEqualTo("http://127.0.0.1:" + sim.port());
    }

    @Test
    void oneConnectionCarriesManyRequests() throws Exception {
        try (RawHttp client = new RawHttp(sim.port())) {
            for (int i = 0; i < 3; i++) {
                ObjectNode body = chatBody("keep-alive " + i);
                body.put("stream", true);
                body.put("max_tokens", 3);
                body.put("ignore_eos", true);
                RawHttp.Response s = client.exchange("POST", "/v1/chat/completions", JSON.writeValueAsString(body));
                assertThat(s.events()).hasSize(1 + 3 + 1 + 1);
                assertThat(client.exchange("GET", "/health", null).status()).isEqualTo(200);
                assertThat(client.exchange("POST", "/v1/completions", "{}").status()).isEqualTo(400);
                body.put("stream", false);
                assertThat(client.exchange("POST", "/v1/chat/completions", JSON.writeValueAsString(body)).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp client = new RawHttp(sim.port())) {
            ObjectNode body = chatBody("pipelined");
            body.put("stream", true);
            body.put("max_tokens", 4);
            body.put("ignore_eos", true);
            long sent = client.send("POST", "/v1/chat/completions", JSON.writeValueAsString(body));
            client.send("GET", "/v1/models", null);
            assertThat(client.read(sent, Integer.MAX_VALUE).events()).hasSize(1 + 4 + 1 + 1);
            RawHttp.Response models = client.read(sent, Integer.MAX_VALUE);
            assertThat(models.body()).contains("\"object\":\"list\"");
        }
    }

    @Test
    void startRejectsAnUnknownOrMismatchedTokenizer() {
        assertThatThrownBy(() -> SimServer.start(FAST.withTokenizer("no-such-tokenizer")))
                .isInstanceOf(io.unibench.BadInputException.class).hasMessageContaining("no-such-tokenizer");
        assertThatThrownBy(() -> SimServer.start(FAST.withTokenizer("o200k_base"), TOKENIZER))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("o200k_base");
    }

    // ---- disconnect ----

    @Test
    void clientDisconnectStopsTheGeneration() throws Exception {
        try (SimServer slow = SimServer.start(FAST.withItlMs(20), TOKENIZER)) {
            ObjectNode body = chatBody("a long stream that the client abandons");
            body.put("stream", true);
            body.put("max_tokens", 1000); // 20 s of output if it were not cancelled
            body.put("ignore_eos", true);
            int received;
            try (RawHttp client = new RawHttp(slow.port())) {
                long sent = client.send("POST", "/v1/chat/completions", JSON.writeValueAsString(body));
                received = client.read(sent, 4).events().size(); // role chunk + 3 tokens, then hang up
            }
            awaitStats(slow, s -> s.streamsCancelled() == 1 && s.streamsActive() == 0);
            long emitted = slow.stats().generationTokensTotal();
            assertThat(emitted).isGreaterThanOrEqualTo(received - 1).isLessThan(1000);

            // Proof that its timers are gone: a later full request adds exactly its own tokens to the total.
            ObjectNode next = chatBody("after the disconnect");
            next.put("max_tokens", 10);
            next.put("ignore_eos", true);
            assertThat(raw(slow, "POST", "/v1/chat/completions", next).status()).isEqualTo(200);
            SimStats after = slow.stats();
            assertThat(after.generationTokensTotal()).isEqualTo(emitted + 10);
            assertThat(after.streamsCancelled()).isEqualTo(1);
            assertThat(after.requestsReceived()).isEqualTo(2);
            assertThat(after.streamsActive()).isZero();
        }
    }

    @Test
    void statsCountRequestsAndTokens() throws Exception {
        try (SimServer fresh = SimServer.start(FAST, TOKENIZER)) {
            ObjectNode body = chatBody("count me");
            body.put("max_tokens", 7);
            body.put("ignore_eos", true);
            JsonNode r = postJson(fresh, "/v1/chat/completions", body, 200);
            postJson(fresh, "/v1/chat/completions", "{}", 400);
            SimStats s = fresh.stats();
            assertThat(s.requestsReceived()).isEqualTo(2);
            assertThat(s.promptTokensTotal()).isEqualTo(r.at("/usage/prompt_tokens").asLong());
            assertThat(s.generationTokensTotal()).isEqualTo(7);
            assertThat(s.streamsActive()).isZero();
            assertThat(s.streamsCancelled()).isZero();
        }
    }
}
