package io.unibench.output;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.DeserializationFeature;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalscopeFilesTest {
    /** Strict parsing: a NaN or Infinity token in the file makes the test fail. */
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @TempDir
    Path dir;

    @Test
    void filesParseBackWithNullsWhereValuesAreUndefined() throws IOException {
        RunMetrics m = new RunMetrics();
        // one-token streamed replies only: no TPOT, no ITL, no decode throughput
        m.accept(record().index(0).startMs(0).firstChunkMs(5).chunksMs(20).endMs(30).tokens(10, 1).build());
        m.accept(record().index(1).startMs(10).firstChunkMs(15).chunksMs(40).endMs(50).tokens(12, 1).build());
        m.accept(record().index(2).startMs(10).endMs(60).failed("http_500", 500, "boom").build());
        RunResult r = m.result(new RunInfo("parallel_2_number_3", 2, -1, 3));
        Path run = dir.resolve("parallel_2_number_3");
        EvalscopeFiles.write(run, r);

        for (String name : List.of("benchmark_summary.json", "benchmark_percentile.json",
                "workload_throughput.json", "workload_timeline.json")) {
            String text = Files.readString(run.resolve(name), StandardCharsets.UTF_8);
            assertThat(text).as(name).doesNotContain("NaN").doesNotContain("Infinity");
        }

        JsonNode summary = STRICT.readTree(run.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Avg TPOT (ms)").isNull()).isTrue();
        assertThat(summary.get("Avg ITL (ms)").isNull()).isTrue();
        assertThat(summary.get("Avg TTFT (ms)").asDouble()).isEqualTo(25.0); // (20 + 30) / 2
        assertThat(summary.get("Total Requests").asLong()).isEqualTo(3);
        assertThat(summary.get("Total Requests").isIntegralNumber()).isTrue();
        assertThat(fieldNames(summary).subList(0, 3))
                .containsExactly("Test Duration (s)", "Concurrency", "Request Rate (req/s)");

        JsonNode percentiles = STRICT.readTree(run.resolve("benchmark_percentile.json").toFile());
        assertThat(percentiles.isArray()).isTrue();
        assertThat(percentiles).hasSize(11);
        JsonNode p50 = percentiles.get(5);
        assertThat(p50.get("Percentiles").asText()).isEqualTo("50%");
        assertThat(fieldNames(p50).subList(0, 10)).containsExactly("Percentiles", "Latency (s)", "TTFT (ms)",
                "ITL (ms)", "TPOT (ms)", "Input tokens", "Output tokens", "Output (tok/s)", "Total (tok/s)",
                "Decode (tok/s)");
        assertThat(p50.get("TPOT (ms)").isNull()).isTrue();
        assertThat(p50.get("Decode (tok/s)").isNull()).isTrue();
        assertThat(p50.get("Latency (s)").asDouble()).isEqualTo(0.04); // sorted [0.03, 0.04], floor(1) = 1

        JsonNode workload = STRICT.readTree(run.resolve("workload_throughput.json").toFile());
        assertThat(fieldNames(workload)).containsExactly("n_samples", "wall_time_s", "last_window_s", "warmup_frac", "rows");
        assertThat(workload.get("last_window_s").asDouble()).isEqualTo(30.0);
        assertThat(workload.get("warmup_frac").asDouble()).isEqualTo(0.2);
        assertThat(workload.get("rows")).hasSize(4);
        assertThat(fieldNames(workload.get("rows").get(0)))
                .containsExactly("metric", "overall", "last_window", "steady_state");
        assertThat(workload.get("rows").get(3).get("metric").asText()).isEqualTo("Completion tok/s");

        JsonNode timeline = STRICT.readTree(run.resolve("workload_timeline.json").toFile());
        assertThat(timeline.get("wall_start").isNumber()).isTrue();
        assertThat(timeline.get("points")).hasSize(2);
        assertThat(fieldNames(timeline.get("points").get(1)))
                .containsExactly("t", "cum_completion", "cum_new_prompt", "cum_cached_prompt");
        assertThat(timeline.get("points").get(1).get("cum_completion").asLong()).isEqualTo(2);
        assertThat(timeline.get("points").get(1).get("t").asDouble()).isEqualTo(0.05); // ends 50 ms after start 0
    }

    @Test
    void allFailedRunWritesSummaryAndPercentilesOnly() throws IOException {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).endMs(10).failed("connection_refused", 0, "refused").build());
        EvalscopeFiles.write(dir, m.result(new RunInfo("parallel_1_number_1", 1, -1, 1)));

        JsonNode summary = STRICT.readTree(dir.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Req Throughput (req/s)").asDouble()).isEqualTo(-1.0);
        assertThat(summary.get("Avg TTFT (ms)").isNull()).isTrue();
        JsonNode percentiles = STRICT.readTree(dir.resolve("benchmark_percentile.json").toFile());
        assertThat(percentiles.get(0).get("Latency (s)").isNull()).isTrue();
        // like evalscope: no workload files without a success
        assertThat(dir.resolve("workload_throughput.json")).doesNotExist();
        assertThat(dir.resolve("workload_timeline.json")).doesNotExist();
    }

    @Test
    void prettyPrintedLikePythonIndent4() throws IOException {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).chunksMs(10, 20).endMs(20).tokens(1, 2).build());
        EvalscopeFiles.write(dir, m.result(new RunInfo("x", 1, -1, 1)));
        List<String> lines = Files.readAllLines(dir.resolve("benchmark_summary.json"));
        assertThat(lines.getFirst()).isEqualTo("{");
        assertThat(lines.get(1)).isEqualTo("    \"Test Duration (s)\": 0.02,");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }
}
