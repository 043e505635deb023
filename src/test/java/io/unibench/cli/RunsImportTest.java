package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code runs import} on files made by the real tools (src/test/resources/io/unibench/importer, see its README):
 * stored as runs like any other, marked with their source, figures recomputed from per-request rows where the tool
 * kept them, absent figures null; a bad file stores nothing. Once on SQLite and once on PostgreSQL (when set).
 */
class RunsImportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SAMPLES = Path.of("src/test/resources/io/unibench/importer");
    private static final Path EVALSCOPE = SAMPLES.resolve("evalscope-perf/qwen-plus");
    private static final Path VLLM = SAMPLES.resolve(
            "vllm-bench-serve/openai-chat-infqps-concurrency4-qwen-plus-20261201-225459.json");
    private static final Path AIPERF = SAMPLES.resolve("aiperf/profile_export.jsonl");
    private static final Path BR = SAMPLES.resolve("br-v0.2/br_v0_2_example.yaml");
    private static final Path VLLM_SUMMARY = SAMPLES.resolve("vllm-bench-serve/summary-only.json");
    private static final Path AIPERF_RUN = SAMPLES.resolve("aiperf/run1");
    private static final Path GUIDELLM_V2 = SAMPLES.resolve("guidellm/guidellm_report_v2.json");
    private static final Path GUIDELLM_2025 = SAMPLES.resolve("guidellm/benchmarks_stripped.json");

    @TempDir
    Path tmp;

    private TestStores.Backend backend(String kind) throws Exception {
        return kind.equals("sqlite") ? TestStores.sqlite(tmp) : TestStores.postgres();
    }

    private static String importedId(CliHarness.Run run) {
        assertThat(run.exit()).as(run.err()).isZero();
        return run.out().substring("Imported ".length()).split(" ")[0];
    }

    private static JsonNode show(String db, String id) throws Exception {
        CliHarness.Run r = CliHarness.main("runs", "show", id, "--json", "--db", db);
        assertThat(r.exit()).as(r.err()).isZero();
        return JSON.readTree(r.out());
    }

    private static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void evalscopeFolderIsStoredWithItsRequestsRecomputedAndItsSource(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            CliHarness.Run imported = CliHarness.main("runs", "import", EVALSCOPE.toString(), "--db", db);
            String id = importedId(imported);
            assertThat(imported.out()).contains("evalscope perf", "60 requests");
            JsonNode run = show(db, id);
            assertThat(run.path("model").asText()).isEqualTo("qwen-plus");
            assertThat(run.path("request_count").asLong()).isEqualTo(60);
            JsonNode env = run.path("environment");
            assertThat(env.path("source_tool").asText()).isEqualTo("evalscope perf");
            Path summaryFile = EVALSCOPE.resolve("parallel_4_number_60/benchmark_summary.json");
            assertThat(env.path("source_files").path(summaryFile.toString()).asText()).isEqualTo(sha256(summaryFile));
            assertThat(env.path("not_measured").asText()).contains("cached token counts (its cache hit rate kept)",
                    "phases").doesNotContain("per-request rows");
            // its files' times have no zone: dated by the import, which it says; it ended its duration later
            assertThat(env.path("not_measured").asText())
                    .contains("its start (no time with a zone in its files: dated by its import)");
            assertThat(java.time.Duration.between(java.time.Instant.parse(run.path("started_at").asText()),
                    java.time.Instant.parse(run.path("ended_at").asText())).toMillis()).isEqualTo(5633);
            JsonNode point = run.path("points").get(0);
            assertThat(point.path("label").asText()).isEqualTo("parallel_4_number_60");
            JsonNode s = point.path("summary");
            assertThat(s.path("Total Requests").asLong()).isEqualTo(60);
            assertThat(s.path("Concurrency").asLong()).isEqualTo(4);
            // recomputed from benchmark_data.db: the same mean evalscope wrote, at its 2 decimals
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(46.71, org.assertj.core.data.Offset.offset(0.005));
            assertThat(s.path("Avg TPOT (ms)").asDouble()).isCloseTo(5.2, org.assertj.core.data.Offset.offset(0.05));
            // evalscope v1.10 writes the hit rate only where a request had cached tokens: here the simulator's
            // usage.prompt_tokens_details said 0, a measured 0.0 (kept: no row of the database holds cached tokens)
            assertThat(s.path("KV Cache Hit Rate (%)").isNumber()).isTrue();
            assertThat(s.path("KV Cache Hit Rate (%)").asDouble()).isZero();
            // not measured: absent (null), never zero
            assertThat(s.has("Total Cached Tokens")).isTrue();
            assertThat(s.path("Total Cached Tokens").isNull()).isTrue();
            // evalscope's 0.0 for a chat run is its default of a figure it measures for embedding/rerank only, and
            // ours from its rows is not measured either: absent, not 0 vs 0
            assertThat(s.has("Input Throughput (tok/s)")).isTrue();
            assertThat(s.path("Input Throughput (tok/s)").isNull()).as(s.toString()).isTrue();
            // every figure evalscope wrote is ours at its precision: nothing of its own to keep beside
            assertThat(s.has("Source Figures")).as(s.toString()).isFalse();

            CliHarness.Run text = CliHarness.main("runs", "show", id, "--db", db);
            assertThat(text.out()).contains("Imported:  from evalscope perf (v1.10.0 and later, by its summary's "
                    + "key names); not measured: phases, cached token counts (its cache hit rate kept)");
            CliHarness.Run list = CliHarness.main("runs", "list", "--db", db);
            assertThat(list.out()).contains(id);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void vllmDetailedResultIsRecomputedAndItsDifferingPercentilesKept(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            String id = importedId(CliHarness.main("runs", "import", VLLM.toString(), "--db", db));
            JsonNode run = show(db, id);
            assertThat(run.path("request_count").asLong()).isEqualTo(60);
            assertThat(run.path("environment").path("source_tool").asText()).isEqualTo("vLLM bench serve");
            assertThat(run.path("environment").path("source_files").path(VLLM.toString()).asText())
                    .isEqualTo(sha256(VLLM));
            JsonNode s = run.path("points").get(0).path("summary");
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(54.869997733218646,
                    org.assertj.core.data.Offset.offset(1e-3));
            assertThat(s.path("Total Input Tokens").asLong()).isEqualTo(23472);
            // its input_lens are its tokenizer's counts, its output_lens the server's usage: said per side, and the
            // figures summing prompt tokens marked as the client's counts
            assertThat(s.path("Token Count Source").asText())
                    .isEqualTo("prompt: tokenizer qwen-plus; output: server usage (else tokenizer qwen-plus)");
            assertThat(s.path("From Client Token Counts").asText()).contains("Avg Input Tokens", "Total Throughput")
                    .doesNotContain("Output", "TPOT");
            // vLLM's duration runs from its benchmark's start, ours from the first request's: both kept
            assertThat(s.path("Source Figures").path("Test Duration (s)").asDouble()).isEqualTo(5.749131701999431);
            assertThat(s.path("Test Duration (s)").asDouble()).isLessThan(5.749131701999431);
            // vLLM's p99 interpolates (numpy), ours is the nearest rank: both kept
            assertThat(s.path("Source Percentiles").isArray()).isTrue();
            assertThat(s.path("Source Percentiles").toString()).contains("164.56988770990392");
            assertThat(s.path("KV Cache Hit Rate (%)").isNull()).isTrue();
            // vLLM writes no input throughput; ours of a chat run is not measured (embedding/rerank only): absent
            assertThat(s.has("Input Throughput (tok/s)")).isTrue();
            assertThat(s.path("Input Throughput (tok/s)").isNull()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void anImportedRunsRequestsExportWithoutTheFiguresTheToolDidNotMeasure(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            List<String> unmeasured = List.of("http_status", "new_connection", "retried_stale_connection",
                    "reasoning_tokens");
            for (Path source : List.of(VLLM, EVALSCOPE)) {
                String id = importedId(CliHarness.main("runs", "import", source.toString(), "--db", db));
                JsonNode env = show(db, id).path("environment");
                assertThat(env.path("not_measured").asText())
                        .contains("each request's HTTP status, connection reuse and reasoning tokens");
                assertThat(env.path("not_measured_request_fields").toString())
                        .isEqualTo(JSON.valueToTree(unmeasured).toString());

                CliHarness.Run json = CliHarness.main("runs", "export", id, "--db", db);
                assertThat(json.exit()).as(json.err()).isZero();
                JsonNode requests = JSON.readTree(json.out()).path("points").get(0).path("requests");
                assertThat(requests.size()).isEqualTo(60);
                for (JsonNode r : requests) {
                    // the tool recorded none of these: absent (null), not 200 / false / 0
                    for (String field : unmeasured) {
                        assertThat(r.has(field)).as(field).isTrue();
                        assertThat(r.path(field).isNull()).as(source + " " + field + " in " + r).isTrue();
                    }
                    // what it did record stays
                    assertThat(r.path("success").isBoolean()).isTrue();
                    assertThat(r.path("latency_s").isNumber()).isTrue();
                    assertThat(r.path("completion_tokens").isNumber()).isTrue();
                }

                CliHarness.Run csv = CliHarness.main("runs", "export", id, "--format", "csv", "--db", db);
                assertThat(csv.exit()).as(csv.err()).isZero();
                List<String> lines = csv.out().lines().toList();
                List<String> header = List.of(lines.get(0).split(",", -1));
                String[] first = lines.get(1).split(",", -1);
                assertThat(first).hasSameSizeAs(header.toArray());
                for (String field : unmeasured) assertThat(first[header.indexOf(field)]).as(field).isEmpty();
                assertThat(first[header.indexOf("success")]).isEqualTo("true");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void theSameFilesImportedAgainAreRefusedNamingTheirRunUnlessAgain(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            String vllm = importedId(CliHarness.main("runs", "import", VLLM.toString(), "--db", db));
            String evalscope = importedId(CliHarness.main("runs", "import", EVALSCOPE.toString(), "--db", db));
            long before;
            try (var store = io.unibench.store.RunStore.open(b.location())) {
                before = store.count();
            }
            // the same file under another name is the same file (by its SHA-256): one line, exit 2, nothing stored
            Path copy = tmp.resolve("copy.json");
            Files.copy(VLLM, copy);
            CliHarness.Run r = CliHarness.main("runs", "import", AIPERF.toString(), copy.toString(), "--db", db);
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err().strip()).isEqualTo("unibench: " + copy + ": already imported as run " + vllm
                    + "; --again to store another copy");
            // an evalscope folder: all of its files are the run's
            CliHarness.Run folder = CliHarness.main("runs", "import", EVALSCOPE.toString(), "--db", db);
            assertThat(folder.exit()).isEqualTo(2);
            assertThat(folder.err()).contains("already imported as run " + evalscope + "; --again");
            try (var store = io.unibench.store.RunStore.open(b.location())) {
                assertThat(store.count()).isEqualTo(before);
            }
            // asked again: another copy, its own run
            String again = importedId(CliHarness.main("runs", "import", copy.toString(), "--again", "--db", db));
            assertThat(again).isNotEqualTo(vllm);
            // one file named twice in one import is read twice: bad input, nothing stored
            CliHarness.Run twice = CliHarness.main("runs", "import", AIPERF.toString(), AIPERF.toString(), "--db", db);
            assertThat(twice.exit()).isEqualTo(2);
            assertThat(twice.err().strip()).isEqualTo("unibench: " + AIPERF + ": the same files as " + AIPERF
                    + ", read twice");
            try (var store = io.unibench.store.RunStore.open(b.location())) {
                assertThat(store.count()).isEqualTo(before + 1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void vllmResultWithoutDetailsKeepsItsFiguresAndSaysWhatItLacks(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            String id = importedId(CliHarness.main("runs", "import", VLLM_SUMMARY.toString(), "--db", db));
            JsonNode run = show(db, id);
            assertThat(run.path("request_count").asLong()).isZero();
            assertThat(run.path("environment").path("not_measured").asText())
                    .contains("per-request rows (saved without --save-detailed)");
            JsonNode s = run.path("points").get(0).path("summary");
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isEqualTo(54.869997733218646);
            assertThat(s.path("Avg Input Tokens").asDouble()).isEqualTo(23472.0 / 60);
            assertThat(s.has("KV Cache Hit Rate (%)")).isTrue();
            assertThat(s.path("KV Cache Hit Rate (%)").isNull()).isTrue();
            assertThat(s.has("Avg First Chunk (ms)")).isFalse();
        }
    }

    @org.junit.jupiter.api.Test
    void runsShowSaysDashForAFigureTheToolDidNotMeasure() throws Exception {
        // vLLM's summary has no success rate, its 2025 result no mean latency: "-", as the verdict cell says none
        try (TestStores.Backend b = backend("sqlite")) {
            String db = b.location().jdbcUrl();
            for (Path sample : List.of(EVALSCOPE, VLLM, VLLM_SUMMARY, AIPERF, AIPERF_RUN, BR, GUIDELLM_V2,
                    GUIDELLM_2025, SAMPLES.resolve("vllm-bench-serve/benchmark_2025-05-11_22-45-40.json"))) {
                String id = importedId(CliHarness.main("runs", "import", sample.toString(), "--db", db));
                CliHarness.Run text = CliHarness.main("runs", "show", id, "--db", db);
                // every cell of the points table is a figure or "-": never blank, "null" or a bare "%"
                List<String> rows = text.out().lines().filter(l -> l.startsWith("│ ") && !l.startsWith("│ Point ")).toList();
                assertThat(rows).as(text.out()).isNotEmpty();
                for (String row : rows) {
                    for (String cell : row.substring(1, row.length() - 1).split("│")) {
                        assertThat(cell.strip()).as(sample + ": " + row).isNotIn("", "null", "%");
                    }
                }
                if (sample.equals(VLLM_SUMMARY)) assertThat(rows.getFirst()).contains("│       - │");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aBadFileIsOneLocatedLineAndNothingIsStored(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            ObjectNode bad = (ObjectNode) JSON.readTree(VLLM.toFile());
            ((com.fasterxml.jackson.databind.node.ArrayNode) bad.get("ttfts")).set(3, JSON.getNodeFactory().textNode("x"));
            Path badFile = tmp.resolve("bad.json");
            JSON.writeValue(badFile.toFile(), bad);
            // a good file before the bad one: nothing of either is stored
            CliHarness.Run r = CliHarness.main("runs", "import", VLLM.toString(), badFile.toString(), "--db", db);
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err().strip()).isEqualTo("unibench: " + badFile + ": /ttfts/3: expected a number, found string \"x\"");
            CliHarness.Run list = CliHarness.main("runs", "list", "--json", "--db", db);
            assertThat(JSON.readTree(list.out()).size()).as(list.out()).isZero();

            Path notResult = tmp.resolve("other.json");
            Files.writeString(notResult, "{\"hello\": 1}");
            CliHarness.Run other = CliHarness.main("runs", "import", notResult.toString(), "--db", db);
            assertThat(other.exit()).isEqualTo(2);
            assertThat(other.err()).contains(notResult + ": /: not a result runs import recognises");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aiperfRecordsAndABenchmarkReportFromTheirRepositoriesImport(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            String aiperf = importedId(CliHarness.main("runs", "import", AIPERF.toString(), "--db", db));
            JsonNode run = show(db, aiperf);
            assertThat(run.path("environment").path("source_tool").asText()).isEqualTo("AIPerf");
            assertThat(run.path("request_count").asLong()).isEqualTo(2);
            assertThat(run.path("success_count").asLong()).isEqualTo(1);
            JsonNode s = run.path("points").get(0).path("summary");
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(255.886568, org.assertj.core.data.Offset.offset(0.005));
            assertThat(s.path("Avg Latency (s)").asDouble()).isCloseTo(0.297525, org.assertj.core.data.Offset.offset(5e-5));
            assertThat(s.path("Avg Output Tokens").asDouble()).isEqualTo(9.0);

            String br = importedId(CliHarness.main("runs", "import", BR.toString(), "--db", db));
            JsonNode report = show(db, br);
            assertThat(report.path("model").asText()).isEqualTo("Qwen/Qwen3-0.6B");
            assertThat(report.path("environment").path("source_version").asText())
                    .isEqualTo("report 0.2, measured by inference-perf 0.3.0");
            assertThat(report.path("environment").path("not_measured").asText()).contains("per-request rows");
            JsonNode rs = report.path("points").get(0).path("summary");
            assertThat(rs.path("Total Requests").asLong()).isEqualTo(500);
            assertThat(rs.path("Avg TTFT (ms)").asDouble()).isCloseTo(36.8578234128654, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(rs.path("Test Duration (s)").asDouble()).isCloseTo(49.97206788, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(rs.path("KV Cache Hit Rate (%)").isNull()).isTrue();
            CliHarness.Run list = CliHarness.main("runs", "list", "--json", "--db", db);
            assertThat(JSON.readTree(list.out()).size()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aBenchmarkReportInMillisecondsFromLlmdsConverterImports(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            // llm-d-benchmark's golden report of a vLLM benchmark: its times in ms and ms/token, as the schema allows
            Path file = SAMPLES.resolve("br-v0.2/vllm_benchmark.v0_2.yaml");
            JsonNode run = show(db, importedId(CliHarness.main("runs", "import", file.toString(), "--db", db)));
            assertThat(run.path("environment").path("source_version").asText())
                    .isEqualTo("report 0.2, measured by vllm-benchmark");
            JsonNode point = run.path("points").get(0);
            assertThat(point.path("label").asText()).isEqualTo("rate_8.0_number_200");
            JsonNode s = point.path("summary");
            assertThat(s.path("Total Requests").asLong()).isEqualTo(200);
            assertThat(s.path("Failed Requests").asLong()).isEqualTo(2);
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isEqualTo(53.8569);
            assertThat(s.path("Avg TPOT (ms)").asDouble()).isEqualTo(13.4707);
            assertThat(s.path("Avg Latency (s)").asDouble()).isCloseTo(13.8344001, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(s.path("Test Duration (s)").isNull()).isTrue();
            List<java.util.Map<String, Object>> rows = percentiles(file, 0);
            assertThat(rows.getFirst().get("Percentiles")).isEqualTo("0.1%");
            assertThat(rows.toString()).contains("Percentiles=99%, TTFT (ms)=114.7431, TPOT (ms)=15.8575, ITL (ms)=17.4396, "
                    + "Latency (s)=16.2781657");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aiperfsOwnExampleRunImportsItsRecordsWithItsAggregateAsOneRun(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            // ai-dynamo/aiperf examples/artifacts/run1 (commit 7c31f579): 2025 records (timestamp_ns, "ttft") and
            // the aggregate profile_export_aiperf.json beside them: one run, its load settings from input_config
            String id = importedId(CliHarness.main("runs", "import", AIPERF_RUN.toString(), "--db", db));
            assertThat(JSON.readTree(CliHarness.main("runs", "list", "--json", "--db", db).out()).size()).isEqualTo(1);
            JsonNode run = show(db, id);
            assertThat(run.path("model").asText()).isEqualTo("openai/gpt-oss-20b");
            assertThat(run.path("request_count").asLong()).isEqualTo(100);
            assertThat(run.path("success_count").asLong()).isEqualTo(89);
            JsonNode env = run.path("environment");
            assertThat(env.path("source_files").has(AIPERF_RUN.resolve("profile_export_aiperf.json").toAbsolutePath().toString())
                    || env.path("source_files").toString().contains("profile_export_aiperf.json")).isTrue();
            assertThat(env.path("not_measured").asText()).doesNotContain("load settings");
            JsonNode point = run.path("points").get(0);
            assertThat(point.path("label").asText()).isEqualTo("parallel_100_number_100");
            JsonNode s = point.path("summary");
            // recomputed from the 89 successful records: the aggregate's mean TTFT and latency
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(2343.219437, org.assertj.core.data.Offset.offset(1e-3));
            assertThat(s.path("Avg Latency (s)").asDouble()).isCloseTo(9.059655, org.assertj.core.data.Offset.offset(5e-5));
            assertThat(s.path("Avg Output Tokens").asDouble()).isCloseTo(242.966292, org.assertj.core.data.Offset.offset(0.005));
            // AIPerf interpolates its percentiles, ours are the nearest rank: its rows are kept beside ours
            assertThat(s.path("Source Percentiles").isArray()).isTrue();
            assertThat(run.path("started_at").asText()).startsWith("2025-10-03");

            // the aggregate alone (its records elsewhere): the tool's figures only, and it says so
            Path alone = tmp.resolve("agg");
            Files.createDirectories(alone);
            Files.copy(AIPERF_RUN.resolve("profile_export_aiperf.json"), alone.resolve("profile_export_aiperf.json"));
            JsonNode agg = show(db, importedId(CliHarness.main("runs", "import",
                    alone.resolve("profile_export_aiperf.json").toString(), "--db", db)));
            assertThat(agg.path("environment").path("not_measured").asText()).contains("per-request rows");
            JsonNode as = agg.path("points").get(0).path("summary");
            assertThat(as.path("Avg TTFT (ms)").asDouble()).isEqualTo(2343.219436988764);
            assertThat(as.path("Avg TPOT (ms)").asDouble()).isEqualTo(27.763065454471807);
            assertThat(as.path("Total Requests").asLong()).isEqualTo(100);
            assertThat(as.path("Failed Requests").asLong()).isEqualTo(11);
            assertThat(as.path("KV Cache Hit Rate (%)").isNull()).isTrue();
        }
    }

    private static List<java.util.Map<String, Object>> percentiles(Path file, int point) {
        return io.unibench.importer.ResultImport.read(List.of(file), null, 0).getFirst().points().get(point).percentiles();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void guidellmReportsOfBothShapesImportOnePointPerBenchmark(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            // llm-d/llm-d-benchmark tests/fixtures/guidellm_report_v2.json (commit 8bc9f1dd): guidellm 0.8.0.dev18
            CliHarness.Run imported = CliHarness.main("runs", "import", GUIDELLM_V2.toString(), "--db", db);
            JsonNode run = show(db, importedId(imported));
            assertThat(run.path("model").asText()).isEqualTo("e2e-mock-model");
            JsonNode env = run.path("environment");
            assertThat(env.path("source_tool").asText()).isEqualTo("GuideLLM");
            assertThat(env.path("source_version").asText()).isEqualTo("0.8.0.dev18");
            assertThat(env.path("not_measured").asText()).contains("per-request rows (GuideLLM keeps samples only)");
            assertThat(run.path("points").size()).isEqualTo(2);
            JsonNode p0 = run.path("points").get(0);
            assertThat(p0.path("label").asText()).isEqualTo("rate_2.0_number_2");
            JsonNode s = p0.path("summary");
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isEqualTo(11.481165885925293);
            assertThat(s.path("Avg TPOT (ms)").asDouble()).isEqualTo(2.4421364068984985);
            assertThat(s.path("Avg Latency (s)").asDouble()).isEqualTo(0.01978909969329834);
            assertThat(s.path("Total Input Tokens").asLong()).isEqualTo(143);
            assertThat(s.path("KV Cache Hit Rate (%)").isNull()).isTrue();
            assertThat(percentiles(GUIDELLM_V2, 0).toString()).contains("Percentiles=99.9%, TTFT (ms)=11.686325073242188");

            // vllm-project/guidellm tests/unit/entrypoints/assets/benchmarks_stripped.json (commit e35f0a85): 2025
            JsonNode old = show(db, importedId(CliHarness.main("runs", "import", GUIDELLM_2025.toString(), "--db", db)));
            assertThat(old.path("model").asText()).isEqualTo("example_model");
            assertThat(old.path("environment").path("source_version").asText()).isEqualTo("not recorded in its files");
            JsonNode op = old.path("points").get(0);
            assertThat(op.path("label").asText()).isEqualTo("parallel_1_number_47");
            assertThat(op.path("summary").path("Success Requests").asLong()).isEqualTo(46);
            assertThat(op.path("summary").path("Avg TTFT (ms)").asDouble()).isEqualTo(16.792535781860348);
            // its 50th percentile is named only as the median
            assertThat(percentiles(GUIDELLM_2025, 0).toString()).contains("Percentiles=50%, TTFT (ms)=16.38054847717285");

            // a broken benchmark: one located line, nothing stored
            ObjectNode bad = (ObjectNode) JSON.readTree(GUIDELLM_V2.toFile());
            ((ObjectNode) bad.at("/benchmarks/1/metrics/time_to_first_token_ms/successful")).put("mean", "fast");
            Path badFile = tmp.resolve("bad-guidellm.json");
            JSON.writeValue(badFile.toFile(), bad);
            CliHarness.Run r = CliHarness.main("runs", "import", badFile.toString(), "--db", db);
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err().strip()).isEqualTo("unibench: " + badFile
                    + ": /benchmarks/1/metrics/time_to_first_token_ms/successful/mean: expected a number, found string \"fast\"");
            assertThat(JSON.readTree(CliHarness.main("runs", "list", "--json", "--db", db).out()).size()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void guidellmsYamlReportAndLlmdsReportOfAnAiperfRunImport(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            // vllm-project/guidellm tests/unit/entrypoints/assets/benchmarks_stripped.yaml (commit e35f0a85): the same
            // 2025 report as the JSON beside it, as GuideLLM writes it to a .yaml output path: the same figures
            Path yaml = SAMPLES.resolve("guidellm/benchmarks_stripped.yaml");
            JsonNode run = show(db, importedId(CliHarness.main("runs", "import", yaml.toString(), "--db", db)));
            assertThat(run.path("environment").path("source_tool").asText()).isEqualTo("GuideLLM");
            assertThat(run.path("model").asText()).isEqualTo("example_model");
            JsonNode p = run.path("points").get(0);
            assertThat(p.path("label").asText()).isEqualTo("parallel_1_number_47");
            assertThat(p.path("summary").path("Success Requests").asLong()).isEqualTo(46);
            assertThat(p.path("summary").path("Avg TTFT (ms)").asDouble()).isEqualTo(16.792535781860348);
            assertThat(percentiles(yaml, 0)).isEqualTo(percentiles(GUIDELLM_2025, 0));

            // llm-d/llm-d-benchmark tests/fixtures/br_v0_2_golden/aiperf.v0_2.yaml (commit 811a8aa5): its converter's
            // report of an AIPerf run (500 requests at concurrency 16), times in s and s/token
            Path br = SAMPLES.resolve("br-v0.2/aiperf.v0_2.yaml");
            JsonNode report = show(db, importedId(CliHarness.main("runs", "import", br.toString(), "--db", db)));
            assertThat(report.path("environment").path("source_version").asText())
                    .isEqualTo("report 0.2, measured by aiperf");
            JsonNode point = report.path("points").get(0);
            assertThat(point.path("label").asText()).isEqualTo("parallel_16_number_500");
            JsonNode s = point.path("summary");
            assertThat(s.path("Total Requests").asLong()).isEqualTo(500);
            assertThat(s.path("Failed Requests").asLong()).isZero();
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(120.9825, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(s.path("Avg ITL (ms)").asDouble()).isCloseTo(11.7452, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(s.path("Avg Latency (s)").asDouble()).isEqualTo(2.4582684);
            assertThat(s.path("Req Throughput (req/s)").asDouble()).isEqualTo(6.381);
            assertThat(s.path("Avg TPOT (ms)").isNull()).isTrue(); // the report gives no TPOT: absent, not zero
            assertThat(s.path("Test Duration (s)").isNull()).isTrue();
            assertThat(percentiles(br, 0).toString()).contains("Percentiles=99%, TTFT (ms)=224.5952");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aVllmResultOf2025CollectedByLlmdImportsAndItsOpenLoopShows(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            Path file = SAMPLES.resolve("vllm-bench-serve/benchmark_2025-05-11_22-45-40.json");
            String id = importedId(CliHarness.main("runs", "import", file.toString(), "--db", db));
            JsonNode run = show(db, id);
            assertThat(run.path("model").asText()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
            JsonNode point = run.path("points").get(0);
            assertThat(point.path("label").asText()).isEqualTo("rate_1.8_number_200");
            JsonNode s = point.path("summary");
            assertThat(s.path("Avg TTFT (ms)").asDouble()).isCloseTo(955.2341923862696, org.assertj.core.data.Offset.offset(0.005));
            assertThat(s.path("Failed Requests").asLong()).isZero();
            // no mean_e2el_ms in this vLLM's result: the latency is absent, not zero
            assertThat(s.path("Avg Latency (s)").isNull()).isTrue();
            // against the closed-loop sample: the loops differ, so no verdict on the latencies
            String closed = importedId(CliHarness.main("runs", "import", VLLM_SUMMARY.toString(), "--db", db));
            JsonNode cmp = JSON.readTree(CliHarness.main("runs", "compare", closed, id, "--json",
                    "--db", db).out());
            JsonNode fp = cmp.path("comparisons").get(0).path("fingerprint");
            assertThat(fp.path("loop").asText()).isEqualTo("open");
            assertThat(fp.path("warmup").isNull()).isTrue();
            assertThat(fp.path("seed").isNull()).isTrue();
            assertThat(cmp.path("comparisons").get(0).path("not_comparable").toString())
                    .contains("A ran closed, B open (queueing differs)");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void guidellmsTpotIncludesTheFirstTokenSoOursIsNotComparedWithIt(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind);
             io.unibench.sim.SimServer sim = io.unibench.sim.SimServer.start(io.unibench.sim.SimConfig.defaults()
                     .withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1))) {
            String db = b.location().jdbcUrl();
            String guidellm = importedId(CliHarness.main("runs", "import", GUIDELLM_V2.toString(), "--db", db));
            CliHarness.Run perf = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "e2e-mock-model", "--outputs-dir", tmp.resolve("out").toString(), "--no-timestamp", "--parallel", "2",
                    "--number", "4", "--max-tokens", "8", "--min-prompt-length", "8", "--max-prompt-length", "8",
                    "--db", db);
            assertThat(perf.exit()).as(perf.err()).isZero();
            String ours = perf.err().substring(perf.err().indexOf("Run history: run ") + 17).split(" ")[0];
            JsonNode json = JSON.readTree(CliHarness.main("runs", "compare", ours, guidellm, "--json", "--db", db).out());
            JsonNode gfp = json.path("comparisons").get(0).path("fingerprint");
            assertThat(gfp.path("prompt_lengths").asText()).isEqualTo("normal mean 32 sd 4 in 8–64 tokens");
            assertThat(gfp.path("warmup").asText()).isEqualTo("none");
            assertThat(gfp.path("dataset").asText()).isEqualTo("synthetic_text");
            assertThat(gfp.path("loop").asText()).isEqualTo("open");
            JsonNode fp = json.path("baseline_fingerprint");
            assertThat(fp.path("prompt_lengths").asText()).isEqualTo("fixed 8 tokens");
            assertThat(fp.path("warmup").asText()).isEqualTo("none");
            assertThat(fp.path("seed").asLong()).isZero(); // no --seed: our prompts are drawn from seed 0
            assertThat(json.path("comparisons").get(0).path("not_comparable").toString())
                    .contains("B's TPOT is (last token − start) / output tokens (first token included); "
                            + "A's (latency − TTFT) / (output tokens − 1)")
                    .contains("A's prompts are fixed 8 tokens, B's normal mean 32 sd 4 in 8–64 tokens (prefill differs)")
                    .contains("A ran closed, B open (queueing differs)");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aDuplicatedKeyIsRefusedNotSilentlyResolved(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            Path dup = tmp.resolve("dup.jsonl");
            Files.writeString(dup, Files.readString(AIPERF).replaceFirst("\"time_to_first_token\": \\{[^}]*}",
                    "$0, \"time_to_first_token\": {\"value\": 4.9, \"unit\": \"ms\"}"));
            CliHarness.Run r = CliHarness.main("runs", "import", dup.toString(), "--db", b.location().jdbcUrl());
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains(dup + ":1: not JSON: Duplicate field 'time_to_first_token'");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void compareRefusesAVerdictWhereTheFingerprintsDifferAndForceMarksIt(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind);
             io.unibench.sim.SimServer sim = io.unibench.sim.SimServer.start(io.unibench.sim.SimConfig.defaults()
                     .withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1))) {
            String db = b.location().jdbcUrl();
            String evalscope = importedId(CliHarness.main("runs", "import", EVALSCOPE.toString(), "--db", db));
            String vllm = importedId(CliHarness.main("runs", "import", VLLM.toString(), "--db", db));
            // evalscope and vLLM both time TTFT at the first chunk, both streamed closed loops, both take output
            // tokens from the server's usage: verdicts on TTFT, latency and TPOT; vLLM's prompt tokens are its
            // tokenizer's, evalscope's the server's, so only the figures summing prompt tokens get none
            JsonNode same = JSON.readTree(CliHarness.main("runs", "compare", evalscope, vllm, "--json", "--db", db).out());
            assertThat(same.path("comparisons").get(0).path("not_comparable").toString())
                    .isEqualTo("[\"A's prompt tokens are the server's usage, B's counted by tokenizer qwen-plus "
                            + "(prompt token figures differ)\"]");
            assertThat(same.path("comparisons").get(0).path("fingerprint").path("prompt_tokens").asText())
                    .isEqualTo("tokenizer qwen-plus");
            assertThat(same.path("baseline_fingerprint").path("output_tokens").asText())
                    .isEqualTo("server usage (else tokenizer stub)");
            for (String metric : List.of("p50 TTFT (ms)", "p50 Latency (s)", "p50 TPOT (ms)", "Avg TPOT (ms)",
                    "Output Throughput (tok/s)")) {
                assertThat(row(same, metric).path("verdict").asText()).as(metric).isNotEqualTo("refused");
            }
            for (String metric : List.of("Total Throughput (tok/s)", "Avg Input Tokens")) {
                assertThat(row(same, metric).path("verdict").asText()).as(metric).isEqualTo("refused");
            }
            // vLLM's result names no URL: the columns say where it came from, never "@ null"
            CliHarness.Run text = CliHarness.main("runs", "compare", evalscope, vllm, "--db", db);
            assertThat(text.out()).contains(vllm + " — qwen-plus (from vLLM bench serve; no URL in its files) [finished]")
                    .contains(evalscope + " — qwen-plus @ http://127.0.0.1:28276/v1/chat/completions")
                    .doesNotContain("null");

            // ours (the simulator, streamed, closed loop): TTFT at the first text chunk, evalscope's at any chunk
            CliHarness.Run perf = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "qwen-plus", "--outputs-dir", tmp.resolve("out").toString(), "--no-timestamp", "--parallel", "4",
                    "--number", "60", "--max-tokens", "64", "--min-prompt-length", "128", "--max-prompt-length", "128",
                    "--db", db);
            assertThat(perf.exit()).as(perf.err()).isZero();
            String ours = perf.err().substring(perf.err().indexOf("Run history: run ") + 17).split(" ")[0];
            CliHarness.Run refused = CliHarness.main("runs", "compare", ours, evalscope, "--db", db);
            assertThat(refused.exit()).as(refused.err()).isZero();
            assertThat(refused.out()).contains("not comparable: B's TTFT is the first chunk of any kind (role-only "
                    + "chunk included); A's the first chunk with text (role-only chunk excluded)");
            JsonNode json = JSON.readTree(CliHarness.main("runs", "compare", ours, evalscope, "--json", "--db", db).out());
            JsonNode ttft = row(json, "p50 TTFT (ms)");
            assertThat(ttft.path("verdict").asText()).isEqualTo("refused");
            assertThat(ttft.path("why").asText()).contains("B's TTFT is the first chunk of any kind");
            assertThat(row(json, "p50 Latency (s)").path("verdict").asText()).isNotEqualTo("refused");
            assertThat(json.path("comparisons").get(0).path("fingerprint").path("tool").asText()).isEqualTo("evalscope perf");
            assertThat(json.path("baseline_fingerprint").path("tool").asText()).isEqualTo("unibench");

            JsonNode forced = JSON.readTree(CliHarness.main("runs", "compare", ours, evalscope, "--json", "--force",
                    "--db", db).out());
            JsonNode f = row(forced, "p50 TTFT (ms)");
            assertThat(f.path("verdict").asText()).isNotEqualTo("refused");
            assertThat(f.path("why").asText()).startsWith("forced; not comparable: B's TTFT");
        }
    }

    private static JsonNode row(JsonNode compare, String metric) {
        for (JsonNode r : compare.path("rows")) if (r.path("metric").asText().equals(metric)) return r;
        throw new AssertionError("no row " + metric + " in " + compare);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void ourRunExportsAsABenchmarkReportTheSchemaAcceptsAndImportsBackToTheSameFigures(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind);
             io.unibench.sim.SimServer sim = io.unibench.sim.SimServer.start(io.unibench.sim.SimConfig.defaults()
                     .withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1))) {
            String db = b.location().jdbcUrl();
            CliHarness.Run perf = CliHarness.main("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                    "m", "--outputs-dir", tmp.resolve("out").toString(), "--no-timestamp", "--parallel", "2",
                    "--number", "20", "--max-tokens", "16", "--min-prompt-length", "8", "--max-prompt-length", "8",
                    "--db", db);
            assertThat(perf.exit()).as(perf.err()).isZero();
            String ours = perf.err().substring(perf.err().indexOf("Run history: run ") + 17).split(" ")[0];
            Path report = tmp.resolve("br.json");
            CliHarness.Run export = CliHarness.main("runs", "export", ours, "--format", "br-v0.2", "-o",
                    report.toString(), "--db", db);
            assertThat(export.exit()).as(export.err()).isZero();
            JsonNode doc = JSON.readTree(report.toFile());
            JsonNode schema = JSON.readTree(SAMPLES.resolve("br-v0.2/br_v0_2_json_schema.json").toFile());
            assertThat(MiniSchema.problems(schema, schema, doc, "")).isEmpty();

            String back = importedId(CliHarness.main("runs", "import", report.toString(), "--db", db));
            JsonNode a = show(db, ours).path("points").get(0).path("summary");
            JsonNode c = show(db, back).path("points").get(0).path("summary");
            for (String key : List.of("Total Requests", "Failed Requests", "Avg TTFT (ms)", "Avg TPOT (ms)",
                    "Avg ITL (ms)", "Avg Latency (s)", "Req Throughput (req/s)", "Output Throughput (tok/s)",
                    "Avg Input Tokens", "Avg Output Tokens", "Test Duration (s)")) {
                assertThat(c.path(key).asDouble()).as(key).isCloseTo(a.path(key).asDouble(),
                        org.assertj.core.data.Offset.offset(1e-9));
            }
        }
    }

    /** Enough of JSON Schema for the report's schema: $ref, type, required, properties, additionalProperties, anyOf, enum. */
    static final class MiniSchema {
        static List<String> problems(JsonNode root, JsonNode s, JsonNode v, String at) {
            List<String> out = new java.util.ArrayList<>();
            if (s.has("$ref")) return problems(root, root.at(s.get("$ref").asText().substring(1)), v, at);
            if (s.has("anyOf")) {
                for (JsonNode alt : s.get("anyOf")) if (problems(root, alt, v, at).isEmpty()) return out;
                out.add(at + ": matches no anyOf branch");
                return out;
            }
            if (s.has("enum")) {
                boolean found = false;
                for (JsonNode e : s.get("enum")) found |= e.equals(v);
                if (!found) out.add(at + ": not one of " + s.get("enum"));
            }
            String type = s.path("type").asText("");
            boolean ok = switch (type) {
                case "object" -> v.isObject();
                case "array" -> v.isArray();
                case "string" -> v.isTextual();
                case "number" -> v.isNumber();
                case "integer" -> v.isIntegralNumber();
                case "boolean" -> v.isBoolean();
                case "null" -> v.isNull();
                default -> true;
            };
            if (!ok) out.add(at + ": not " + type);
            if (v.isObject()) {
                for (JsonNode r : s.path("required")) if (!v.has(r.asText())) out.add(at + ": " + r.asText() + " required");
                v.properties().forEach(e -> {
                    JsonNode ps = s.path("properties").get(e.getKey());
                    if (ps != null) out.addAll(problems(root, ps, e.getValue(), at + "/" + e.getKey()));
                    else if (s.path("additionalProperties").isBoolean() && !s.path("additionalProperties").asBoolean()) {
                        out.add(at + "/" + e.getKey() + ": not allowed");
                    }
                });
            }
            if (v.isArray() && s.has("items")) {
                for (int i = 0; i < v.size(); i++) out.addAll(problems(root, s.get("items"), v.get(i), at + "/" + i));
            }
            return out;
        }
    }
}
