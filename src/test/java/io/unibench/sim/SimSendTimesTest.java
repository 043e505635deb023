package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The debug-send-times knob: send stamps on every streamed JSON chunk, and nothing when it is off. */
class SimSendTimesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(1).withItlMs(0.2).withPrefillMsPerToken(0);

    @Test
    void offByDefault() {
        assertThat(SimConfig.defaults().debugSendTimes()).isFalse();
        assertThat(SimConfig.defaults().knobValues()).containsEntry("debug-send-times", false);
        assertThat(FAST.with("debug-send-times", "true").debugSendTimes()).isTrue();
        assertThat(FAST.withDebugSendTimes(true).withItlMs(3).debugSendTimes()).as("kept by with*").isTrue();
    }

    @Test
    void everyJsonChunkCarriesItsSendTimeWhenOn() throws Exception {
        try (SimServer sim = SimServer.start(FAST.with("debug-send-times", true), TOKENIZER);
             RawHttp client = new RawHttp(sim.port())) {
            long sent = client.send("POST", "/v1/chat/completions", streamBody("chat"));
            RawHttp.Response r = client.read(sent, Integer.MAX_VALUE);
            assertThat(r.events()).last().extracting(RawHttp.Event::data).isEqualTo("[DONE]");
            List<RawHttp.Event> chunks = r.events().subList(0, r.events().size() - 1);
            assertThat(chunks).hasSize(1 + 12 + 1 + 1); // role, 12 tokens, finish, usage
            long previous = sent;
            List<String> content = new ArrayList<>();
            for (RawHttp.Event e : chunks) {
                JsonNode chunk = JSON.readTree(e.data()); // still valid JSON
                assertThat(e.data()).startsWith("{\"unibench_sent_ns\":");
                long stamp = chunk.get("unibench_sent_ns").asLong();
                // same monotonic clock: written after the request was sent, before this test read it, in order
                assertThat(stamp).isGreaterThanOrEqualTo(previous).isLessThanOrEqualTo(e.arrivalNanos());
                previous = stamp;
                assertThat(chunk.get("object").asText()).isEqualTo("chat.completion.chunk");
                content.add(chunk.at("/choices/0/delta/content").asText());
            }
            assertThat(content.subList(1, 13)).allSatisfy(c -> assertThat(c).matches(" [a-z]+"));
        }
    }

    @Test
    void inTextModeEveryTokensTextIsItsSendTimeAndNoFieldIsAdded() throws Exception {
        assertThat(SimConfig.defaults().debugSendTimesInText()).isFalse();
        try (SimServer sim = SimServer.start(FAST.with("debug-send-times-in-text", true), TOKENIZER);
             RawHttp client = new RawHttp(sim.port())) {
            long sent = client.send("POST", "/v1/chat/completions", streamBody("text"));
            RawHttp.Response r = client.read(sent, Integer.MAX_VALUE);
            List<RawHttp.Event> tokens = r.events().subList(1, 13); // after the role chunk
            long previous = sent;
            for (RawHttp.Event e : tokens) {
                assertThat(e.data()).doesNotContain("unibench_sent_ns").startsWith("{\"id\":\"chatcmpl-");
                String text = JSON.readTree(e.data()).at("/choices/0/delta/content").asText();
                assertThat(text).matches(" [0-9]+");
                long stamp = Long.parseLong(text.substring(1));
                assertThat(stamp).isGreaterThanOrEqualTo(previous).isLessThanOrEqualTo(e.arrivalNanos());
                previous = stamp;
            }
        }
    }

    @Test
    void noFieldWhenOff() throws Exception {
        try (SimServer sim = SimServer.start(FAST, TOKENIZER); RawHttp client = new RawHttp(sim.port())) {
            long sent = client.send("POST", "/v1/chat/completions", streamBody("plain"));
            RawHttp.Response r = client.read(sent, Integer.MAX_VALUE);
            assertThat(r.events()).hasSize(1 + 12 + 1 + 1 + 1)
                    .allSatisfy(e -> assertThat(e.data()).doesNotContain("unibench_sent_ns"));
            assertThat(r.events().get(0).data()).startsWith("{\"id\":\"chatcmpl-");
        }
    }

    private static String streamBody(String text) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "m");
        ObjectNode msg = body.putArray("messages").addObject();
        msg.put("role", "user");
        msg.put("content", text);
        body.put("stream", true);
        body.put("max_tokens", 12);
        body.put("ignore_eos", true);
        body.putObject("stream_options").put("include_usage", true);
        return JSON.writeValueAsString(body);
    }
}
