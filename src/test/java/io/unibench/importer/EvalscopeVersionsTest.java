package io.unibench.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Summary;
import io.unibench.store.ImportedRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * evalscope perf folders of every key set it has written ({@link EvalscopeKeys}), built by
 * {@code evalscope-perf/versions/make_versions.py} from the real v1.10 run's database in the shapes each release's code
 * writes: every figure is mapped to ours with its unit converted exactly, a figure whose definition is not ours stays
 * under evalscope's name, and a figure the file does not hold stays absent.
 */
class EvalscopeVersionsTest {
    private static final Path SAMPLES = Path.of("src/test/resources/io/unibench/importer/evalscope-perf");
    private static final Path REAL = SAMPLES.resolve("qwen-plus/parallel_4_number_60");
    private static final Path VERSIONS = SAMPLES.resolve("versions");

    @TempDir
    Path tmp;

    private static ImportedRun.Point point(Path dir) {
        Foreign f = EvalscopePerf.read(List.of(dir), 0);
        assertThat(f.points()).hasSize(1);
        return f.points().getFirst();
    }

    private static Path version(String tag) {
        return VERSIONS.resolve(tag).resolve("parallel_4_number_60");
    }

    private static BigDecimal dec(Object o) {
        assertThat(o).isInstanceOf(Number.class);
        return new BigDecimal(o.toString());
    }

    private static void same(Object actual, String expected) {
        assertThat(dec(actual)).isEqualByComparingTo(expected);
    }

    @Test
    void aV17ToV19SummaryWithoutItsDatabaseHasItsAveragesAsOurs() {
        Foreign f = EvalscopePerf.read(List.of(version("v1.9.1")), 0);
        assertThat(f.version()).isEqualTo("v1.7.0 – v1.9.x, by its summary's key names");
        Map<String, Object> s = f.points().getFirst().summary();
        // the real v1.10 run's figures, as v1.9.1 names them ("TTFT (ms)" …): ours
        same(s.get(Summary.AVG_TTFT), "46.71");
        same(s.get(Summary.AVG_TPOT), "5.2");
        same(s.get(Summary.AVG_ITL), "5.04");
        same(s.get(Summary.TEST_DURATION), "5.6328");
        same(s.get(Summary.REQ_THROUGHPUT), "10.6518");
        assertThat(s).doesNotContainKeys("TTFT (ms)", "TPOT (ms)", "ITL (ms)");
        // v1.9.1 does not count streams: absent, never zero
        assertThat(s).doesNotContainKeys(Summary.STREAM_REQUESTS, Summary.NON_STREAM_REQUESTS);
        assertThat(s.get(Summary.KV_CACHE_HIT_RATE)).isNull();
    }

    @Test
    void aV17ToV19PercentileFileIsTheRealRunsRowsUnderOurColumns() throws Exception {
        List<Map<String, Object>> rows = point(version("v1.9.1")).percentiles();
        JsonNode real = ForeignFile.MAPPER.readTree(REAL.resolve(EvalscopePerf.PERCENTILES).toFile());
        int matched = 0;
        for (JsonNode r : real) {
            for (Map<String, Object> row : rows) {
                if (!row.get(PercentileRow.PERCENTILES).equals(r.get(PercentileRow.PERCENTILES).asText())) continue;
                matched++;
                r.properties().forEach(e -> {
                    if (e.getValue().isNumber()) same(row.get(e.getKey()), e.getValue().decimalValue().toPlainString());
                });
            }
        }
        assertThat(matched).isEqualTo(10); // 1% … 99% and max; v1.9.1 has no "min" row
    }

    @Test
    void aV0171ToV16SummaryInSecondsIsConvertedToOurMillisecondsExactly() {
        Foreign f = EvalscopePerf.read(List.of(version("v1.6.1")), 0);
        assertThat(f.version()).startsWith("v0.17.1 – v1.6.x");
        Map<String, Object> s = f.points().getFirst().summary();
        same(s.get(Summary.AVG_TTFT), "46.7");   // 0.0467 s
        same(s.get(Summary.AVG_TPOT), "5.2");    // 0.0052 s: from v0.17.1 (latency − first chunk) / (tokens − 1)
        same(s.get(Summary.AVG_ITL), "5.0");     // 0.005 s
        same(s.get(Summary.AVG_LATENCY), "0.3744");
        same(s.get(Summary.CONCURRENCY), "4");
        same(s.get(Summary.REQUEST_RATE), "-1");
        same(s.get(Summary.OUTPUT_THROUGHPUT), "681.7179");
        same(s.get(Summary.AVG_DECODED_TOK_PER_ITER), "0.9692");
        assertThat(s).doesNotContainKeys("Average time to first token (s)", "Number of concurrency");
        Map<String, Object> median = point(version("v1.6.1")).percentiles().stream()
                .filter(r -> r.get(PercentileRow.PERCENTILES).equals("50%")).findFirst().orElseThrow();
        same(median.get(PercentileRow.TTFT), "51.2");  // "TTFT (s)": 0.0512
        same(median.get(PercentileRow.ITL), "5.0");
        same(median.get(PercentileRow.TPOT), "5.2");   // 0.0052 s (v1.10 at 2 decimals: 5.17 ms)
        same(median.get(PercentileRow.OUTPUT_THROUGHPUT), "171.1868");
    }

