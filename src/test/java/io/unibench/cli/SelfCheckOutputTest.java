package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Every perf run prints the self-check figures and writes them into benchmark_summary.json. */
class SelfCheckOutputTest {
    @TempDir
    Path out;

    @Test
    void everyRunReportsClientCpuAndTimingLag() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(5).withPrefillMsPerToken(0).withItlMs(5))) {
            CliHarness.Run run = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model", "m",
                    "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--parallel", "2",
                    "--number", "10", "--max-tokens", "30", "--sleep-interval", "0");
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("Client CPU avg/max").contains("% of ")
                    .contains("Timing lag p99").contains("event loop");
            JsonNode summary = new ObjectMapper().readTree(
                    out.resolve("t").resolve("parallel_2_number_10").resolve("benchmark_summary.json").toFile());
            assertThat(summary.get("Total Requests").asLong()).isEqualTo(10); // evalscope keys come first, intact
            assertThat(summary.get("Client CPU Avg (%)").isNumber()).isTrue();
            assertThat(summary.get("Client CPU (s)").asDouble()).isPositive();
            assertThat(summary.get("Timing Lag P99 (ms)").isNumber()).isTrue();
            assertThat(summary.get("Event Loop Lag P99 (ms)").isNumber()).isTrue();
            assertThat(summary.get("Client Bottleneck Warning").isBoolean()).isTrue();
        }
    }
}
