package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunFilter;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** perf scrapes the target's /metrics during every point: server_metrics.json, the summary keys, the table, the store. */
class ServerMetricsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private CliHarness.Run perf(SimServer sim, String... extra) {
        java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("perf", "--url",
                sim.baseUrl() + "/v1/chat/completions", "--model", "m", "--outputs-dir", out.toString(),
                "--no-timestamp", "--name", "t", "--sleep-interval", "0", "--parallel", "2", "--number", "6",
                "--max-tokens", "8", "--db", out.resolve("h.db").toString()));
        a.addAll(java.util.List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    @Test
    void everyPointHasTheServersSeries() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults())) {
            CliHarness.Run r = perf(sim);
            assertThat(r.exit()).as(r.err()).isZero();
            Path point = out.resolve("t").resolve("parallel_2_number_6");
            JsonNode metrics = JSON.readTree(point.resolve("server_metrics.json").toFile());
            assertThat(metrics.path("engine").asText()).isEqualTo("vLLM");
            assertThat(metrics.path("url").asText()).isEqualTo(sim.baseUrl() + "/metrics");
            assertThat(metrics.path("series").size()).isGreaterThanOrEqualTo(2); // at the start and at the end
            assertThat(metrics.path("summary").path("Server Generated Tokens").asDouble()).isPositive();
            JsonNode summary = JSON.readTree(point.resolve("benchmark_summary.json").toFile());
            assertThat(summary.path("Server Engine").asText()).isEqualTo("vLLM");
            assertThat(summary.has("Server Running Max")).isTrue();
            assertThat(r.out()).contains("Server (vLLM /metrics, scraped once a second)", "Prefix hit (server)");
            try (RunStore store = RunStore.open(StoreLocation.resolve(out.resolve("h.db").toString(), Map.of()))) {
                String runId = store.list(RunFilter.all(10)).getFirst().runId();
                assertThat(store.pointServerMetrics(runId, 0).path("engine").asText()).isEqualTo("vLLM");
            }
        }
    }

    @Test
    void runsReportPrintsTheServerTableTheRunPrinted() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults())) {
            CliHarness.Run live = perf(sim, "--parallel", "1", "3", "--number", "4", "9");
            assertThat(live.exit()).as(live.err()).isZero();
            String runId;
            try (RunStore store = RunStore.open(StoreLocation.resolve(out.resolve("h.db").toString(), Map.of()))) {
                runId = store.list(RunFilter.all(10)).getFirst().runId();
            }
            CliHarness.Run report = CliHarness.main("runs", "report", runId, "--db", out.resolve("h.db").toString());
            assertThat(report.exit()).as(report.err()).isZero();
            assertThat(serverTable(live.out())).contains("parallel_1_number_4", "parallel_3_number_9");
            assertThat(serverTable(report.out())).isEqualTo(serverTable(live.out()));
        }
    }

    /** The "Server" table: its title line and its rows, up to the first line that is not part of it. */
    private static String serverTable(String text) {
        int at = text.indexOf("Server (");
        assertThat(at).as(text).isNotNegative();
        StringBuilder sb = new StringBuilder();
        for (String line : text.substring(at).split("\n")) {
            if (line.isBlank() || line.startsWith("Results: ") || line.startsWith("Reproduce: ")) break;
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    @Test
    void offMeansNoScrapeAndAMissingEndpointIsOneSkipLine() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults())) {
            CliHarness.Run off = perf(sim, "--server-metrics", "off");
            assertThat(off.exit()).isZero();
            assertThat(Files.exists(out.resolve("t").resolve("parallel_2_number_6").resolve("server_metrics.json"))).isFalse();
            assertThat(off.out()).doesNotContain("Server (");
            CliHarness.Run missing = perf(sim, "--server-metrics", sim.baseUrl() + "/nothing-here");
            assertThat(missing.exit()).isZero();
            assertThat(missing.err().lines().filter(l -> l.contains("SKIP server metrics")).toList()).singleElement()
                    .asString().contains("HTTP 404");
        }
    }
}
