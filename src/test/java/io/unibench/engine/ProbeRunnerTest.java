package io.unibench.engine;

import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.GenerationParams;
import io.unibench.client.RawReply;
import io.unibench.metrics.RequestRecord;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's single-request probe path against the simulator over loopback: a request becomes a
 * {@link RequestRecord}, and a raw request goes through the same client (bursts: {@link ProbeSessionTest}).
 */
class ProbeRunnerTest {
    private static final String MODEL = "probe-model";

    private static GenerationParams params(int maxTokens) {
        return new GenerationParams(MODEL, ApiFormat.CHAT, maxTokens, maxTokens, null, 0, null, null, 1L, List.of(),
                true, null);
    }

    @Test
    void aSingleRequestIsARecordAndARawRequestGoesThroughTheSameClient() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL));
             ProbeRunner probes = new ProbeRunner(new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"),
                     Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10), 16, false))) {
            ProbeRunner.Reply one = probes.send("Say hello.", params(4));
            assertThat(one.result().success()).isTrue();
            assertThat(one.record().success()).isTrue();
            assertThat(one.record().tokens().completion()).isEqualTo(one.result().usage().completionTokens());

            RawReply models = probes.raw("GET", "../models", new byte[0], false);
            assertThat(models.status()).isEqualTo(200);
            assertThat(models.text()).contains(MODEL);
        }
    }
}
