package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs created in the service over real HTTP on an ephemeral loopback port: validated documents, the queue, live
 * events to the end, cancel. The runs go through the real pipeline ({@code cli.ScenarioLauncher}) to the fixture's
 * embedded simulator (with an API key from the service's environment, which no response may show) or to embedded
 * simulators the documents start ({@code base_url: sim}).
 */
class WebRunsTest extends WebFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Two levels of six requests against the fixture's simulator, with the key named, never given. */
    static String quickYaml(String name) {
        return """
                name: %s
                provider:
                  name: local
                  base_url: %s/v1
                  model: m
                  api_key_env: TEST_KEY
                generation:
                  max_tokens: 8
                concurrency:
                  levels: [1, 2]
                  requests_per_level: 6
                scenarios:
                  - name: qa
                    type: chat
                    prompt: Say hello.
                """.formatted(name, f.sim.baseUrl());
    }

    /** A run whose requests each take about 30 s of simulated prefill: it is still running when a test cancels it. */
    static final String SLOW_YAML = """
            name: slow
            provider:
              name: slow-sim
              base_url: sim
              model: m
              simulator: {ttft_ms: 1, itl_ms: 1, prefill_ms_per_token: 100}
            concurrency: {fixed: 1, requests_per_level: 2}
            scenarios:
              - name: long
                type: chat
                prompt: %s
            """.formatted("word ".repeat(300).strip());

    static HttpResponse<String> post(String path, String contentType, String body) throws Exception {
        return f.send(HttpRequest.newBuilder(URI.create(f.base() + path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static String create(String yaml) throws Exception {
        HttpResponse<String> r = post("/api/runs", "application/yaml", yaml);
        assertThat(r.statusCode()).as("%s\nthe service's log:\n%s", r.body(), f.logText).isEqualTo(201);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("status").asText()).isEqualTo("queued");
        String id = body.get("id").asText();
        assertThat(r.headers().firstValue("Location")).hasValue("/api/runs/" + id);
        return id;
    }

    record Event(String name, JsonNode data) {}

    /** The run's SSE stream, read as it arrives, event by event (the stream ends with the run). */
    static Iterator<Event> events(String id) throws Exception {
        return events(f, id);
    }

    /** The stream of a run of another test's fixture. */
    static Iterator<Event> events(WebFixture f, String id) throws Exception {
        HttpResponse<Stream<String>> r = f.http.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/" + id
                + "/events")).timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        Iterator<String> lines = r.body().iterator();
        return new Iterator<>() {
            Event next;

            @Override
            public boolean hasNext() {
                if (next != null) return true;
                String name = null;
                while (lines.hasNext()) {
                    String l = lines.next();
                    if (l.startsWith("event: ")) name = l.substring(7);
                    else if (l.startsWith("data: ") && name != null) {
                        try {
                            next = new Event(name, JSON.readTree(l.substring(6)));
                        } catch (Exception e) {
                            throw new IllegalStateException(l, e);
                        }
                        return true;
                    }
                }
                return false;
            }

            @Override
            public Event next() {
                hasNext();
                Event e = next;
                next = null;
                return e;
            }
        };
    }

    static List<Event> until(Iterator<Event> events, String name) {
        List<Event> seen = new ArrayList<>();
        while (events.hasNext()) {
            Event e = events.next();
            seen.add(e);
            if (e.name().equals(name)) return seen;
        }
        throw new AssertionError("the stream ended before " + name + ": " + seen.stream().map(Event::name).toList());
    }

    @Test
    void aPostedRunSpecRunsAsPerfRunsItAndIsStored() throws Exception {
        var spec = f.dryRunSpec("spec-posted", "--parallel", "2", "--number", "6");
        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(spec));
        assertThat(r.statusCode()).as("%s\n%s", r.body(), f.logText).isEqualTo(201);
        String id = JSON.readTree(r.body()).get("id").asText();
        List<Event> all = new ArrayList<>();
        events(id).forEachRemaining(all::add);
        assertThat(all.stream().map(Event::name).toList()).contains("point_started", "snapshot", "point_finished");
        assertThat(all.getLast().name()).isEqualTo("run_finished");
        assertThat(all.getLast().data().get("run_status").asText()).as(f.logText.toString()).isEqualTo("finished");
        JsonNode finished = all.stream().filter(e -> e.name().equals("point_finished")).findFirst().orElseThrow().data();
        assertThat(finished.get("summary").get("Total Requests").asLong()).isEqualTo(6);
        JsonNode detail = JSON.readTree(f.get("/api/runs/" + id).body());
        assertThat(detail.get("status").asText()).isEqualTo("finished");
        assertThat(detail.get("name").asText()).isEqualTo("spec-posted");
        assertThat(detail.get("request_count").asLong()).isEqualTo(6);
        assertThat(detail.get("points")).hasSize(1);
        assertThat(detail.get("config").get("spec_version").asInt()).isEqualTo(1); // the posted spec is its configuration
        assertThat(f.logText.toString()).doesNotContain(WebFixture.API_KEY);
        // the same document validates as a spec, naming its points
        HttpResponse<String> v = post("/api/scenarios/validate", "application/json", JSON.writeValueAsString(spec));
        assertThat(v.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(v.body()).get("points").get(0).asText()).isEqualTo("parallel_2_number_6");
    }

    @Test
    void aShardsSpecIsRefusedSayingWhyAndWhatRunsIt() throws Exception {
        java.nio.file.Path db = java.nio.file.Files.createTempDirectory("shard-spec").resolve("h.db");
        long runs = f.store.count();
        var shard = f.dryRunSpec("spec-shard", "--parallel", "2", "--number", "6", "--shard", "1/2", "--run-group", "g",
                "--db", db.toString());
        JsonNode refused = problems(post("/api/runs", "application/json", JSON.writeValueAsString(shard)), 400);
        assertThat(refused).hasSize(1);
        assertThat(refused.get(0).get("path").asText()).isEqualTo("/shard");
        assertThat(refused.get(0).get("message").asText()).contains("1/2 is one shard of a run group",
                "waits for the group's other shards", "--max-concurrent-runs",
                "unibench run FILE --run-group G --db URL", "group:G");
        assertThat(f.store.count()).isEqualTo(runs);
    }

    /** Token-id prompts for the served model without its tokenizer: 400 at the pointer, nothing queued. */
    @Test
    void aSpecOfTokenIdPromptsWithoutATokenizerIsRefusedAtItsPointer() throws Exception {
        long runs = f.store.count();
        var spec = f.dryRunSpec("spec-ids", "--parallel", "1", "--number", "2");
        ((com.fasterxml.jackson.databind.node.ObjectNode) spec.get("workloads").get(0).get("options"))
                .put("tokenize_prompt", true);
        JsonNode refused = problems(post("/api/runs", "application/json", JSON.writeValueAsString(spec)), 400);
        assertThat(refused).hasSize(1);
        assertThat(refused.get(0).get("path").asText()).isEqualTo("/workloads/0/options/tokenize_prompt");
        assertThat(refused.get(0).get("message").asText()).startsWith("needs /workloads/0/options/tokenizer_path: "
                + "the ids must be the served model's");
        assertThat(f.store.count()).isEqualTo(runs);
    }

    /**
     * {@code perf --dry-run}'s spec made one of two targets and two workloads, both targets the fixture's loopback
     * simulator: "first" × "rand" at parallel 1 and 2 (3 and 4 requests), then "second" × "other" at parallel 1 (3).
     */
    /**
     * The same spec in the series layout (a scenario's: labels TARGET/WORKLOAD/LEVEL): the live view's labels are the
     * spec's, not named with their target and workload twice.
     */
    private void seriesLabelsAreNotNamedTwice() throws Exception {
        var spec = twoTargetSpec("spec-series");
        ((com.fasterxml.jackson.databind.node.ObjectNode) spec.get("outputs")).put("layout", "series");
        String[] prefixes = {"first/rand/", "first/rand/", "second/other/"};
        for (int i = 0; i < 3; i++) {
            var point = (com.fasterxml.jackson.databind.node.ObjectNode) spec.get("points").get(i);
            point.put("label", prefixes[i] + point.get("label").asText());
        }
        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(spec));
        assertThat(r.statusCode()).as("%s\n%s", r.body(), f.logText).isEqualTo(201);
        List<Event> all = new ArrayList<>();
        events(JSON.readTree(r.body()).get("id").asText()).forEachRemaining(all::add);
        assertThat(all.getLast().data().get("run_status").asText()).as(f.logText.toString()).isEqualTo("finished");
        assertThat(all.stream().filter(e -> e.name().equals("point_started")).map(e -> e.data().get("label").asText()))
                .containsExactly("first/rand/parallel_1_number_3", "first/rand/parallel_2_number_4",
                        "second/other/parallel_1_number_3");
    }

    static com.fasterxml.jackson.databind.node.ObjectNode twoTargetSpec(String name) throws Exception {
        var spec = f.dryRunSpec(name, "--parallel", "1", "2", "--number", "3", "4");
        var targets = (com.fasterxml.jackson.databind.node.ArrayNode) spec.get("targets");
        targets.add(((com.fasterxml.jackson.databind.node.ObjectNode) targets.get(0)).deepCopy().put("name", "second"));
        ((com.fasterxml.jackson.databind.node.ObjectNode) targets.get(0)).put("name", "first");
        var workloads = (com.fasterxml.jackson.databind.node.ArrayNode) spec.get("workloads");
        workloads.add(((com.fasterxml.jackson.databind.node.ObjectNode) workloads.get(0)).deepCopy().put("name", "other"));
        ((com.fasterxml.jackson.databind.node.ObjectNode) workloads.get(0)).put("name", "rand");
        var points = (com.fasterxml.jackson.databind.node.ArrayNode) spec.get("points");
        points.add(((com.fasterxml.jackson.databind.node.ObjectNode) points.get(0)).deepCopy().put("target", 1)
                .put("workload", 1));
        return spec;
    }

    @Test
    void aSpecOfTwoTargetsRunsEachAsARunLinkedToTheQueuedOne() throws Exception {
        var spec = twoTargetSpec("spec-two");
        HttpResponse<String> r = post("/api/runs?tag=pair", "application/json", JSON.writeValueAsString(spec));
        assertThat(r.statusCode()).as("%s\n%s", r.body(), f.logText).isEqualTo(201);
        String id = JSON.readTree(r.body()).get("id").asText();
        List<Event> all = new ArrayList<>();
        events(id).forEachRemaining(all::add);
        assertThat(all.getLast().name()).isEqualTo("run_finished");
        assertThat(all.getLast().data().get("run_status").asText()).as(f.logText.toString()).isEqualTo("finished");
        // the live view counts the points over the whole spec, each labelled with its target and workload
        List<JsonNode> started = all.stream().filter(e -> e.name().equals("point_started")).map(Event::data).toList();
        assertThat(started).extracting(p -> p.get("point").asInt()).containsExactly(0, 1, 2);
        assertThat(started).extracting(p -> p.get("points").asInt()).containsOnly(3);
        assertThat(started).extracting(p -> p.get("label").asText()).containsExactly(
                "first/rand/parallel_1_number_3", "first/rand/parallel_2_number_4", "second/other/parallel_1_number_3");
        assertThat(all.stream().filter(e -> e.name().equals("point_finished")).map(e -> e.data().get("point").asInt()))
                .containsExactly(0, 1, 2);

        JsonNode queued = JSON.readTree(f.get("/api/runs/" + id).body());
        assertThat(queued.get("status").asText()).isEqualTo("finished");
        assertThat(queued.get("name").asText()).isEqualTo("spec-two");
        seriesLabelsAreNotNamedTwice();
        assertThat(queued.get("request_count").asLong()).isEqualTo(7);
        assertThat(queued.get("points")).hasSize(2);
        assertThat(queued.get("config").get("targets")).hasSize(2); // the posted spec is its configuration
        assertThat(queued.has("part_of")).isFalse();
        JsonNode linked = queued.get("linked_runs");
        assertThat(linked).hasSize(1);
        String other = linked.get(0).get("id").asText();
        assertThat(linked.get(0).get("name").asText()).isEqualTo("spec-two/second/other");
        assertThat(linked.get(0).get("status").asText()).isEqualTo("finished");

        JsonNode second = JSON.readTree(f.get("/api/runs/" + other).body());
        assertThat(second.get("part_of").asText()).isEqualTo(id);
        assertThat(second.get("request_count").asLong()).isEqualTo(3);
        assertThat(second.get("success_count").asLong()).isEqualTo(3);
        assertThat(second.get("points")).hasSize(1);
        assertThat(second.get("tags")).extracting(JsonNode::asText).containsExactly("pair");
        // each part's files as run FILE writes them: OUTPUTS/RUN-ID/TARGET/WORKLOAD/POINT
        java.nio.file.Path root = dir.resolve("service-outputs").resolve(id);
        for (String point : List.of("first/rand/parallel_1_number_3", "first/rand/parallel_2_number_4",
                "second/other/parallel_1_number_3")) {
            assertThat(root.resolve(point).resolve("benchmark_summary.json")).as(point).exists();
        }
        assertThat(f.logText.toString()).doesNotContain(WebFixture.API_KEY);
        assertThat(f.get("/runs/" + other).body()).contains("href=\"/runs/" + id + "\"")
                .doesNotContain(WebFixture.API_KEY);
        // validate names every point of both targets
        HttpResponse<String> v = post("/api/scenarios/validate", "application/json", JSON.writeValueAsString(spec));
        assertThat(v.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(v.body()).get("points")).hasSize(3);
    }

    @Test
    void cancellingASpecsLinkedPartStopsTheRunAndEndsEveryPartCancelled() throws Exception {
        // the second target's requests each stream 8 tokens 5 s apart (its connection probe, one token, is at once):
        // it is running when the test cancels it
        try (io.unibench.sim.SimServer slow = io.unibench.sim.SimServer.start(io.unibench.sim.SimConfig.defaults()
                .withTtftMs(1).withPrefillMsPerToken(0).withItlMs(5000))) {
            var spec = twoTargetSpec("spec-cancel");
            ((com.fasterxml.jackson.databind.node.ObjectNode) spec.get("targets").get(1)).put("url", slow.baseUrl()
                    + "/v1/chat/completions");
            HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(spec));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            String id = JSON.readTree(r.body()).get("id").asText();
            Iterator<Event> events = events(id);
            Event started;
            do {
                started = until(events, "point_started").getLast();
            } while (started.data().get("point").asInt() != 2);
            Event tick; // the part's snapshots tick once its stored run exists
            do {
                tick = until(events, "snapshot").getLast();
            } while (tick.data().get("point").asInt() != 2);
            String other = JSON.readTree(f.get("/api/runs/" + id).body()).get("linked_runs").get(0).get("id").asText();
            assertThat(JSON.readTree(f.get("/api/runs/" + other).body()).get("status").asText()).isEqualTo("running");
            HttpResponse<String> c = post("/api/runs/" + other + "/cancel", "application/json", "");
            assertThat(c.statusCode()).as(c.body()).isEqualTo(202);
            Event end = until(events, "run_finished").getLast();
            assertThat(end.data().get("run_status").asText()).isEqualTo("cancelled");
            for (String run : List.of(id, other)) {
                JsonNode d = JSON.readTree(f.get("/api/runs/" + run).body());
                assertThat(d.get("status").asText()).as(run).isEqualTo("cancelled");
                assertThat(d.get("status_reason").asText()).as(run).isEqualTo("cancelled by request");
            }
            HttpResponse<String> deleted = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/" + id))
                    .DELETE());
            assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
            assertThat(JSON.readTree(deleted.body()).get("deleted")).extracting(JsonNode::asText)
                    .containsExactly(id, other);
        }
    }

    @Test
    void aScenarioDocumentsAlertsAreCheckedAsRunConfigChecksThem() throws Exception {
        String doc = quickYaml("alerted") + """
                alerts:
                  - {name: slow, metric: ttft_p95_ms, op: ">", threshold: 2000}
                  - {name: slow, metric: ttft_p95_ms, op: ">", threshold: 3000}
                """;
        HttpResponse<String> r = post("/api/runs", "application/yaml", doc);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode p = JSON.readTree(r.body()).path("problems").get(0);
        assertThat(p.path("path").asText()).isEqualTo("/alerts/1/name");
        assertThat(p.path("message").asText()).contains("duplicate alert name 'slow'");
        assertThat(p.path("line").asInt()).isPositive();
    }

    @Test
    void aCreatedRunStreamsItsEventsToTheEndAndIsStored() throws Exception {
        String id = create(quickYaml("created"));
        List<Event> all = new ArrayList<>();
        events(id).forEachRemaining(all::add);
        List<String> names = all.stream().map(Event::name).toList();
        assertThat(names.getFirst()).isEqualTo("status");
        assertThat(names.getLast()).isEqualTo("run_finished");
        assertThat(names).filteredOn("point_started"::equals).hasSize(2);
        assertThat(names).filteredOn("point_finished"::equals).hasSize(2);
        assertThat(names).contains("snapshot");
        JsonNode started = all.stream().filter(e -> e.name().equals("point_started")).findFirst().orElseThrow().data();
        assertThat(started.get("points").asInt()).isEqualTo(2);
        assertThat(started.get("plan").get("concurrency").asInt()).isEqualTo(1);
        assertThat(started.get("plan").get("number").asInt()).isEqualTo(6);
        JsonNode lastSnapshot = all.stream().filter(e -> e.name().equals("snapshot")).reduce((a, b) -> b).orElseThrow().data();
        assertThat(lastSnapshot.get("point").asInt()).isEqualTo(1);
        assertThat(lastSnapshot.get("completed").asLong()).isEqualTo(6);
        assertThat(lastSnapshot.get("ttft_ms").get("p99").asDouble()).isPositive();
        assertThat(lastSnapshot.get("in_flight").isNumber()).as(lastSnapshot.toString()).isTrue();
        assertThat(lastSnapshot.get("client").has("cpu_percent_of_one_core")).isTrue(); // null before its first sample
        JsonNode finished = all.stream().filter(e -> e.name().equals("point_finished")).reduce((a, b) -> b).orElseThrow().data();
        assertThat(finished.get("summary").get("Total Requests").asLong()).isEqualTo(6);
        JsonNode end = all.getLast().data();
        assertThat(end.get("status").asText()).isEqualTo("finished");
        assertThat(end.get("run_status").asText()).isEqualTo("finished");

        JsonNode detail = JSON.readTree(f.get("/api/runs/" + id).body());
        assertThat(detail.get("status").asText()).isEqualTo("finished");
        assertThat(detail.get("name").asText()).isEqualTo("created");
        assertThat(detail.get("request_count").asLong()).isEqualTo(12);
        assertThat(detail.get("points")).hasSize(2);
        assertThat(detail.get("config").get("provider").get("api_key_env").asText()).isEqualTo("TEST_KEY");
        assertThat(detail.get("environment").get("provider").asText()).isEqualTo("local");
        JsonNode list = JSON.readTree(f.get("/api/runs?status=finished&name=created").body()).get("runs");
        assertThat(list).hasSize(1);
        assertThat(list.get(0).get("id").asText()).isEqualTo(id);

        // a stream opened after the end gets the end at once
        List<Event> late = new ArrayList<>();
        events(id).forEachRemaining(late::add);
        assertThat(late.stream().map(Event::name).toList()).containsExactly("status", "run_finished");

        for (String path : List.of("/api/runs/" + id, "/api/runs", "/runs/" + id, "/", "/api/runs/" + id + "/report.html",
                "/api/runs/" + id + "/requests?format=jsonl", "/api/runs/" + id + "/requests?format=csv",
                "/api/runs/" + id + "/events", "/api/openapi.json")) {
            assertThat(f.get(path).body()).as(path).doesNotContain(WebFixture.API_KEY);
        }
        assertThat(f.logText.toString()).doesNotContain(WebFixture.API_KEY);
    }

    /** Two providers: the fixture's simulator (its key from the service's environment) and an embedded one. */
    static String twoProvidersYaml(String name, String second) {
        String one = quickYaml(name);
        String provider = one.substring(one.indexOf("provider:\n"), one.indexOf("generation:"));
        return one.replace(provider, """
                providers:
                  - {name: local, base_url: "%s/v1", model: m, api_key_env: TEST_KEY}
                  - {name: other, base_url: sim, model: m, simulator: %s}
                """.formatted(f.sim.baseUrl(), second));
    }

    @Test
    void aRunOfTwoProvidersStoresOneRunPerProviderLinkedToTheQueuedOne() throws Exception {
        String id = create(twoProvidersYaml("pair", "{ttft_ms: 1, itl_ms: 1}"));
        Iterator<Event> events = events(id);
        // the first provider's first level has ended: its requests and environment are in the store while it runs
        until(events, "point_finished");
        JsonNode live = JSON.readTree(f.get("/api/runs/" + id).body());
        assertThat(live.get("status").asText()).isEqualTo("running");
        assertThat(live.get("request_count").asLong()).isEqualTo(6);
        assertThat(live.get("environment").get("provider").asText()).isEqualTo("local");
        assertThat(live.get("environment").get("target_base_url").asText()).contains(f.sim.baseUrl());

        List<Event> rest = new ArrayList<>();
        events.forEachRemaining(rest::add);
        List<String> labels = rest.stream().filter(e -> e.name().equals("point_started"))
                .map(e -> e.data().get("label").asText()).toList();
        assertThat(labels).hasSize(3).allMatch(l -> l.startsWith("local/") || l.startsWith("other/"));
        assertThat(labels).filteredOn(l -> l.startsWith("other/")).hasSize(2);
        assertThat(rest.getLast().name()).isEqualTo("run_finished");
        assertThat(rest.getLast().data().get("run_status").asText()).isEqualTo("finished");

        JsonNode queued = JSON.readTree(f.get("/api/runs/" + id).body());
        assertThat(queued.get("status").asText()).isEqualTo("finished");
        assertThat(queued.get("request_count").asLong()).isEqualTo(12);
        assertThat(queued.get("points")).hasSize(2);
        assertThat(queued.get("environment").get("provider").asText()).isEqualTo("local");
        assertThat(queued.has("part_of")).isFalse();
        JsonNode linked = queued.get("linked_runs");
        assertThat(linked).hasSize(1);
        String other = linked.get(0).get("id").asText();
        assertThat(linked.get(0).get("name").asText()).isEqualTo("pair/other");
        assertThat(linked.get(0).get("status").asText()).isEqualTo("finished");
        assertThat(linked.get(0).get("request_count").asLong()).isEqualTo(12);

        JsonNode second = JSON.readTree(f.get("/api/runs/" + other).body());
        assertThat(second.get("status").asText()).isEqualTo("finished");
        assertThat(second.get("part_of").asText()).isEqualTo(id);
        assertThat(second.has("linked_runs")).isFalse();
        assertThat(second.get("request_count").asLong()).isEqualTo(12);
        assertThat(second.get("success_count").asLong()).isEqualTo(12);
        assertThat(second.get("points")).hasSize(2);
        assertThat(second.get("points").get(1).get("summary").get("Total Requests").asLong()).isEqualTo(6);
        assertThat(second.get("environment").get("provider").asText()).isEqualTo("other");
        assertThat(second.get("environment").get("embedded_simulator").asBoolean()).isTrue();
        assertThat(second.get("config").get("providers")).hasSize(2); // the document, as the queued run's
        String page = f.get("/runs/" + id).body();
        assertThat(page).contains("href=\"/runs/" + other + "\"");
        assertThat(f.get("/runs/" + other).body()).contains("href=\"/runs/" + id + "\"");
        assertThat(f.get("/runs/" + other).body()).doesNotContain(WebFixture.API_KEY);
        JsonNode api = JSON.readTree(f.get("/api/openapi.json").body());
        assertThat(api.get("paths").get("/api/runs/{id}").get("get").get("summary").asText())
                .contains("linked_runs").contains("part_of");
        assertThat(api.at("/components/schemas/Scenario/description").asText()).contains("several");

        // Delete asks first, naming what goes with the run: the created run its other providers' runs; a linked run
        // is deleted alone (the created run and its other providers stay)
        assertThat(Jsoup.parse(page).getElementById("delete-run").attr("data-confirm")).isEqualTo("Delete run " + id
                + " and its 12 stored requests? Its other providers' runs are deleted with it: " + other + ".");
        assertThat(Jsoup.parse(f.get("/runs/" + other).body()).getElementById("delete-run").attr("data-confirm"))
                .isEqualTo("Delete run " + other + " and its 12 stored requests? It is one provider of run " + id
                        + ", which stays with its other providers.");
        HttpResponse<String> deleted = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/" + id)).DELETE());
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(deleted.body()).get("deleted")).extracting(JsonNode::asText).containsExactly(id, other);
        assertThat(f.get("/api/runs/" + id).statusCode()).isEqualTo(404);
        assertThat(f.get("/api/runs/" + other).statusCode()).isEqualTo(404);
    }

    @Test
    void cancellingAnyRunOfASeveralProviderRunStopsItAndEndsEveryProvidersRunCancelled() throws Exception {
        // the second provider's requests each take about 30 s of prefill: it is running when the test cancels it
        String id = create(twoProvidersYaml("pair-cancel", "{ttft_ms: 1, itl_ms: 1, prefill_ms_per_token: 100}")
                .replace("prompt: Say hello.", "prompt: " + "word ".repeat(300).strip()));
        Iterator<Event> events = events(id);
        Event started;
        do {
            started = until(events, "point_started").getLast();
        } while (!started.data().get("label").asText().startsWith("other/"));
        int point = started.data().get("point").asInt();
        Event tick; // the point's snapshots tick once its stored run exists (its sink is added before they start)
        do {
            tick = until(events, "snapshot").getLast();
        } while (tick.data().get("point").asInt() != point);
        String other = JSON.readTree(f.get("/api/runs/" + id).body()).get("linked_runs").get(0).get("id").asText();
        assertThat(JSON.readTree(f.get("/api/runs/" + other).body()).get("status").asText()).isEqualTo("running");
        Event followed = events(other).next(); // a linked run's stream is its service run's
        assertThat(followed.name()).isEqualTo("status");
        assertThat(followed.data().get("status").asText()).isEqualTo("running");

        HttpResponse<String> c = post("/api/runs/" + other + "/cancel", "application/json", "");
        assertThat(c.statusCode()).as(c.body()).isEqualTo(202);
        Event end = until(events, "run_finished").getLast();
        assertThat(end.data().get("run_status").asText()).isEqualTo("cancelled");
        for (String run : List.of(id, other)) {
            JsonNode d = JSON.readTree(f.get("/api/runs/" + run).body());
            assertThat(d.get("status").asText()).as(run).isEqualTo("cancelled");
            assertThat(d.get("status_reason").asText()).as(run).isEqualTo("cancelled by request");
        }
    }

    @Test
    void aRoundFiredWhileAnotherRunHoldsTheQueueWaitsThereThenRunsAndAnOverlappingFireIsSkipped() throws Exception {
        String slow = create(SLOW_YAML);
        Iterator<Event> slowEvents = events(slow);
        until(slowEvents, "point_started"); // the slow run holds the only slot now

        long stored = 1_000_000_000_000L;
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(stored);
        String doc = quickYaml("nightly-round") + """
                alerts:
                  - {name: any-first-token, metric: ttft_p95_ms, op: ">", threshold: 0, for_rounds: 1}
                """;
        try (io.unibench.schedule.ScheduleStore schedules = io.unibench.schedule.ScheduleStore.open(f.location)) {
            schedules.add(new io.unibench.schedule.Schedule("nightly", doc, "nightly.yaml",
                    io.unibench.schedule.Trigger.every(Duration.ofMinutes(1), stored, "--every"), Duration.ZERO, true,
                    null, null, stored, stored));
            io.unibench.schedule.RoundRunner rounds = new io.unibench.schedule.RoundRunner(schedules, f.store,
                    f.server.rounds(), now::get, null, new java.io.PrintWriter(f.logText, true));
            java.util.concurrent.CompletableFuture<io.unibench.schedule.RoundRunner.Done> done =
                    new java.util.concurrent.CompletableFuture<>();
            io.unibench.schedule.Scheduler scheduler = new io.unibench.schedule.Scheduler(schedules, now::get, b -> 0,
                    (sched, round) -> Thread.ofVirtual().start(() -> {
                        try {
                            done.complete(rounds.run(sched, round));
                        } catch (Exception e) {
                            done.completeExceptionally(e);
                        }
                    }), new java.io.PrintWriter(f.logText, true));

            now.set(stored + Duration.ofMinutes(1).toMillis());
            scheduler.tick();
            io.unibench.schedule.Round first = schedules.rounds("nightly", 10).getFirst();
            String roundTag = io.unibench.schedule.RoundLauncher.roundTag(first.roundId());
            JsonNode listed = null;
            for (int tick = 0; tick < 30 && listed == null; tick++) { // the round's run is queued by its own thread
                JsonNode runs = JSON.readTree(f.get("/api/runs?tag=" + roundTag).body()).get("runs");
                if (!runs.isEmpty()) listed = runs.get(0);
                else until(slowEvents, "snapshot"); // once a second while the slow run goes on
            }
            assertThat(listed).as("the round's run is listed").isNotNull();
            String run = listed.get("id").asText();
            JsonNode waiting = JSON.readTree(f.get("/api/runs/" + run).body());
            assertThat(waiting.get("status").asText()).isEqualTo("queued");
            assertThat(waiting.get("queue").get("reason").asText()).contains(slow);
            assertThat(waiting.get("tags").toString()).contains("schedule:nightly").contains(roundTag);
            assertThat(schedules.round(first.roundId()).status()).as("its run has not started").isEqualTo("queued");

            now.addAndGet(Duration.ofMinutes(1).toMillis()); // the next fire time: the first round is still queued
            scheduler.tick();
            io.unibench.schedule.Round skipped = schedules.rounds("nightly", 10).stream()
                    .filter(r -> !r.roundId().equals(first.roundId())).findFirst().orElseThrow();
            assertThat(skipped.status()).isEqualTo("skipped");
            assertThat(skipped.reason()).contains(first.roundId()).contains("queued");
            assertThat(JSON.readTree(f.get("/api/runs?tag=schedule:nightly").body()).get("runs")).hasSize(1);

            assertThat(post("/api/runs/" + slow + "/cancel", "application/json", "").statusCode()).isEqualTo(202);
            Event end = until(events(run), "run_finished").getLast();
            assertThat(end.data().get("run_status").asText()).isEqualTo("finished");
            io.unibench.schedule.RoundRunner.Done ran = done.get(120, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ran.round().status()).as(String.valueOf(ran.round().reason())).isEqualTo("finished");
            assertThat(ran.round().runIds()).containsExactly(run);
            assertThat(ran.round().startedAt()).isNotNull();
            // its alerts were evaluated from the stored run once it ended: one target per level, each firing
            assertThat(ran.outcomes()).extracting(o -> o.target().level()).containsExactly("parallel_1", "parallel_2");
            assertThat(ran.outcomes()).allSatisfy(o -> {
                assertThat(o.state().status()).isEqualTo(io.unibench.schedule.AlertState.Status.FIRING);
                assertThat(o.target().provider()).isEqualTo("local");
                assertThat(o.observation().runId()).isEqualTo(run);
            });
            JsonNode stored2 = JSON.readTree(f.get("/api/runs/" + run).body());
            assertThat(stored2.get("request_count").asLong()).isEqualTo(12);
            assertThat(stored2.get("name").asText()).isEqualTo("nightly-round");
        }
    }

    @Test
    void aQueuedRunSaysWhyItWaitsAndEitherRunCanBeCancelled() throws Exception {
        String slow = create(SLOW_YAML);
        String waiting = create(quickYaml("waiting"));
        Iterator<Event> slowEvents = events(slow);
        until(slowEvents, "point_started"); // the slow run holds the only slot now

        JsonNode queued = JSON.readTree(f.get("/api/runs/" + waiting).body());
        assertThat(queued.get("status").asText()).isEqualTo("queued");
        assertThat(queued.get("queue").get("position").asInt()).isEqualTo(1);
        assertThat(queued.get("queue").get("reason").asText()).contains(slow).contains("--max-concurrent-runs 1");
        Event first = events(waiting).next();
        assertThat(first.name()).isEqualTo("status");
        assertThat(first.data().get("status").asText()).isEqualTo("queued");
        assertThat(first.data().get("reason").asText()).contains(slow);
        assertThat(f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/" + slow)).DELETE()).statusCode())
                .isEqualTo(409);

        HttpResponse<String> c = post("/api/runs/" + waiting + "/cancel", "application/json", "");
        assertThat(c.statusCode()).as("%s\nthe service's log:\n%s", c.body(), f.logText).isEqualTo(202);
        JsonNode cancelled = JSON.readTree(f.get("/api/runs/" + waiting).body());
        assertThat(cancelled.get("status").asText()).isEqualTo("cancelled");
        assertThat(cancelled.get("status_reason").asText()).isEqualTo("cancelled before it started");
        assertThat(cancelled.get("request_count").asLong()).isZero();

        assertThat(post("/api/runs/" + slow + "/cancel", "application/json", "").statusCode()).isEqualTo(202);
        Event end = until(slowEvents, "run_finished").getLast();
        assertThat(end.data().get("status").asText()).isEqualTo("stopped");
        assertThat(end.data().get("run_status").asText()).isEqualTo("cancelled");
        JsonNode stopped = JSON.readTree(f.get("/api/runs/" + slow).body());
        assertThat(stopped.get("status").asText()).isEqualTo("cancelled");
        assertThat(stopped.get("status_reason").asText()).isEqualTo("cancelled by request");
        assertThat(stopped.get("ended").isNull()).isFalse();

        HttpResponse<String> again = post("/api/runs/" + slow + "/cancel", "application/json", "");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("cancelled");
        assertThat(f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/" + slow)).DELETE()).statusCode())
                .isEqualTo(200);
        assertThat(post("/api/runs/nope/cancel", "application/json", "").statusCode()).isEqualTo(404);
    }

    @Test
    void badDocumentsAreRefusedWithEveryProblemInPlaceAndNothingIsQueued() throws Exception {
        long before = f.store.count();
        JsonNode syntax = problems(post("/api/runs", "application/yaml", "name: x\nprovider: [a\n"), 400);
        assertThat(syntax.get(0).get("message").asText()).startsWith("YAML syntax error");
        assertThat(syntax.get(0).get("line").asInt()).isPositive();

        String twoProblems = quickYaml("bad").replace("max_tokens: 8", "max_tokens: lots")
                .replace("type: chat", "type: chatty");
        JsonNode two = problems(post("/api/runs", "application/yaml", twoProblems), 400);
        assertThat(two).hasSize(2);
        assertThat(two.get(0).get("path").asText()).isEqualTo("/generation/max_tokens");
        assertThat(two.get(0).get("line").asInt()).isEqualTo(lineOf(twoProblems, "max_tokens: lots"));
        assertThat(two.get(1).get("path").asText()).isEqualTo("/scenarios/0/type");
        assertThat(two.get(1).get("line").asInt()).isEqualTo(lineOf(twoProblems, "type: chatty"));

        JsonNode literal = problems(post("/api/runs", "application/yaml",
                quickYaml("k").replace("api_key_env: TEST_KEY", "api_key: " + WebFixture.API_KEY)), 400);
        assertThat(literal.get(0).get("path").asText()).isEqualTo("/provider/api_key");
        assertThat(literal.get(0).get("message").asText()).contains("api_key_env");
        assertThat(literal.toString()).doesNotContain(WebFixture.API_KEY);

        JsonNode unset = problems(post("/api/runs", "application/yaml",
                quickYaml("u").replace("TEST_KEY", "NOT_SET_ANYWHERE_API_KEY")), 400);
        assertThat(unset.get(0).get("message").asText()).contains("NOT_SET_ANYWHERE_API_KEY").contains("not set");

        String header = quickYaml("h").replace("  api_key_env: TEST_KEY\n",
                "  headers:\n    Authorization: Bearer " + WebFixture.API_KEY + "\n");
        JsonNode cred = problems(post("/api/runs", "application/yaml", header), 400);
        assertThat(cred.get(0).get("path").asText()).isEqualTo("/provider/headers/Authorization");
        assertThat(cred.get(0).get("line").asInt()).isEqualTo(lineOf(header, "Authorization:"));
        assertThat(cred.toString()).doesNotContain(WebFixture.API_KEY);

        JsonNode userInfo = problems(post("/api/runs", "application/yaml",
                quickYaml("i").replace("http://", "http://user:pw@")), 400);
        assertThat(userInfo.get(0).get("path").asText()).isEqualTo("/provider/base_url");
        assertThat(userInfo.toString()).doesNotContain("user:pw");

        String secondBad = "{\"name\":\"p\",\"providers\":[{\"name\":\"a\",\"base_url\":\"sim\",\"model\":\"m\"},"
                + "{\"name\":\"b\",\"base_url\":\"http://u:pw@127.0.0.1:1/v1\",\"model\":\"m\"}],"
                + "\"scenarios\":[{\"name\":\"s\",\"type\":\"chat\",\"prompt\":\"hi\"}]}";
        JsonNode providers = problems(post("/api/runs", "application/json", secondBad), 400);
        assertThat(providers.get(0).get("path").asText()).isEqualTo("/providers/1/base_url");
        assertThat(providers.get(0).has("line")).isFalse();

        String scenarios = "\"scenarios\":[{\"name\":\"s\",\"type\":\"chat\",\"prompt\":\"hi\"}]";
        JsonNode seed = problems(post("/api/runs", "application/json", "{" + scenarios + ", \"seed\": \"x\"}"), 400);
        assertThat(seed.get(0).get("path").asText()).isEqualTo("/seed");
        JsonNode missing = problems(post("/api/runs", "application/json", "{" + scenarios + "}"), 400);
        assertThat(missing.get(0).get("path").asText()).isEmpty();
        assertThat(missing.get(0).get("message").asText()).contains("'provider'");

        JsonNode badJson = problems(post("/api/runs", "application/json", "{\"name\": "), 400);
        assertThat(badJson.get(0).get("message").asText()).startsWith("JSON syntax error (line 1");
        assertThat(problems(post("/api/runs", "application/json", "  "), 400).get(0).get("message").asText())
                .isEqualTo("the document is empty");

        HttpResponse<String> type = post("/api/runs", "text/plain", "name: x");
        assertThat(type.statusCode()).isEqualTo(415);
        assertThat(JSON.readTree(type.body()).get("error").asText()).contains("application/yaml");
        HttpResponse<String> big = post("/api/runs", "application/yaml", "#" + "x".repeat(1 << 20));
        assertThat(big.statusCode()).isEqualTo(413);

        assertThat(f.store.count()).as("nothing was queued").isEqualTo(before);
        JsonNode valid = JSON.readTree(post("/api/scenarios/validate", "application/yaml", quickYaml("v")).body());
        assertThat(valid.get("valid").asBoolean()).isTrue();
        assertThat(valid.get("levels").toString()).isEqualTo("[1,2]");
        assertThat(f.store.count()).isEqualTo(before);
    }

    @Test
    void testConnectionUsesTheRealClientAndSaysWhatFailed() throws Exception {
        JsonNode ok = JSON.readTree(post("/api/connection-test", "application/yaml", quickYaml("t")).body());
        assertThat(ok.get("ok").asBoolean()).as(ok.toString()).isTrue();
        assertThat(ok.get("message").asText()).contains("answered model m");
        JsonNode sim = JSON.readTree(post("/api/connection-test", "application/yaml", SLOW_YAML).body());
        assertThat(sim.get("ok").asBoolean()).as(sim.toString()).isTrue();
        assertThat(sim.get("message").asText()).contains("embedded simulator");

        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        JsonNode refused = JSON.readTree(post("/api/connection-test", "application/yaml",
                quickYaml("r").replace(f.sim.baseUrl(), "http://127.0.0.1:" + closed)).body());
        assertThat(refused.get("ok").asBoolean()).isFalse();
        assertThat(refused.get("message").asText()).contains("connection test to http://127.0.0.1:" + closed)
                .contains("refused").doesNotContain("--"); // a page has no command-line flags
        // https to the plain-HTTP simulator: a TLS failure, its way out in the document's words, not the flags'
        JsonNode tls = JSON.readTree(post("/api/connection-test", "application/yaml",
                quickYaml("s").replace(f.sim.baseUrl(), f.sim.baseUrl().replace("http://", "https://"))).body());
        assertThat(tls.get("ok").asBoolean()).isFalse();
        assertThat(tls.get("message").asText()).contains("tls_error").contains("ca_cert in the provider's tls")
                .doesNotContain("--");
    }

    @Test
    void runsLeftQueuedByAServiceThatIsGoneRunWhenTheNextOneStarts() throws Exception {
        io.unibench.store.Owner me = io.unibench.store.Owner.current();
        io.unibench.store.Owner gone = new io.unibench.store.Owner(me.host(), Long.MAX_VALUE - 1, 1);
        com.fasterxml.jackson.databind.node.ObjectNode doc = (com.fasterxml.jackson.databind.node.ObjectNode)
                new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(quickYaml("left"));
        String id = f.store.createRun(new io.unibench.store.RunStart("left", List.of(), "m", "x", doc, java.util.Map.of()),
                gone, System.currentTimeMillis(), io.unibench.store.RunRow.QUEUED);
        java.io.StringWriter log = new java.io.StringWriter();
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(f.location);
             WebServer next = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, f.location,
                     new RunService(new io.unibench.cli.ScenarioLauncher(WebFixture.ENV, dir.resolve("next"),
                             new java.io.PrintWriter(log, true)), 1, WebFixture.ENV, WebFixture.KEYS, RunLimits.DEFAULTS), "test",
                     new java.io.PrintWriter(log, true))) {
            HttpResponse<Stream<String>> r = f.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + next.port() + "/api/runs/" + id + "/events")).timeout(Duration.ofSeconds(120)).GET().build(),
                    HttpResponse.BodyHandlers.ofLines());
            List<String> lines = r.body().toList();
            assertThat(lines).contains("event: run_finished");
            assertThat(lines.getLast().isEmpty() ? lines.get(lines.size() - 2) : lines.getLast()).contains("\"run_status\":\"finished\"");
        }
        assertThat(f.store.run(id).row().status()).isEqualTo("finished");
        assertThat(f.store.run(id).row().requestCount()).isEqualTo(12);
    }

    private static JsonNode problems(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("error").asText()).contains("problem");
        return body.get("problems");
    }

    private static int lineOf(String text, String needle) {
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) if (lines[i].contains(needle)) return i + 1;
        throw new AssertionError(needle);
    }
}
