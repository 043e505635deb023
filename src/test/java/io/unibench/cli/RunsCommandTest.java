package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code perf} records into the store and {@code runs …} reads it back, through the real CLI against the simulator
 * on a loopback port; each test once on SQLite and once on PostgreSQL (when {@code UNIBENCH_TEST_PG_URL} is set).
 */
class RunsCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;

    @TempDir
    Path tmp;

    static List<String> verdictLines(String report) {
        return report.lines().filter(l -> l.startsWith("Verdict [")).toList();
    }

    @BeforeAll
    static void startSimulator() {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private TestStores.Backend backend(String kind) throws Exception {
        return kind.equals("sqlite") ? TestStores.sqlite(tmp) : TestStores.postgres();
    }

    private String[] perf(String db, String name, String... extra) {
        return perfAt(sim.baseUrl() + "/v1/chat/completions", db, name, extra);
    }

    private String[] perfAt(String url, String db, String name, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", url,
                "--model", "m", "--outputs-dir", tmp.resolve("outputs").toString(), "--no-timestamp", "--name", name,
                "--sleep-interval", "0", "--parallel", "2", "4", "--number", "6", "8", "--max-tokens", "1", "32",
                "--min-prompt-length", "8", "--max-prompt-length", "8", "--db", db));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    private static String runId(CliHarness.Run run) {
        int at = run.err().indexOf("Run history: run ");
        assertThat(at).as(run.err()).isNotNegative();
        return run.err().substring(at + "Run history: run ".length()).split(" ")[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void perfRunsAreListedShownReportedComparedExportedAndDeleted(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            CliHarness.Run first = CliHarness.main(perf(db, "first", "--tag", "nightly", "h100"));
            assertThat(first.exit()).as(first.err()).isZero();
            CliHarness.Run second = CliHarness.main(perf(db, "second", "--tag", "nightly"));
            assertThat(second.exit()).as(second.err()).isZero();
            String a = runId(first);
            String bId = runId(second);
            CliHarness.Run skipped = CliHarness.main(perf(db, "skipped", "--no-db"));
            assertThat(skipped.exit()).isZero();
            assertThat(skipped.err()).doesNotContain("Run history");

            CliHarness.Run list = CliHarness.main("runs", "list", "--db", db, "--json");
            JsonNode rows = JSON.readTree(list.out());
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0).get("run_id").asText()).isEqualTo(bId); // newest first
            assertThat(rows.get(0).get("status").asText()).isEqualTo("finished");
            assertThat(rows.get(0).get("request_count").asLong()).isEqualTo(14);
            // 6 and 8 requests: too few for a p99's interval whatever else the machine did (the verdict, stored)
            assertThat(rows.get(0).get("verdict").asText()).contains("too-few-samples");
            assertThat(CliHarness.main("runs", "list", "--db", db).out()).contains("Verdict").contains("too-few-samples");
            CliHarness.Run tagged = CliHarness.main("runs", "list", "--db", db, "--tag", "h100");
            assertThat(tagged.out()).contains(a).doesNotContain(bId);
            assertThat(CliHarness.main("runs", "list", "--db", db, "--model", "nomatch").out()).contains("No stored runs");
            assertThat(CliHarness.main("runs", "list", "--db", db, "--since", "1d").out()).contains(a, bId);
            assertThat(CliHarness.main("runs", "list", "--db", db, "--since", "yesterday").exit()).isEqualTo(2);

            CliHarness.Run show = CliHarness.main("runs", "show", a, "--db", db);
            assertThat(show.out()).contains("Status:    finished", "h100, nightly", "java_version", "local_address",
                    "dataset_checksum", "parallel_2_number_6", "parallel_4_number_8");
            assertThat(show.out()).containsPattern("Verdict: +[a-z; -]*too-few-samples")
                    .contains("parallel_2_number_6: ").contains("too-few-samples: p1, p5, p10, p25, p75, p90, p95, p99 "
                            + "need up to 368 successful requests for a 95% CI, the point has 6");

            // the stored report equals the one perf printed, every number of every table (the same aggregation over
            // the same records in the same, finish, order: replies of 1–32 tokens finish out of issue order)
            CliHarness.Run report = CliHarness.main("runs", "report", a, "--db", db);
            assertThat(report.exit()).as(report.err()).isZero();
            assertThat(tables(first.out())).contains("Workload Throughput", "Phases", "Per-Request Metrics");
            assertThat(tables(report.out())).isEqualTo(tables(first.out()));
            // and heads with the verdict the run judged and stored, word for word
            assertThat(verdictLines(first.out())).hasSize(2);
            assertThat(verdictLines(report.out())).isEqualTo(verdictLines(first.out()));

            CliHarness.Run compare = CliHarness.main("runs", "compare", a, bId, "--db", db);
            assertThat(compare.exit()).as(compare.err()).isZero();
            assertThat(compare.out()).contains("A (baseline): " + a, "B: " + bId, "parallel_2 — concurrency 2",
                    "Avg Latency (s)", "p95 TTFT (ms)", "p99 TTFT (ms)", "p99 needs ≥ 368 requests a side");
            assertThat(compare.out()).containsPattern("A \\(baseline\\): " + a + " .* — NOT VALID: [a-z; -]*too-few-samples");
            JsonNode cmp = JSON.readTree(CliHarness.main("runs", "compare", a, bId, "--db", db, "--json").out());
            JsonNode total = stream(cmp.get("rows")).filter(r -> r.get("metric").asText().equals("Total Requests"))
                    .findFirst().orElseThrow();
            assertThat(total.get("delta").asDouble()).isZero();
            assertThat(total.get("direction").asText()).isEqualTo("NEUTRAL");

            Path json = tmp.resolve("export/a.json");
            assertThat(CliHarness.main("runs", "export", a, "--format", "json", "-o", json.toString(), "--db", db)
                    .exit()).isZero();
            JsonNode doc = JSON.readTree(json.toFile());
            assertThat(doc.at("/points/0/requests")).hasSize(6);
            assertThat(doc.at("/points/1/requests")).hasSize(8);
            Path csv = tmp.resolve("export/csv");
            assertThat(CliHarness.main("runs", "export", a, "--format", "csv", "-o", csv.toString(), "--db", db)
                    .exit()).isZero();
            assertThat(Files.readAllLines(csv.resolve("requests.csv"))).hasSize(1 + 14);
            assertThat(Files.readAllLines(csv.resolve("summary.csv"))).hasSize(1 + 2);

            CliHarness.Run delete = CliHarness.main("runs", "delete", a, "--db", db);
            assertThat(delete.out()).contains("Deleted run " + a + " (14 requests)");
            assertThat(JSON.readTree(CliHarness.main("runs", "list", "--db", db, "--json").out())).hasSize(1);
            assertThat(CliHarness.main("runs", "show", a, "--db", db).exit()).isEqualTo(2);
        }
    }

    /**
     * No API key, credential header value (a named key, a cookie), URL user info or credential query parameter
     * reaches the database, the output files or the logs (stdout/stderr, --debug).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void secretsNeverReachTheStoreTheFilesOrTheLogs(String kind) throws Exception {
        String key = "sk-UNIBENCHSECRETkey0123456789";
        String header = "hdr-UNIBENCHSECRETvalue987654";
        String cookie = "UNIBENCHSECRETcookie5551";
        String password = "UNIBENCHSECRETpass777";
        String queryToken = "UNIBENCHSECRETquery4242";
        String url = sim.baseUrl().replace("://", "://alice:" + password + "@")
                + "/v1/chat/completions?api_key=" + queryToken;
        try (TestStores.Backend b = backend(kind)) {
            String db = b.location().jdbcUrl();
            // --debug logs request bodies and chunks straight to System.err: capture the process streams too
            java.io.ByteArrayOutputStream processStreams = new java.io.ByteArrayOutputStream();
            java.io.PrintStream savedErr = System.err;
            java.io.PrintStream savedOut = System.out;
            CliHarness.Run run;
            try (java.io.PrintStream capture = new java.io.PrintStream(processStreams, true, StandardCharsets.UTF_8)) {
                System.setErr(capture);
                System.setOut(capture);
                run = CliHarness.main(perfAt(url, db, "secret", "--api-key", key, "--headers",
                        "X-Api-Key=" + header, "Cookie=session=" + cookie, "--debug"));
            } finally {
                System.setErr(savedErr);
                System.setOut(savedOut);
            }
            assertThat(run.exit()).as(run.err()).isZero();
            String logs = processStreams.toString(StandardCharsets.UTF_8);
            assertThat(logs).contains("[unibench debug]"); // the debug log was written, and is searched below
            String id = runId(run);
            CliHarness.Run show = CliHarness.main("runs", "show", id, "--db", db, "--json");
            CliHarness.Run export = CliHarness.main("runs", "export", id, "--db", db);
            assertThat(show.out()).contains("sk-***789"); // the masked form is there, so the field was stored
            assertThat(export.exit()).as(export.err()).isZero();
            assertThat(export.out()).contains("\"run_id\" : \"" + id + "\"", "sk-***789"); // searched below: not empty
            assertThat(show.out()).contains("://***@").contains("api_key=***242"); // the URL was stored, masked

            List<String> secrets = List.of(key, header, cookie, password, queryToken, "UNIBENCHSECRET");
            for (String text : List.of(logs, run.out(), run.err(), show.out(), show.err(), export.out(), export.err())) {
                for (String s : secrets) assertThat(text).doesNotContain(s);
            }
            // every file written: outputs, and for SQLite the database, its WAL and shared-memory files
            List<Path> files;
            try (Stream<Path> walk = Files.walk(tmp)) {
                files = walk.filter(Files::isRegularFile).toList();
            }
            if (kind.equals("sqlite")) {
                assertThat(files).extracting(p -> p.getFileName().toString()).contains("unibench.db");
            }
            assertThat(files).anyMatch(p -> p.getFileName().toString().equals("requests.jsonl"));
            for (Path f : files) {
                String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                for (String s : secrets) assertThat(bytes).as(f.toString()).doesNotContain(s);
            }
            // every value of every table, read back through the driver (PostgreSQL keeps its files elsewhere)
            String all = dumpAllTables(b);
            assertThat(all).contains("sk-***789");
            for (String s : secrets) assertThat(all).doesNotContain(s);
        }
    }

    private static String dumpAllTables(TestStores.Backend b) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Connection c = DriverManager.getConnection(b.location().jdbcUrl(), b.location().properties());
             Statement st = c.createStatement()) {
            for (String table : List.of("runs", "run_tags", "run_points", "requests", "schema_version")) {
                try (ResultSet rs = st.executeQuery("SELECT * FROM " + table)) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            byte[] raw = rs.getBytes(i);
                            if (raw != null) sb.append(new String(raw, StandardCharsets.ISO_8859_1)).append('\t');
                            Object o = rs.getObject(i);
                            sb.append(o).append('\n');
                        }
                    }
                }
            }
        }
        return sb.toString();
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> l = new ArrayList<>();
        array.forEach(l::add);
        return l.stream();
    }

    /** Every table of a report, from the first after Basic Information to the end of the report. */
    private static String tables(String text) {
        int at = text.indexOf("Performance Overview\n");
        assertThat(at).as(text).isNotNegative();
        int end = text.length();
        // the "Server" table is the target's /metrics, not the records: ServerMetricsEndToEndTest compares it
        for (String after : List.of("\nReproduce: ", "\nResults: ", "\nServer (")) {
            int i = text.indexOf(after, at);
            if (i >= 0) end = Math.min(end, i);
        }
        return text.substring(at, end).strip();
    }

    /**
     * A PostgreSQL URL with user info and credential parameters, which cannot connect (an invalid port makes the
     * driver refuse it before any network access, and its message quotes the URL): no credential in the output.
     */
    @org.junit.jupiter.api.Test
    void aStoreUrlThatCannotConnectIsReportedWithItsCredentialsMasked() {
        String url = "jdbc:postgresql://alice:UNIBENCHSECRETinfo@127.0.0.1:notaport/runs"
                + "?password=UNIBENCHSECRETpw&sslpassword=UNIBENCHSECRETssl";
        CliHarness.Run list = CliHarness.main("runs", "list", "--db", url);
        CliHarness.Run perf = CliHarness.main(perf(url, "masked"));
        for (CliHarness.Run run : List.of(list, perf)) {
            assertThat(run.exit()).as(run.err()).isEqualTo(2);
            assertThat(run.err()).contains("--db jdbc:postgresql://***@127.0.0.1:notaport/runs?password=***")
                    .contains("cannot open the run history");
            assertThat(run.out() + run.err()).doesNotContain("UNIBENCHSECRET");
        }
    }
}
