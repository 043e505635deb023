package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * A scenario document's request_rate, ramp_up and sla_auto_tune POSTed to the service: the problems located by JSON
 * pointer (and line, for YAML) as {@code run --config} locates them by key, a valid rate document validated with its
 * rates and run to the end through the real pipeline, its levels open-loop.
 */
class WebLoadsTest extends WebFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String doc(String load) {
        return """
                name: loads
                provider:
                  name: local
                  base_url: %s/v1
                  model: m
                  api_key_env: TEST_KEY
                generation:
                  max_tokens: 4
                %s
                scenarios:
                  - name: qa
                    type: chat
                    prompt: Say hello.
                """.formatted(f.sim.baseUrl(), load);
    }

    private static HttpResponse<String> post(String path, String type, String body) throws Exception {
        return f.send(HttpRequest.newBuilder(URI.create(f.base() + path)).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static JsonNode firstProblem(String type, String body) throws Exception {
        HttpResponse<String> r = post("/api/runs", type, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        return JSON.readTree(r.body()).get("problems").get(0);
    }

    private static int lineOf(String text, String needle) {
        List<String> lines = List.of(text.split("\n"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(needle)) return i + 1;
        throw new AssertionError(needle);
    }

    @Test
    void badLoadValuesAreLocatedByJsonPointerAndNothingIsQueued() throws Exception {
        long before = f.store.count();
        String[][] cases = {
                {"request_rate: {levels: [2], burstiness: -1}", "/request_rate/burstiness", "burstiness: -1"},
                {"request_rate: {ramp_up: {strategy: up, start_rps: 1, end_rps: 2}}", "/request_rate/ramp_up/strategy",
                        "ramp_up"},
                {"concurrency: 2\nrequest_rate: 4", "/request_rate", "request_rate: 4"},
                {"sla_auto_tune:\n  params: {p98_latency: \"<=1\"}", "/sla_auto_tune/params", "params:"},
                {"sla_auto_tune:\n  params:\n    avg_ttft: soon", "/sla_auto_tune/params/avg_ttft", "avg_ttft: soon"},
                {"sla_auto_tune:\n  params: {rps: max}\n  upper_bound: 0", "/sla_auto_tune/upper_bound", "upper_bound: 0"}};
        for (String[] c : cases) {
            String yaml = doc(c[0]);
            JsonNode p = firstProblem("application/yaml", yaml);
            assertThat(p.get("path").asText()).as(c[0]).isEqualTo(c[1]);
            assertThat(p.get("line").asInt()).as(c[0]).isEqualTo(lineOf(yaml, c[2]));
            // the same document as JSON: the same pointer, no line
            String json = JSON.writeValueAsString(new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                    .readTree(yaml));
            JsonNode pj = firstProblem("application/json", json);
            assertThat(pj.get("path").asText()).as(c[0]).isEqualTo(c[1]);
            assertThat(pj.has("line")).isFalse();
        }
        assertThat(f.store.count()).as("nothing queued").isEqualTo(before);
    }

    @Test
    void aRateDocumentValidatesAndRunsItsOpenLoopLevels() throws Exception {
        String yaml = doc("request_rate: {levels: [50, 100], burstiness: 0.5, requests_per_level: 10}");
        HttpResponse<String> v = post("/api/scenarios/validate", "application/yaml", yaml);
        assertThat(v.statusCode()).as(v.body()).isEqualTo(200);
        assertThat(JSON.readTree(v.body()).get("request_rate").toString()).isEqualTo("[50.0,100.0]");

        HttpResponse<String> created = post("/api/runs", "application/yaml", yaml);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = JSON.readTree(created.body()).get("id").asText();
        List<WebRunsTest.Event> seen = WebRunsTest.until(WebRunsTest.events(f, id), "run_finished");
        assertThat(seen.getLast().data().get("status").asText()).isEqualTo("finished");
        List<JsonNode> started = seen.stream().filter(e -> e.name().equals("point_started")).map(WebRunsTest.Event::data)
                .toList();
        assertThat(started).hasSize(2);
        assertThat(started.get(0).get("label").asText()).isEqualTo("local/qa/rate_50");
        assertThat(started.get(1).get("label").asText()).isEqualTo("local/qa/rate_100");
        assertThat(started.get(1).at("/plan/concurrency").asInt()).as("open loop").isEqualTo(-1);
        assertThat(started.get(1).at("/plan/rate").asDouble()).isEqualTo(100.0);
    }
}
