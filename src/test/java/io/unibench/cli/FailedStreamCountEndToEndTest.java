package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A streamed request that failed before any event (an HTTP 500 with a JSON error) is still a streamed request. */
class FailedStreamCountEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    @Test
    void aFailedStreamedRequestIsCountedAsStreamed() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(0).withPrefillMsPerToken(0).withItlMs(0)
                .with(Map.of("fault-rate-500", 1.0)))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "f", "--parallel", "1",
                    "--number", "3", "--max-tokens", "4", "--sleep-interval", "0", "--no-test-connection");
            assertThat(run.out() + run.err()).contains("http_5xx");
        }
        JsonNode summary = JSON.readTree(out.resolve("f/parallel_1_number_3/benchmark_summary.json").toFile());
        assertThat(summary.get("Failed Requests").asLong()).isEqualTo(3);
        assertThat(summary.get("Stream Requests").asLong()).isEqualTo(3);
        assertThat(summary.get("Non-Stream Requests").asLong()).isZero();
    }
}
