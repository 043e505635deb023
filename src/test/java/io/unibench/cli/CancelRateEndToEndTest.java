package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** perf --cancel-rate: the client hangs up a share of streams; they are 'cancelled', not failures, and the server sees it. */
class CancelRateEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private CliHarness.Run perf(SimServer sim, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "t", "--no-db", "--parallel", "1",
                "--number", "6", "--max-tokens", "64", "--extra-args", "{\"ignore_eos\": true}",
                "--server-metrics", "off", "--no-test-connection"));
        a.addAll(List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    private JsonNode summary() throws Exception {
        return JSON.readTree(out.resolve("t/parallel_1_number_6/benchmark_summary.json").toFile());
    }

    @Test
    void everyRequestCancelledAtARandomPointButTheFirstWhichSetsTheScale() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withItlMs(5))) {
            CliHarness.Run r = perf(sim, "--cancel-rate", "1");
            assertThat(r.exit()).as(r.err()).isZero();
            JsonNode s = summary();
            assertThat(s.path("Cancelled Requests").asInt()).isEqualTo(5);
            assertThat(s.path("Failed Requests").asInt()).isZero();
            assertThat(s.path("Client Cancel Rate").asDouble()).isEqualTo(1.0);
            assertThat(s.path("Client Cancel Point").asText()).startsWith("random");
            assertThat(sim.stats().streamsCancelled()).as("the server saw the hang-ups").isEqualTo(5);
            List<String> lines = Files.readAllLines(out.resolve("t/parallel_1_number_6/requests.jsonl"));
            assertThat(lines.stream().filter(l -> l.contains("\"cancelled\"")).count()).isEqualTo(5);
        }
    }

    @Test
    void aFixedPointCancelsMidStream() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withItlMs(5))) {
            CliHarness.Run r = perf(sim, "--cancel-rate", "0.5", "--cancel-after-ms", "100");
            assertThat(r.exit()).as(r.err()).isZero();
            int cancelled = summary().path("Cancelled Requests").asInt();
            assertThat(cancelled).isBetween(1, 5); // a seeded draw per request
            assertThat(cancelled + summary().path("Success Requests").asInt()).isEqualTo(6);
            assertThat(sim.stats().streamsCancelled()).isEqualTo(cancelled); // 100 ms is mid-stream: 64 x 5 ms
            assertThat(summary().path("Client Cancel Point").asText()).isEqualTo("100 ms");
        }
    }

    @Test
    void badCancelFlagsAreOneLine() {
        for (String[] args : new String[][]{{"--cancel-rate", "1.5"}, {"--cancel-after-ms", "10"},
                {"--cancel-rate", "0.5", "--cancel-after-ms", "-1"}}) {
            List<String> a = new ArrayList<>(List.of("perf", "--no-db", "--outputs-dir", out.toString(), "--number", "1"));
            a.addAll(List.of(args));
            CliHarness.Run r = CliHarness.main(a.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", args) + r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines()).hasSize(1);
            assertThat(r.err()).contains(args[args.length - 2]);
        }
    }
}
