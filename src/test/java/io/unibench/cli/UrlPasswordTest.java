package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.web.RunService;
import io.unibench.web.WebConfig;
import io.unibench.web.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A password in a scenario file's {@code base_url} ({@code http://alice:s3cretpw@127.0.0.1:PORT/v1}) authenticates
 * the requests (Basic authorization, as {@code perf --url} sends it) and appears nowhere: not in stdout/stderr (the
 * process streams too, with {@code --debug}), any file of the outputs folder, {@code runs show}/{@code runs export},
 * the service's REST API, its pages and {@code report.html}, the SQLite database and its {@code -wal} file — neither
 * in clear nor as the Basic header's base64. A schedule file and the web API's body (JSON and YAML) with one are
 * refused with a located line that does not repeat it.
 */
class UrlPasswordTest {
    private static final String PASSWORD = "s3cretpw";
    /** The Basic header's value: as good as the password itself. */
    private static final String BASIC = Base64.getEncoder().encodeToString(("alice:" + PASSWORD)
            .getBytes(StandardCharsets.UTF_8));
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The scenario file the user wrote (which holds the password): outside {@link #tmp}, which is searched. */
    @TempDir
    Path input;
    @TempDir
    Path tmp;
    private SimServer sim;
    private CapturingProxy proxy;
    /** Everything any command printed or any service answered: searched at the end. */
    private final List<String> seen = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(2).withPrefillMsPerToken(0).withItlMs(1));
        proxy = new CapturingProxy(sim.baseUrl());
    }

    @AfterEach
    void stop() {
        proxy.close();
        sim.close();
    }

    private String url() {
        return proxy.baseUrl().replace("://", "://alice:" + PASSWORD + "@") + "/v1";
    }

    private String scenario() {
        return """
                name: pw
                provider: {name: guarded, base_url: "%s", model: m, headers: {X-Team: bench}}
                generation: {max_tokens: 4}
                concurrency: {levels: [1, 2], requests_per_level: 3}
                scenarios:
                  - {name: chat, type: chat, prompt: "hello there"}
                """.formatted(url());
    }

    private CliHarness.Run keep(CliHarness.Run run) {
        seen.add(run.out());
        seen.add(run.err());
        return run;
    }

    @Test
    void aPasswordInAScenarioFilesUrlAuthenticatesAndIsShownNowhere() throws Exception {
        Path file = input.resolve("pw.yaml");
        Files.writeString(file, scenario());
        String db = tmp.resolve("unibench.db").toString();

        // run --config: the process streams are searched too
        ByteArrayOutputStream streams = new ByteArrayOutputStream();
        PrintStream savedErr = System.err;
        PrintStream savedOut = System.out;
        CliHarness.Run run;
        try (PrintStream capture = new PrintStream(streams, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            System.setOut(capture);
            run = keep(CliHarness.run("--config", file.toString(), "--outputs-dir", tmp.resolve("outputs").toString(),
                    "--no-timestamp", "--report", "json,csv,html", "--db", db));
        } finally {
            System.setErr(savedErr);
            System.setOut(savedOut);
        }
        seen.add(streams.toString(StandardCharsets.UTF_8));
        assertThat(run.exit()).as(run.err()).isZero();
        // the credential went on the wire, on every request
        assertThat(proxy.requests()).isNotEmpty()
                .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Basic " + BASIC));

        // a second run of the same file: the compare routes need two different runs
        CliHarness.Run again = keep(CliHarness.run("--config", file.toString(), "--outputs-dir",
                tmp.resolve("outputs-2").toString(), "--no-timestamp", "--db", db));
        assertThat(again.exit()).as(again.err()).isZero();

        JsonNode runs = JSON.readTree(keep(CliHarness.main("runs", "list", "--db", db, "--json")).out());
        assertThat(runs).hasSize(2);
        String id = runs.get(0).get("run_id").asText();
        String other = runs.get(1).get("run_id").asText();
        CliHarness.Run compared = keep(CliHarness.main("runs", "compare", id, other, "--db", db));
        assertThat(compared.exit()).as(compared.err()).isZero();
        CliHarness.Run show = keep(CliHarness.main("runs", "show", id, "--db", db, "--json"));
        assertThat(show.out()).contains("://***@127.0.0.1:"); // the URL was stored, masked
        keep(CliHarness.main("runs", "show", id, "--db", db));
        CliHarness.Run export = keep(CliHarness.main("runs", "export", id, "--db", db));
        assertThat(export.exit()).as(export.err()).isZero();
        keep(CliHarness.main("runs", "report", id, "--db", db));

        // schedule add refuses it (a schedule stores its document), with its line, without repeating it
        CliHarness.Run add = keep(schedule("add", "nightly", "--config", file.toString(), "--every", "1h", "--db", db));
        assertThat(add.exit()).isEqualTo(2);
        assertThat(add.err().strip()).isEqualTo("unibench: pw.yaml:2: provider.base_url: credentials in the URL (user info) "
                + "are refused: a schedule stores its document; name the key's variable with api_key_env instead");

        // the service over the same database: its API, pages and report; a document posted with the password
        StoreLocation location = StoreLocation.sqlite(Path.of(db));
        StringWriter log = new StringWriter();
        Map<String, String> env = Map.of();
        try (RunStore store = RunStore.open(location);
             WebServer server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location,
                     new RunService(new ScenarioLauncher(env, tmp.resolve("service-outputs"),
                             new PrintWriter(log, true)), 1, env), "test", new PrintWriter(log, true))) {
            String base = "http://127.0.0.1:" + server.port();
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of("/api/runs", "/api/runs/" + id, "/api/runs/" + id + "/requests",
                    "/api/runs/" + id + "/report.html", "/", "/runs/" + id, "/compare?a=" + id + "&b=" + other,
                    "/api/compare?a=" + id + "&b=" + other, "/api/schedules", "/schedules")) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(path).isEqualTo(200);
                seen.add(r.body());
            }
            String yaml = scenario();
            String json = JSON.writeValueAsString(JSON.readTree(new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
                    .readTree(yaml).toString()));
            for (String[] post : List.of(new String[] {"/api/runs", "application/json", json},
                    new String[] {"/api/runs", "application/yaml", yaml},
                    new String[] {"/api/scenarios/validate", "application/json", json},
                    new String[] {"/api/schedules", "application/json", JSON.writeValueAsString(Map.of("name",
                            "nightly", "document", yaml, "every", "1h"))})) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + post[0]))
                        .header("Content-Type", post[1]).POST(HttpRequest.BodyPublishers.ofString(post[2])).build(),
                        HttpResponse.BodyHandlers.ofString());
                seen.add(r.body());
                assertThat(r.body()).as(post[0] + " " + post[1]).contains("base_url");
                if (!post[0].equals("/api/scenarios/validate")) assertThat(r.statusCode()).isEqualTo(400);
            }
            // while the service holds the database open: its -wal file is there, and searched
            searchFiles(true);
        }
        seen.add(log.toString());
        assertThat(JSON.readTree(CliHarness.main("runs", "list", "--db", db, "--json").out())).hasSize(2); // the refused posts stored nothing
        searchFiles(false);
        for (String text : seen) {
            assertThat(text).doesNotContain(PASSWORD).doesNotContain(BASIC);
        }
    }

    /** Every file under the test's folder: the outputs, the database and (while open) its -wal and -shm files. */
    private void searchFiles(boolean walOpen) throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(tmp)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        List<String> names = files.stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names).contains("unibench.db", "requests.jsonl", "scenario_report.json", "scenario_report.html");
        if (walOpen) assertThat(names).contains("unibench.db-wal");
        for (Path f : files) {
            String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            assertThat(bytes).as(f.toString()).doesNotContain(PASSWORD).doesNotContain(BASIC);
        }
    }

    private static CliHarness.Run schedule(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new ScheduleCommand().withEnvironment(Map.of())),
                new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new CliHarness.Run(exit, out.toString(), err.toString());
    }
}