    @ParameterizedTest
    @ValueSource(strings = {"v0.8.0", "v0.13.2", "v0.15.1"})
    void anOlderTpotWhoseDefinitionIsNotOursStaysUnderItsOwnName(String tag) {
        Foreign f = EvalscopePerf.read(List.of(version(tag)), 0);
        ImportedRun.Point p = f.points().getFirst();
        Map<String, Object> s = p.summary();
        assertThat(s).doesNotContainKey(Summary.AVG_TPOT).doesNotContainKey(Summary.AVG_ITL);
        assertThat(s).containsKey("Average time per output token (s)");
        same(s.get(Summary.CONCURRENCY), "4");
        same(s.get(Summary.TOTAL_REQUESTS), "60");
        same(s.get(Summary.SUCCESS_REQUESTS), "60");
        // the rate is not in these summaries: benchmark_args.json's
        assertThat(p.info().rate()).isEqualTo(-1.0);
        assertThat(p.info().concurrency()).isEqualTo(4);
        // the average TTFT and latency at the file's precision: the real run's 46.71 ms, 0.3744 s
        assertThat(dec(s.get(Summary.AVG_TTFT)).doubleValue()).isCloseTo(46.71, org.assertj.core.data.Offset.offset(0.5));
        assertThat(dec(s.get(Summary.AVG_LATENCY)).doubleValue()).isCloseTo(0.3744, org.assertj.core.data.Offset.offset(0.0005));
        assertThat(dec(s.get(Summary.OUTPUT_THROUGHPUT)).doubleValue()).isCloseTo(681.7179, org.assertj.core.data.Offset.offset(0.001));
        assertThat(dec(s.get(Summary.REQ_THROUGHPUT)).doubleValue()).isCloseTo(10.6518, org.assertj.core.data.Offset.offset(0.001));
        for (Map<String, Object> row : p.percentiles()) assertThat(row).doesNotContainKey(PercentileRow.TPOT);
    }

    @Test
    void v08To013sPercentileTpotIsTheChunkGapsOurItl() {
        Map<String, Object> p10 = point(version("v0.13.2")).percentiles().getFirst();
        assertThat(p10.get(PercentileRow.PERCENTILES)).isEqualTo("10%");
        same(p10.get(PercentileRow.ITL), "4.4");        // "TPOT (s)": 0.0044, every inter-chunk gap
        same(p10.get(PercentileRow.TTFT), "31.8");
        same(p10.get(PercentileRow.OUTPUT_THROUGHPUT), "169.2744"); // "Throughput(tokens/s)"
        Map<String, Object> v015 = point(version("v0.15.1")).percentiles().getFirst();
        assertThat(v015).containsKey("TPOT (s)").containsKey(PercentileRow.ITL).containsKey(PercentileRow.TOTAL_THROUGHPUT);
        Map<String, Object> v08 = point(version("v0.8.0")).percentiles().getFirst();
        assertThat(v08.keySet()).containsExactly(PercentileRow.PERCENTILES, PercentileRow.TTFT, PercentileRow.LATENCY);
    }

