package io.unibench.engine;

import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.GenerationParams;
import io.unibench.client.RawReply;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Percentiles;
import io.unibench.metrics.RequestRecord;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's probe path against the simulator over loopback: a single request and every request of a burst become
 * {@link RequestRecord}s, a burst is a closed-loop point whose figures are the {@code metrics} aggregate's (the exact
 * nearest-rank percentile of the records), and a raw request goes through the same client.
 */
class ProbeRunnerTest {
    private static final String MODEL = "probe-model";

    private static GenerationParams params(int maxTokens) {
        return new GenerationParams(MODEL, ApiFormat.CHAT, maxTokens, maxTokens, null, 0, null, null, 1L, List.of(),
                true, null);
    }

    @Test
    void singleRequestsAndBurstsAreRecordsAndABurstIsAggregatedByMetrics() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL));
             ProbeRunner probes = new ProbeRunner(new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"),
                     Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10), 16, false))) {
            ProbeRunner.Reply one = probes.send("Say hello.", params(4));
            assertThat(one.result().success()).isTrue();
            assertThat(one.record().success()).isTrue();
            assertThat(one.record().tokens().completion()).isEqualTo(one.result().usage().completionTokens());

            List<String> prompts = IntStream.range(0, 6).mapToObj(i -> "Say hello. #" + i).toList();
            ProbeRunner.Burst burst = probes.burst(prompts, params(8));
            assertThat(burst.plan().parallel()).isEqualTo(6);
            assertThat(burst.plan().number()).isEqualTo(6);
            assertThat(burst.records()).hasSize(6).allSatisfy(r -> assertThat(r.success()).isTrue());
            assertThat(burst.records()).extracting(r -> r.position().requestId()).doesNotHaveDuplicates();
            // the table rounds to 0.01 ms
            double[] ttftMs = burst.records().stream().mapToDouble(r -> r.ttftSeconds() * 1000).sorted().toArray();
            assertThat(burst.summary().percentile("50%", PercentileRow.TTFT))
                    .isCloseTo(Percentiles.nearestRankHigh(ttftMs, 50), org.assertj.core.data.Offset.offset(0.0051));
            assertThat(burst.summary().percentile("max", PercentileRow.TTFT))
                    .isCloseTo(ttftMs[ttftMs.length - 1], org.assertj.core.data.Offset.offset(0.0051));
            assertThat(probes.records()).hasSize(7);

            RawReply models = probes.raw("GET", "../models", new byte[0], false);
            assertThat(models.status()).isEqualTo(200);
            assertThat(models.text()).contains(MODEL);
        }
    }

    @Test
    void aBurstsRequestsCanBeAbandonedMidFlight() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL));
             ProbeRunner probes = new ProbeRunner(new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"),
                     Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(30), 16, false))) {
            GenerationParams longOnes = new GenerationParams(MODEL, ApiFormat.CHAT, 2000, 2000, null, 0, null, null, 1L,
                    List.of(), true, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                    .put("ignore_eos", true));
            ProbeRunner.BurstRun run = probes.startBurst(List.of("a", "b", "c"), longOnes);
            run.awaitSent();
            assertThat(run.pending()).hasSize(3);
            run.pending().forEach(p -> p.abandon().complete(null));
            ProbeRunner.Burst burst = run.await();
            assertThat(burst.records()).hasSize(3)
                    .allSatisfy(r -> assertThat(r.outcome().errorClass()).isEqualTo("cancelled"));
        }
    }
}
