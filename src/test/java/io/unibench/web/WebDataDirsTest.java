package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.cli.Main;
import io.unibench.cli.ScenarioLauncher;
import io.unibench.schedule.ScheduleService;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The exfiltration hole of issue 29 §1: a run spec, a scenario document or a schedule posted to the service names a
 * file on the service's disk ({@code /etc/passwd}, its database) whose content the run would send as prompts to a
 * target the requester chose. Only files under {@code serve --data-dir} are readable; every other path — absolute,
 * escaping by {@code ..}, or through a symlink inside an allowed folder — is a 400 at its JSON pointer, with the same
 * message whether the file exists or not.
 */
class WebDataDirsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    static Path dir;

    static Path data;
    static Path secret;
    static SimServer sim;
    static RunStore store;
    static WebServer server;
    static ScheduleService scheduler;
    static final HttpClient http = HttpClient.newHttpClient();
    static final StringWriter log = new StringWriter();

    @BeforeAll
    static void start() throws Exception {
        data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("prompts.txt"), "Say hello.\nSay goodbye.\n");
        secret = Files.writeString(dir.resolve("service.env"), "UNIBENCH_DB_PASSWORD=hunter2-secret\n");
        Files.createSymbolicLink(data.resolve("escape.txt"), secret);
        Files.createSymbolicLink(data.resolve("outside"), dir);
        sim = SimServer.start(SimConfig.defaults().withHost("127.0.0.1").withModel("m").withTtftMs(1).withItlMs(1));
        StoreLocation location = StoreLocation.sqlite(dir.resolve("unibench.db"));
        store = RunStore.open(location);
        PrintWriter out = new PrintWriter(log, true);
        RunService service = new RunService(new ScenarioLauncher(Map.of(), dir.resolve("out"), out), 1, ENV,
                KeyAllowList.defaults(), RunLimits.DEFAULTS, KeyAllowList.channelDefaults(),
                DataDirs.of(List.of(data.toString()), dir, "--data-dir"));
        server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location, service, "test", out);
        KeyAllowList channels = KeyAllowList.channelDefaults();
        scheduler = ScheduleService.start(location, server.rounds(), channels.filter(ENV), null, out, channels::allows,
                "serve --allow-channel-env: " + channels);
        server.attach(scheduler);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scheduler != null) scheduler.close();
        if (server != null) server.close();
        if (store != null) store.close();
        if (sim != null) sim.close();
    }

    /** The paths an attacker tries: absolute, a {@code ..} escape from the data folder, a symlink in it, a missing file. */
    static List<String> attacks() {
        return List.of("/etc/passwd", secret.toString(), data + "/../service.env", data.resolve("escape.txt").toString(),
                data + "/outside/service.env", "/etc/no-such-file-7c1d");
    }

    static String refusal(String path) {
        return "'" + path + "' is outside this service's data folders: a run created through the service reads files "
                + "only under serve --data-dir DIR (or UNIBENCH_DATA_DIRS)";
    }

    static String scenario(String name, String datasetPath) {
        return """
                name: %s
                provider:
                  name: local
                  base_url: %s/v1
                  model: m
                generation:
                  max_tokens: 4
                concurrency:
                  levels: [1]
                  requests_per_level: 2
                scenarios:
                  - name: qa
                    type: chat
                    dataset: line_by_line
                    dataset_path: "%s"
                    min_prompt_length: 1
                    max_prompt_length: 64
                """.formatted(name, sim.baseUrl(), datasetPath);
    }

    @Test
    void aScenarioDocumentNamingAFileOutsideTheDataFoldersIsRefusedAtItsPointer() throws Exception {
        for (String path : attacks()) {
            HttpResponse<String> r = post("/api/runs", "application/yaml", scenario("attack", path));
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(400);
            JsonNode p = JSON.readTree(r.body()).get("problems");
            assertThat(p).as(r.body()).hasSize(1);
            assertThat(p.get(0).get("path").asText()).isEqualTo("/scenarios/0/dataset_path");
            assertThat(p.get(0).get("line").asInt()).isEqualTo(15);
            assertThat(p.get(0).get("message").asText()).isEqualTo(refusal(path));
            assertThat(r.body()).doesNotContain("hunter2", "root:");
        }
        // a CA certificate and a prompt file are files too; JSON documents are refused at the same pointers
        ObjectNode doc = (ObjectNode) new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(scenario("attack", "/etc/passwd"));
        ((ObjectNode) doc.get("provider")).put("ca_cert", "/etc/passwd");
        ((ObjectNode) doc.get("scenarios").get(0)).remove(List.of("dataset", "dataset_path"));
        ((ObjectNode) doc.get("scenarios").get(0)).put("prompt", "@" + secret);
        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(doc));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).get("problems").findValuesAsText("path"))
                .containsExactly("/provider/ca_cert", "/scenarios/0/prompt");
        assertThat(r.body()).doesNotContain("hunter2", "root:");
        // the validate endpoint says the same and nothing more
        r = post("/api/scenarios/validate", "application/yaml", scenario("attack", "/etc/passwd"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains(refusal("/etc/passwd"));
    }

    @Test
    void aRunSpecNamingAFileOutsideTheDataFoldersIsRefusedAtItsPointer() throws Exception {
        for (String path : attacks()) {
            ObjectNode spec = spec("attack");
            ((ObjectNode) spec.get("workloads").get(0)).put("prompt", "@" + path);
            HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(spec));
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(400);
            JsonNode p = JSON.readTree(r.body()).get("problems");
            assertThat(p).as(r.body()).hasSize(1);
            assertThat(p.get(0).get("path").asText()).isEqualTo("/workloads/0/prompt");
            assertThat(p.get(0).get("message").asText()).isEqualTo(refusal(path));
            assertThat(r.body()).doesNotContain("hunter2", "root:");
        }
        ObjectNode spec = spec("attack");
        ObjectNode w = (ObjectNode) spec.get("workloads").get(0);
        w.put("dataset_path", "/etc/passwd");
        ((ObjectNode) w.get("options")).put("tokenizer_path", "/etc/passwd");
        ((ObjectNode) w.get("options")).put("args", "{\"input_path\": \"/etc/passwd\"}");
        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(spec));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).get("problems").findValuesAsText("path")).containsExactly(
                "/workloads/0/dataset_path", "/workloads/0/options/tokenizer_path",
                "/workloads/0/options/args");
        assertThat(r.body()).doesNotContain("root:");
    }

    @Test
    void aFileInsideTheDataFoldersRuns() throws Exception {
        String id = created(post("/api/runs", "application/yaml", scenario("allowed", data.resolve("prompts.txt").toString())));
        assertThat(finished(id)).as("%s\n%s", log, send("GET", "/api/runs/" + id, null).body()).isEqualTo("finished");
        ObjectNode spec = spec("allowed-spec");
        ((ObjectNode) spec.get("workloads").get(0)).put("prompt", "@" + data.resolve("prompts.txt"));
        ((ObjectNode) spec.get("workloads").get(0).get("options")).put("tokenizer_path", "cl100k_base"); // bundled
        id = created(post("/api/runs", "application/json", JSON.writeValueAsString(spec)));
        assertThat(finished(id)).as("%s\n%s", log, send("GET", "/api/runs/" + id, null).body()).isEqualTo("finished");
    }

    @Test
    void aScheduleNamingAFileOutsideTheDataFoldersIsRefused() throws Exception {
        for (String path : List.of("/etc/passwd", data + "/../service.env", data.resolve("escape.txt").toString())) {
            HttpResponse<String> r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "attack",
                    "document", scenario("attack", path), "cron", "0 3 1 1 *", "tz", "UTC")));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("error").asText())
                    .isEqualTo("document: /scenarios/0/dataset_path: " + refusal(path));
        }
        // a CA certificate, which the scenario reader reads at once, is refused before it is read
        String ca = scenario("attack", data.resolve("prompts.txt").toString())
                .replace("  model: m\n", "  model: m\n  ca_cert: " + data.resolve("escape.txt") + "\n");
        HttpResponse<String> r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "attack",
                "document", ca, "cron", "0 3 1 1 *", "tz", "UTC")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).get("error").asText()).startsWith("document: /provider/ca_cert: ");
        assertThat(send("GET", "/api/schedules", null).body()).doesNotContain("attack");
        // inside the data folder it is stored
        r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "allowed", "document",
                scenario("allowed", data.resolve("prompts.txt").toString()), "cron", "0 3 1 1 *", "tz", "UTC")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    @Test
    void relativePathsResolveAgainstTheServiceFolderAndTheBundledDatasetsStayReadable() throws Exception {
        DataDirs none = DataDirs.of(List.of(), Path.of("").toAbsolutePath(), "--data-dir");
        assertThat(none.allows("examples/data/mooncake/mooncake_trace_sample.jsonl")).isTrue();
        assertThat(none.allows("examples/data/../../pom.xml")).isFalse();
        assertThat(none.allows("pom.xml")).isFalse();
        assertThat(none.allows("/etc/passwd")).isFalse();
        DataDirs some = DataDirs.of(List.of("data"), dir, "--data-dir");
        assertThat(some.allows("data/prompts.txt")).isTrue();
        assertThat(some.allows("data/missing.txt")).isTrue(); // inside: the reader says it is missing
        assertThat(some.allows("data/outside/missing.txt")).isFalse(); // through the symlink: outside, told nothing
        assertThat(some.allows("data/escape.txt")).isFalse();
        assertThat(some.allows("service.env")).isFalse();
    }

    /** {@code perf --dry-run}'s spec of a two-request run against the simulator. */
    static ObjectNode spec(String name) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(new String[] {"perf", "--dry-run", "--url", sim.baseUrl() + "/v1/chat/completions",
                "--model", "m", "--name", name, "--no-timestamp", "--sleep-interval", "0", "--max-tokens", "4",
                "--min-prompt-length", "8", "--max-prompt-length", "8", "--outputs-dir", "outputs", "--parallel", "1",
                "--number", "2"}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        ObjectNode spec = (ObjectNode) JSON.readTree(out.toString());
        ((ObjectNode) spec.get("targets").get(0)).putNull("api_key"); // the simulator asks for none
        return spec;
    }

    static String created(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as("%s\n%s", r.body(), log).isEqualTo(201);
        return JSON.readTree(r.body()).get("id").asText();
    }

    /** The run's status from its event stream's last event (run_finished). */
    static String finished(String id) throws Exception {
        HttpResponse<java.util.stream.Stream<String>> r = http.send(HttpRequest.newBuilder(
                URI.create(base() + "/api/runs/" + id + "/events")).GET().build(), HttpResponse.BodyHandlers.ofLines());
        List<String> lines = new ArrayList<>();
        Iterator<String> it = r.body().iterator();
        String event = null;
        while (it.hasNext()) {
            String l = it.next();
            lines.add(l);
            if (l.startsWith("event: ")) event = l.substring(7);
            else if (l.startsWith("data: ") && "run_finished".equals(event)) {
                r.body().close();
                return JSON.readTree(l.substring(6)).get("run_status").asText();
            }
        }
        throw new AssertionError("no run_finished: " + lines);
    }

    static String base() {
        return "http://127.0.0.1:" + server.port();
    }

    static HttpResponse<String> post(String path, String contentType, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
