package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.client.LlmClient;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every fault, driven through the project's real client, lands in the error class a gateway author expects. */
class SimFaultTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(1).withItlMs(1).withPrefillMsPerToken(0)
            .with("allowed-models", List.of("alias-a"));
    /**
     * Read timeout of the client in hang tests: the hang must be seen as silence, not as an answer; long enough that
     * a busy machine's late reply (the headers before a hang-after-headers) is not taken for one.
     */
    private static final Duration HANG_READ_TIMEOUT = Duration.ofSeconds(1);
    /** Every other request: no silence of a healthy reply on a busy machine comes near it. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(15);

    private static SimServer sim;

    @BeforeAll
    static void start() {
        sim = SimServer.start(FAST, TOKENIZER);
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    private static byte[] body(boolean stream, int maxTokens) {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", "unibench-sim");
        ObjectNode m = b.putArray("messages").addObject();
        m.put("role", "user");
        m.put("content", "fault injection test");
        b.put("stream", stream);
        b.put("max_tokens", maxTokens);
        b.put("ignore_eos", true);
        if (stream) b.putObject("stream_options").put("include_usage", true);
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static ClientResult send(String fault, boolean stream, int maxTokens) {
        return send(fault, body(stream, maxTokens), stream);
    }

    private static ClientResult send(String fault, byte[] body, boolean stream) {
        return send(fault, body, stream, READ_TIMEOUT);
    }

    private static ClientResult send(String fault, byte[] body, boolean stream, Duration readTimeout) {
        Map<String, String> headers = fault == null ? Map.of() : Map.of("X-Unibench-Fault", fault);
        ClientConfig config = new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"), headers,
                Duration.ofSeconds(5), readTimeout, Duration.ofSeconds(20), 2, false);
        try (LlmClient client = new LlmClient(config)) {
            return client.send(body, stream, "t").join();
        }
    }

    private static void assertClass(String fault, boolean stream, ErrorClass expected) {
        ClientResult r = send(fault, stream, 8);
        assertThat(r.errorClass()).as(fault + " stream=" + stream + ": " + r.errorMessage()).isEqualTo(expected);
    }

    @Test
    void httpErrorFaults() {
        for (boolean stream : new boolean[]{true, false}) {
            assertClass("{\"type\":\"429\"}", stream, ErrorClass.HTTP_429);
            assertClass("{\"type\":\"500\"}", stream, ErrorClass.HTTP_5XX);
            assertClass("{\"type\":\"502\"}", stream, ErrorClass.HTTP_5XX);
            assertClass("{\"type\":\"503\"}", stream, ErrorClass.HTTP_5XX);
            assertClass("{\"type\":\"401\"}", stream, ErrorClass.HTTP_401);
            assertClass("{\"type\":\"content-policy\"}", stream, ErrorClass.HTTP_400);
        }
        ClientResult r = send("{\"type\":\"429\"}", true, 8);
        assertThat(r.httpStatus()).isEqualTo(429);
        assertThat(r.errorMessage()).contains("quota");
    }

    @Test
    void aRedirectIsItsOwnClassNotAClientError() {
        for (boolean stream : new boolean[]{true, false}) {
            ClientResult r = send("{\"type\":\"redirect\"}", stream, 8);
            assertThat(r.errorClass()).as(r.errorMessage()).isEqualTo(ErrorClass.HTTP_3XX);
            assertThat(r.httpStatus()).isEqualTo(302);
        }
        assertThat(ErrorClass.ofStatus(103)).isEqualTo(ErrorClass.HTTP_OTHER);
        assertThat(ErrorClass.ofStatus(304)).isEqualTo(ErrorClass.HTTP_3XX);
        assertThat(ErrorClass.ofStatus(418)).isEqualTo(ErrorClass.HTTP_4XX);
        assertThat(ErrorClass.ofStatus(600)).isEqualTo(ErrorClass.HTTP_OTHER);
    }

    @Test
    void aJsonReplyToAStreamedRequestIsRecordedAsNotStreamed() {
        ClientResult r = send("{\"type\":\"json-reply\"}", true, 8);
        assertThat(r.success()).as(r.errorMessage()).isTrue();
        assertThat(r.stream()).isFalse();
        assertThat(r.usage().completionTokens()).isEqualTo(8);
        assertThat(send(null, true, 8).stream()).isTrue(); // the same request without the fault streams
    }

    @Test
    void retryAfterAndQuotaMessageOn429And503() throws Exception {
        for (String type : new String[]{"429", "503"}) {
            try (RawHttp raw = new RawHttp(sim.port())) {
                RawHttp.Response r = raw.exchange("POST", "/v1/chat/completions",
                        new String(body(false, 4), StandardCharsets.UTF_8),
                        Map.of("X-Unibench-Fault", "{\"type\":\"" + type + "\",\"retry_after_s\":7}"));
                assertThat(r.status()).isEqualTo(Integer.parseInt(type));
                assertThat(r.headers()).containsEntry("retry-after", "7");
            }
        }
    }

    @Test
    void unknownModelListsTheServedModels() {
        ClientResult viaFault = send("{\"type\":\"unknown-model\"}", true, 8);
        assertThat(viaFault.errorClass()).isEqualTo(ErrorClass.HTTP_400);
        assertThat(viaFault.errorMessage()).contains("unibench-sim", "alias-a");
        // with an allow-list configured, an unlisted model is refused without any fault header
        ObjectNode b = JSON.createObjectNode();
        b.put("model", "gpt-nope");
        b.putArray("messages").addObject().put("role", "user").put("content", "hi");
        ClientResult r = send(null, b.toString().getBytes(StandardCharsets.UTF_8), false);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.HTTP_400);
        assertThat(r.errorMessage()).contains("gpt-nope", "unibench-sim, alias-a");
        b.put("model", "alias-a");
        assertThat(send(null, b.toString().getBytes(StandardCharsets.UTF_8), false).success()).isTrue();
    }

    @Test
    void okStatusWithBrokenContent() {
        for (boolean stream : new boolean[]{true, false}) {
            assertClass("{\"type\":\"error-body\"}", stream, ErrorClass.BUSINESS_ERROR);
            assertClass("{\"type\":\"empty-choices\"}", stream, ErrorClass.BUSINESS_ERROR);
            assertClass("{\"type\":\"malformed-json\",\"after_chunks\":2}", stream, ErrorClass.PROTOCOL_ERROR);
        }
        // frames without "data:" carry no events for an SSE client: the stream has no choice at all
        assertClass("{\"type\":\"malformed-sse\"}", true, ErrorClass.BUSINESS_ERROR);
        assertClass("{\"type\":\"malformed-sse\"}", false, ErrorClass.PROTOCOL_ERROR);
    }

    @Test
    void missingDoneIsToleratedOnlyWhenTheFinishReasonArrived() {
        ClientResult tolerated = send("{\"type\":\"missing-done\"}", true, 5);
        assertThat(tolerated.success()).as(tolerated.errorMessage()).isTrue();
        assertThat(tolerated.finishReason()).isEqualTo("length");
        assertClass("{\"type\":\"missing-done\",\"finish_reason\":false}", true, ErrorClass.BUSINESS_ERROR);
    }

    @Test
    void failMidstreamSendsAnErrorEventAfterTheGivenChunks() {
        ClientResult r = send("{\"type\":\"fail-midstream\",\"after_chunks\":3}", true, 50);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(r.tokenChunkNanos()).hasSize(3);
        assertThat(r.errorMessage()).contains("injected");
        assertThat(send("{\"type\":\"fail-midstream\",\"after_chunks\":3}", false, 50).errorClass())
                .isEqualTo(ErrorClass.HTTP_5XX);
    }

    @Test
    void disconnectClosesTheConnectionMidStream() {
        ClientResult r = send("{\"type\":\"disconnect\",\"after_chunks\":4}", true, 50);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
        assertThat(r.tokenChunkNanos()).hasSize(4);
        assertThat(send("{\"type\":\"disconnect\"}", false, 50).errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
    }

    @Test
    void hangsAreSeenAsReadTimeouts() {
        for (boolean stream : new boolean[]{true, false}) {
            ClientResult before = send("{\"type\":\"hang-before-headers\"}", body(stream, 8), stream, HANG_READ_TIMEOUT);
            assertThat(before.errorClass()).isEqualTo(ErrorClass.TIMEOUT_READ);
            assertThat(before.httpStatus()).isZero();
            ClientResult after = send("{\"type\":\"hang-after-headers\"}", body(stream, 8), stream, HANG_READ_TIMEOUT);
            assertThat(after.errorClass()).isEqualTo(ErrorClass.TIMEOUT_READ);
            assertThat(after.httpStatus()).isEqualTo(200);
        }
    }

    @Test
    void delaysSlowTheStreamButItSucceeds() {
        // Lower bounds only: the server holds the first token >= 250 ms and each later one >= 40 ms after the last
        // (its clock starts after our send timestamp), whatever the machine's speed.
        ClientResult first = send("{\"type\":\"slow-first-chunk\",\"first_chunk_delay_ms\":250}", true, 3);
        assertThat(first.success()).isTrue();
        assertThat((first.firstTokenNanos() - first.startNanos()) / 1e6).isGreaterThanOrEqualTo(250);
        ClientResult chunks = send("{\"chunk_delay_ms\":40}", true, 4);
        assertThat(chunks.success()).isTrue();
        long[] t = chunks.tokenChunkNanos();
        assertThat(t).hasSize(4);
        // arrival gaps can shrink by the client's read jitter; the total of 3 gaps cannot be below 3 x 40 ms minus
        // the first frame's read delay, which 20 ms covers
        assertThat((t[3] - t[0]) / 1e6).isGreaterThanOrEqualTo(3 * 40 - 20);
    }

    @Test
    void badFaultHeaderIsA400NamingTheField() {
        Map<String, String> cases = Map.of(
                "{\"type\":\"explode\"}", "X-Unibench-Fault.type",
                "{\"after_chunks\":-1}", "X-Unibench-Fault.after_chunks",
                "{\"first_chunk_delay_ms\":99999999}", "X-Unibench-Fault.first_chunk_delay_ms",
                "{\"colour\":1}", "X-Unibench-Fault.colour",
                "not json", "X-Unibench-Fault");
        cases.forEach((header, field) -> {
            ClientResult r = send(header, true, 4);
            assertThat(r.errorClass()).as(header).isEqualTo(ErrorClass.HTTP_400);
            assertThat(r.errorMessage()).as(header).contains(field);
        });
    }

    @Test
    void ratesInjectFaultsReproduciblyAndMetricsCountThem() throws Exception {
        SimConfig flaky = FAST.with(Map.of("fault-rate-429", 0.5, "fault-rate-500", 0.25));
        try (SimServer a = SimServer.start(flaky, TOKENIZER); SimServer b = SimServer.start(flaky, TOKENIZER)) {
            List<Integer> statusesA = statuses(a, 40);
            List<Integer> statusesB = statuses(b, 40);
            assertThat(statusesA).isEqualTo(statusesB); // same seed, same order: same faults
            long n429 = statusesA.stream().filter(s -> s == 429).count();
            long n500 = statusesA.stream().filter(s -> s == 500).count();
            assertThat(n429).isBetween(10L, 30L); // 40 draws at p = 0.5: 10..30 holds with probability > 0.999
            assertThat(n500).isBetween(2L, 20L);
            assertThat(statusesA).containsOnly(200, 429, 500);
            assertThat(a.metricsText()).contains("unibench:faults_injected_total{model_name=\"unibench-sim\",type=\"429\"} " + n429);
        }
    }

    private static List<Integer> statuses(SimServer server, int n) throws Exception {
        List<Integer> out = new java.util.ArrayList<>();
        try (RawHttp raw = new RawHttp(server.port())) {
            for (int i = 0; i < n; i++) {
                out.add(raw.exchange("POST", "/v1/chat/completions", new String(body(false, 2), StandardCharsets.UTF_8)).status());
            }
        }
        return out;
    }

    @Test
    void stopSequencesEndTheReplyBeforeTheStopString() throws Exception {
        ClientResult plain = send(null, body(false, 40), false);
        String text = plain.content();
        String[] words = text.trim().split(" ");
        String stop = " " + words[5]; // the 6th word (may also occur earlier: the reply ends at its first occurrence)
        ObjectNode b = (ObjectNode) JSON.readTree(body(false, 40));
        b.put("stop", stop);
        ClientResult stopped = send(null, b.toString().getBytes(StandardCharsets.UTF_8), false);
        assertThat(stopped.success()).isTrue();
        assertThat(stopped.finishReason()).isEqualTo("stop");
        assertThat(stopped.content()).isEqualTo(text.substring(0, text.indexOf(stop)));
        assertThat(stopped.usage().completionTokens()).isLessThanOrEqualTo(6);
    }
}
