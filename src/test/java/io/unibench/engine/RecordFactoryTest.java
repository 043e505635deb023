package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Records say what arrived on the wire, through the real client against the simulator. */
class RecordFactoryTest {
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":8,\"ignore_eos\":true}")
            .getBytes(StandardCharsets.UTF_8);

    private static ClientResult send(SimServer sim, Map<String, String> headers) {
        ClientConfig config = new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"), headers,
                Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(20), 2, false);
        try (LlmClient client = new LlmClient(config)) {
            return client.send(BODY, true, "t").join();
        }
    }

    @Test
    void aJsonReplyToAStreamedRequestIsNotStreamedAndStaysOutOfTpotAndItl() {
        RecordFactory records = new RecordFactory(new CharEstimateTokenizer(4), false);
        PreparedRequest asked = new PreparedRequest(0, "t", BODY, true, Prompt.ofText("hi", -1, -1));
        RunMetrics metrics = new RunMetrics();
        RequestRecord streamed;
        RequestRecord json;
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(5).withItlMs(2).withPrefillMsPerToken(0))) {
            streamed = records.record(0, asked, send(sim, Map.of()), Moments.ABSENT, 0);
            json = records.record(1, asked, send(sim, Map.of("X-Unibench-Fault", "{\"type\":\"json-reply\"}")),
                    Moments.ABSENT, 0);
        }
        assertThat(streamed.timing().stream()).isTrue();
        assertThat(json.success()).isTrue();
        assertThat(json.timing().stream()).isFalse(); // the request asked for a stream; what arrived was one JSON body
        assertThat(json.tpotSeconds()).isNaN();
        assertThat(json.ttftSeconds()).isEqualTo(json.latencySeconds());
        metrics.accept(streamed);
        metrics.accept(json);
        var summary = metrics.result(new RunInfo("x", 1, -1, 2)).summary();
        // TPOT is the streamed reply's alone: the JSON one no longer averages in a 0
        assertThat(summary.latency().avgTpotMs()).isCloseTo(streamed.tpotSeconds() * 1000, within(0.01)); // shown to 0.01 ms
    }
}
