package io.unibench.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LlmClient#raw}: the one client sends what a benchmark request never is (another method and path, a
 * malformed body) and keeps the reply's bytes, so no second HTTP client is needed to see them.
 */
class RawRequestTest {
    private TestServer server;
    private LlmClient client;

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private void start(TestServer.Handler handler) throws Exception {
        server = new TestServer(handler);
        client = new LlmClient(new ClientConfig(server.uri("/v1/chat/completions"),
                Map.of("Authorization", "Bearer sk-raw-secret"), Duration.ofSeconds(5), Duration.ofSeconds(5),
                Duration.ofSeconds(5), 2, false));
    }

    @Test
    void aMalformedBodyGoesAsIsAndTheErrorBodyComesBackWhole() throws Exception {
        start((req, socket, out) -> {
            TestServer.json(out, 400, "{\"error\":{\"message\":\"bad json\",\"type\":\"invalid_request_error\"}}");
            return true;
        });
        byte[] malformed = "{\"model\": \"x\", \"messages\": [".getBytes(StandardCharsets.UTF_8);
        RawReply reply = client.raw("POST", "", malformed, false).join();
        TestServer.Request sent = server.requests.take();
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.path()).isEqualTo("/v1/chat/completions");
        assertThat(sent.body()).isEqualTo(malformed);
        assertThat(sent.header("Authorization")).isEqualTo("Bearer sk-raw-secret");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.text()).isEqualTo("{\"error\":{\"message\":\"bad json\",\"type\":\"invalid_request_error\"}}");
        assertThat(reply.result().errorClass()).isEqualTo(ErrorClass.HTTP_400);
    }

    @Test
    void aGetOfAPathBesideTheEndpointReadsItsJson() throws Exception {
        start((req, socket, out) -> {
            TestServer.json(out, 200, "{\"data\":[{\"id\":\"m\",\"max_model_len\":4096}],\"path\":\"" + req.path() + "\"}");
            return true;
        });
        RawReply reply = client.raw("GET", "../models", new byte[0], false).join();
        TestServer.Request sent = server.requests.take();
        assertThat(sent.method()).isEqualTo("GET");
        assertThat(sent.path()).isEqualTo("/v1/models");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.text()).contains("\"max_model_len\":4096", "\"path\":\"/v1/models\"");
        RawReply props = client.raw("GET", "../../props", new byte[0], false).join();
        assertThat(server.requests.take().path()).isEqualTo("/props");
        assertThat(props.text()).contains("\"path\":\"/props\"");
    }

    @Test
    void aStreamIsKeptAsItsEventsWithTheirFraming() throws Exception {
        String chunk = "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},"
                + "\"finish_reason\":\"stop\"}]}";
        start((req, socket, out) -> {
            TestServer.sse(out, chunk, "[DONE]");
            return true;
        });
        RawReply reply = client.raw("POST", "", "{\"stream\":true}".getBytes(StandardCharsets.UTF_8), true).join();
        assertThat(reply.text()).isEqualTo("data: " + chunk + "\n\ndata: [DONE]\n\n");
        assertThat(reply.result().success()).isTrue();
        assertThat(reply.result().content()).isEqualTo("hi");
    }

    @Test
    void aPathOffTheEndpointsOriginIsRefused() throws Exception {
        start((req, socket, out) -> true);
        assertThatThrownBy(() -> client.raw("GET", "http://example.invalid/x", new byte[0], false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("origin");
        assertThatThrownBy(() -> client.raw("get x", "../models", new byte[0], false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