    @Test
    void aSummaryOfNoKnownKeySetIsOneLocatedLine() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("p"));
        Files.writeString(dir.resolve(EvalscopePerf.SUMMARY), "{\"foo\": 1}");
        assertThatThrownBy(() -> EvalscopePerf.read(List.of(dir), 0)).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(dir.resolve(EvalscopePerf.SUMMARY) + ": /: none of the keys evalscope perf writes");
        Path old = Files.createDirectories(tmp.resolve("q"));
        Files.copy(version("v0.13.2").resolve(EvalscopePerf.SUMMARY), old.resolve(EvalscopePerf.SUMMARY));
        assertThatThrownBy(() -> EvalscopePerf.read(List.of(old), 0)).isInstanceOf(BadInputException.class)
                .hasMessage(old.resolve(EvalscopePerf.SUMMARY) + ": /: no request rate: evalscope v0.8.1 – v0.13.x "
                        + "writes it to benchmark_args.json only, which is not beside it");
    }

    /** The real run's figures recomputed from its rows, whichever table shape the database has. */
    private static void sameAsTheRealRun(Path dir) {
        Map<String, Object> real = point(REAL).summary();
        Map<String, Object> s = point(dir).summary();
        for (String k : List.of(Summary.AVG_TTFT, Summary.AVG_TPOT, Summary.AVG_ITL, Summary.AVG_LATENCY,
                Summary.TOTAL_OUTPUT_TOKENS, Summary.STREAM_REQUESTS, Summary.TEST_DURATION)) {
            assertThat(s.get(k)).as(k).isEqualTo(real.get(k));
        }
    }

    @Test
    void aV11ToV19DatabaseWithoutIsStreamIsRead() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("v1.9.1/parallel_4_number_60"));
        for (String f : List.of(EvalscopePerf.SUMMARY, EvalscopePerf.PERCENTILES, EvalscopePerf.ARGS)) {
            Files.copy(version("v1.9.1").resolve(f), dir.resolve(f));
        }
        Files.copy(REAL.resolve(EvalscopePerf.DATA), dir.resolve(EvalscopePerf.DATA));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(EvalscopePerf.DATA));
             Statement st = c.createStatement()) {
            // v1.9.1's create_result_table: no request_id, no is_stream
            st.execute("ALTER TABLE result DROP COLUMN is_stream");
            st.execute("ALTER TABLE result DROP COLUMN request_id");
        }
        sameAsTheRealRun(dir);
        assertThat(point(dir).summary()).doesNotContainKey(ForeignPoints.SOURCE_FIGURES);
    }

    @Test
    void aDatabaseOfChunkMomentsBeforeV111IsRead() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("v1.6.1/parallel_4_number_60"));
        for (String f : List.of(EvalscopePerf.SUMMARY, EvalscopePerf.PERCENTILES, EvalscopePerf.ARGS)) {
            Files.copy(version("v1.6.1").resolve(f), dir.resolve(f));
        }
        Files.copy(REAL.resolve(EvalscopePerf.DATA), dir.resolve(EvalscopePerf.DATA));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(EvalscopePerf.DATA));
             Statement st = c.createStatement()) {
            // v1.0.2's create_result_table: chunk_times (each chunk's moment on the start_time clock), no is_stream
            st.execute("ALTER TABLE result DROP COLUMN is_stream");
            st.execute("ALTER TABLE result DROP COLUMN request_id");
            st.execute("ALTER TABLE result RENAME COLUMN inter_token_latencies TO chunk_times");
            List<Object[]> moments = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT rowid, start_time, first_chunk_latency, chunk_times FROM result")) {
                while (rs.next()) {
                    JsonNode gaps = ForeignFile.MAPPER.readTree(rs.getString(4));
                    var times = ForeignFile.MAPPER.createArrayNode();
                    double t = rs.getDouble(2) + rs.getDouble(3);
                    times.add(t);
                    for (JsonNode g : gaps) times.add(t += g.asDouble());
                    moments.add(new Object[] {times.toString(), rs.getLong(1)});
                }
            }
            try (PreparedStatement up = c.prepareStatement("UPDATE result SET chunk_times = ? WHERE rowid = ?")) {
                for (Object[] m : moments) {
                    up.setString(1, (String) m[0]);
                    up.setLong(2, (Long) m[1]);
                    up.executeUpdate();
                }
            }
        }
        Map<String, Object> real = point(REAL).summary();
        Map<String, Object> s = point(dir).summary();
        // moments rebuilt from the gaps round at the nanosecond: the averages agree at evalscope's precision
        for (String k : List.of(Summary.AVG_TTFT, Summary.AVG_TPOT, Summary.AVG_ITL)) {
            assertThat(ForeignPoints.sameAtSourcePrecision(s.get(k), new BigDecimal(real.get(k).toString())
                    .setScale(3, java.math.RoundingMode.HALF_UP))).as(k).isTrue();
        }
        assertThat(s.get(Summary.STREAM_REQUESTS)).isEqualTo(60L); // benchmark_args.json's "stream": true
    }

    @Test
    void aNanEvalscopeWritesForAMetricWithoutValuesIsAbsentNotARefusal() throws Exception {
        // get_percentile_results of a run that did not stream: no inter-token gaps, calculate_percentiles' IndexError
        // gives float('nan') and json.dump writes NaN
        Path dir = Files.createDirectories(tmp.resolve("nostream/parallel_1_number_2"));
        Files.copy(REAL.resolve(EvalscopePerf.ARGS), dir.resolve(EvalscopePerf.ARGS));
        Files.writeString(dir.resolve(EvalscopePerf.SUMMARY), Files.readString(REAL.resolve(EvalscopePerf.SUMMARY))
                .replace("\"Avg ITL (ms)\": 5.04", "\"Avg ITL (ms)\": NaN"));
        Files.writeString(dir.resolve(EvalscopePerf.PERCENTILES), """
                [
                    {
                        "Percentiles": "50%",
                        "Latency (s)": 0.37,
                        "TTFT (ms)": 51.24,
                        "ITL (ms)": NaN,
                        "TPOT (ms)": 5.17
                    }
                ]""");
        ImportedRun.Point p = point(dir);
        assertThat(p.summary()).doesNotContainKey(Summary.AVG_ITL);
        same(p.summary().get(Summary.AVG_TTFT), "46.71");
        assertThat(p.percentiles().getFirst()).doesNotContainKey(PercentileRow.ITL);
        same(p.percentiles().getFirst().get(PercentileRow.TTFT), "51.24");
        // a NaN where a number is required: one located line
        Files.writeString(dir.resolve(EvalscopePerf.SUMMARY), Files.readString(REAL.resolve(EvalscopePerf.SUMMARY))
                .replace("\"Concurrency\": 4", "\"Concurrency\": NaN"));
        assertThatThrownBy(() -> point(dir)).isInstanceOf(BadInputException.class)
                .hasMessage(dir.resolve(EvalscopePerf.SUMMARY) + ": /Concurrency: NaN, expected a number");
    }

    @Test
    void anEmbeddingRunsGenerationFiguresThatV17WritesAsZeroDefaultsAreAbsent() throws Exception {
        // v1.9.1's BenchmarkSummary.to_dict of an openai_embedding run: its _build_embedding_fields measure the input
        // throughput; the generation fields keep their pydantic default 0.0 and are written (the shape of its code,
        // the figures invented: no embedding run of evalscope's is at hand)
        Path dir = Files.createDirectories(tmp.resolve("embed/parallel_1_number_10"));
        Files.writeString(dir.resolve(EvalscopePerf.SUMMARY), """
                {
                    "Test Duration (s)": 1.2034,
                    "Concurrency": 1,
                    "Request Rate (req/s)": -1,
                    "Total Requests": 10,
                    "Success Requests": 10,
                    "Failed Requests": 0,
                    "Req Throughput (req/s)": 8.3098,
                    "Avg Latency (s)": 0.1201,
                    "Avg Input Tokens": 512.0,
                    "Output Throughput (tok/s)": 0.0,
                    "Total Throughput (tok/s)": 0.0,
                    "TTFT (ms)": 0.0,
                    "TPOT (ms)": 0.0,
                    "ITL (ms)": 0.0,
                    "Avg Output Tokens": 0.0,
                    "Input Throughput (tok/s)": 4263.1141
                }""");
        Map<String, Object> s = point(dir).summary();
        for (String k : EvalscopeKeys.GENERATION_ONLY) assertThat(s.get(k)).as(k).isNull();
        same(s.get(Summary.INPUT_THROUGHPUT), "4263.1141");
        same(s.get(Summary.AVG_LATENCY), "0.1201");
        // a generation run's measured figures are kept; its input throughput 0.0 is the default of a figure evalscope
        // measures for embedding/rerank only: absent, as ours (recomputed from its rows) is
        Map<String, Object> llm = point(version("v1.9.1")).summary();
        same(llm.get(Summary.AVG_TTFT), "46.71");
        assertThat(llm.get(Summary.INPUT_THROUGHPUT)).isNull();
        assertThat(llm).doesNotContainKey(ForeignPoints.SOURCE_FIGURES);
    }

    @Test
    void aCacheHitRateEvalscopeWroteIsItsMeasurementAZeroToo() throws Exception {
        // v1.10's summary holds "KV Cache Hit Rate (%)" only where a request had cached tokens (here the simulator's
        // usage.prompt_tokens_details.cached_tokens, 0): without the database it is the tool's figure, 0.0
        Path dir = Files.createDirectories(tmp.resolve("nodb/parallel_4_number_60"));
        for (String f : List.of(EvalscopePerf.SUMMARY, EvalscopePerf.PERCENTILES, EvalscopePerf.ARGS)) {
            Files.copy(REAL.resolve(f), dir.resolve(f));
        }
        Foreign f = EvalscopePerf.read(List.of(dir), 0);
        same(f.points().getFirst().summary().get(Summary.KV_CACHE_HIT_RATE), "0.0");
        assertThat(f.points().getFirst().summary().get(Summary.TOTAL_CACHED_TOKENS)).isNull();
        assertThat(f.lacks()).contains("cached token counts (its cache hit rate kept)");
        // v1.9.1 wrote none for a single-turn run: absent, and the run lacks its cache figures
        Foreign old = EvalscopePerf.read(List.of(version("v1.9.1")), 0);
        assertThat(old.points().getFirst().summary().get(Summary.KV_CACHE_HIT_RATE)).isNull();
        assertThat(old.lacks()).contains("cache figures");
    }
}
