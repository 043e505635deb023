package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;
import io.unibench.cli.Main;
import io.unibench.metrics.MetricDelta;
import io.unibench.store.RunComparison;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The REST API over real HTTP on an ephemeral loopback port, over runs recorded by the real CLI. */
class WebApiTest extends WebFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        return JSON.readTree(r.body());
    }

    @Test
    void listIsNewestFirstWithHeadlineFiguresAndPages() throws Exception {
        HttpResponse<String> r = f.get("/api/runs");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode runs = json(r).get("runs");
        assertThat(runs).hasSize(2);
        assertThat(runs.get(0).get("id").asText()).isEqualTo(f.runIds.get(1));
        JsonNode first = runs.get(0);
        assertThat(first.get("status").asText()).isEqualTo("finished");
        assertThat(first.get("tags").get(0).asText()).isEqualTo("web");
        assertThat(first.get("request_count").asLong()).isEqualTo(28);
        JsonNode h = first.get("headline");
        assertThat(h.get("success_percent").asDouble()).isEqualTo(100.0);
        assertThat(h.get("ttft_p95_ms").asDouble()).isPositive();
        assertThat(h.get("latency_p95_s").asDouble()).isPositive();
        assertThat(h.get("output_tok_s").asDouble()).isPositive();
        assertThat(json(r).get("next").isNull()).isTrue();

        JsonNode page1 = json(f.get("/api/runs?limit=1"));
        assertThat(page1.get("runs")).hasSize(1);
        String next = page1.get("next").asText();
        JsonNode page2 = json(f.get("/api/runs?limit=1&cursor=" + next));
        assertThat(page2.get("runs").get(0).get("id").asText()).isEqualTo(f.runIds.get(0));
        assertThat(page2.get("next").isNull()).isTrue();

        assertThat(json(f.get("/api/runs?name=first")).get("runs")).hasSize(1);
        assertThat(json(f.get("/api/runs?tag=web&status=finished")).get("runs")).hasSize(2);
        assertThat(json(f.get("/api/runs?tag=other")).get("runs")).isEmpty();
    }

    @Test
    void badQueriesAreFourHundredsWithTheReason() throws Exception {
        for (String q : List.of("status=done", "limit=0", "limit=x", "since=yesterday", "cursor=%21%21")) {
            HttpResponse<String> r = f.get("/api/runs?" + q);
            assertThat(r.statusCode()).as(q).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(q).isNotBlank();
        }
        assertThat(f.get("/api/compare?a=" + f.runIds.get(0)).statusCode()).isEqualTo(400);
        assertThat(f.get("/api/runs/" + f.runIds.get(0) + "/requests?format=xml").statusCode()).isEqualTo(400);
    }

    @Test
    void detailHasStatusMaskedConfigEnvironmentAndEveryPointsTables() throws Exception {
        JsonNode d = json(f.get("/api/runs/" + f.runIds.get(0)));
        assertThat(d.get("status").asText()).isEqualTo("finished");
        assertThat(d.get("config").get("api_key").asText()).startsWith("sk-***");
        assertThat(d.get("environment").get("model").asText()).isEqualTo("m");
        JsonNode points = d.get("points");
        assertThat(points).hasSize(2);
        for (JsonNode p : points) {
            assertThat(p.get("summary").get("Total Requests").asInt()).isIn(12, 16);
            assertThat(p.get("percentiles")).isNotEmpty();
            assertThat(p.get("phases").get("rows")).isNotEmpty();
            assertThat(p.get("timeline").get("points")).isNotEmpty();
        }
    }

    @Test
    void unknownIdsAndRoutesAreJsonFourOhFours() throws Exception {
        for (String path : List.of("/api/runs/nope", "/api/runs/nope/requests", "/api/runs/nope/report.html",
                "/api/compare?a=nope&b=" + f.runIds.get(0), "/api/nothing-here")) {
            HttpResponse<String> r = f.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(json(r).get("error").asText()).as(path).isNotBlank();
        }
    }

    @Test
    void requestsAreExportedAsCsvAndJsonlOneLinePerRequest() throws Exception {
        String id = f.runIds.get(0);
        HttpResponse<String> csv = f.get("/api/runs/" + id + "/requests?format=csv");
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
        String[] lines = csv.body().split("\r\n");
        assertThat(lines).hasSize(1 + 28);
        assertThat(lines[0]).startsWith("run_id,point,label,");
        HttpResponse<String> jsonl = f.get("/api/runs/" + id + "/requests");
        List<String> rows = jsonl.body().lines().filter(l -> !l.isBlank()).toList();
        assertThat(rows).hasSize(28);
        Set<String> points = new HashSet<>();
        for (String row : rows) points.add(JSON.readTree(row).get("label").asText());
        assertThat(points).hasSize(2);
    }

    @Test
    void compareReturnsWhatRunsCompareComputes() throws Exception {
        String a = f.runIds.get(0);
        String b = f.runIds.get(1);
        JsonNode c = json(f.get("/api/compare?a=" + a + "&b=" + b));
        RunComparison.Result expected = RunComparison.compare(f.store, f.store.run(a), f.store.run(b));
        assertThat(c.get("a").asText()).isEqualTo(a);
        JsonNode rows = c.get("rows");
        assertThat(rows).hasSize(expected.rows().size());
        for (int i = 0; i < rows.size(); i++) {
            MetricDelta e = expected.rows().get(i);
            JsonNode row = rows.get(i);
            assertThat(row.get("metric").asText()).isEqualTo(e.metric());
            assertThat(row.get("verdict").asText()).isEqualTo(e.verdict());
            if (e.delta() != null) assertThat(row.get("delta").asDouble()).isEqualTo(e.delta());
        }
        // two runs of the same flags against the simulator, 12 and 16 requests: statistics, never a bare label
        assertThat(rows.findValuesAsText("verdict")).containsAnyOf("same", "unclear", "too few requests")
                .isSubsetOf("", "better", "worse", "same", "unclear", "too few requests");
        assertThat(c.get("baseline").asText()).isEqualTo(a);
        assertThat(c.get("comparisons").get(0).get("levels")).extracting(JsonNode::asText)
                .containsExactly("parallel_2", "parallel_4");
        // a run against itself is a bad request, named
        HttpResponse<String> self = f.get("/api/compare?a=" + a + "&b=" + a);
        assertThat(self.statusCode()).isEqualTo(400);
        assertThat(json(self).get("error").asText()).contains("named twice");
    }

    @Test
    void deleteRemovesTheRunThenItIsNotFound() throws Exception {
        WebFixture g = new WebFixture(dir.resolve("delete"), null);
        try {
            String id = g.runIds.get(0);
            HttpResponse<String> r = g.send(HttpRequest.newBuilder(URI.create(g.base() + "/api/runs/" + id)).DELETE());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(json(r).get("deleted")).extracting(JsonNode::asText).containsExactly(id);
            assertThat(json(r).get("released_group").isNull()).isTrue();
            assertThat(g.get("/api/runs/" + id).statusCode()).isEqualTo(404);
            assertThat(json(g.get("/api/runs")).get("runs")).hasSize(1);
        } finally {
            g.close();
        }
    }

    @Test
    void openApiDocumentsEveryRouteAndEveryDocumentedPathIsServed() throws Exception {
        JsonNode doc = json(f.get("/api/openapi.json"));
        assertThat(doc.get("openapi").asText()).startsWith("3.");
        Set<String> documented = new HashSet<>();
        doc.get("paths").properties().forEach(p -> p.getValue().fieldNames()
                .forEachRemaining(m -> documented.add(m + " " + p.getKey())));
        Set<String> registered = new HashSet<>();
        for (Route r : f.server.routes()) {
            if (r.path().startsWith("/api/") || r.path().equals("/healthz") || r.path().equals("/metrics")) {
                registered.add(r.method() + " " + r.path());
            }
        }
        assertThat(documented).isEqualTo(registered);
        JsonNode create = doc.get("paths").get("/api/runs").get("post");
        assertThat(create.get("responses").has("201")).isTrue();
        assertThat(create.get("requestBody").get("content").has("application/yaml")).isTrue();
        assertThat(doc.get("paths").get("/api/runs/{id}/cancel").get("post").get("responses").has("202")).isTrue();
        assertThat(doc.get("paths").get("/api/runs/{id}/events").get("get").get("responses").get("200").get("content")
                .has("text/event-stream")).isTrue();
        // every documented GET answers on its path (a run id for {id}); none is Javalin's "no such endpoint"
        for (String route : documented) {
            if (!route.startsWith("get ")) continue;
            String path = route.substring(4).replace("{id}", f.runIds.get(0));
            if (path.equals("/api/compare")) path += "?a=" + f.runIds.get(0) + "&b=" + f.runIds.get(1);
            if (path.equals("/api/cron")) path += "?expr=0+2+*+*+*";
            // a schedule's routes need one with rounds: cli.ScheduleEndToEndTest calls them over its schedule
            if (path.contains("{name}") || path.equals("/api/trends")) continue;
            HttpResponse<String> r = f.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
        }
    }

    @Test
    void healthAndMetrics() throws Exception {
        assertThat(json(f.get("/healthz")).get("status").asText()).isEqualTo("ok");
        f.get("/api/runs");
        HttpResponse<String> m = f.get("/metrics");
        assertThat(m.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(m.body()).contains("unibench_http_requests_total{method=\"GET\",route=\"/api/runs\",status=\"200\"}")
                .contains("unibench_stored_runs 2").contains("unibench_jvm_heap_used_bytes");
    }

    @Test
    void bodiesOverTheLimitAreRefused() throws Exception {
        byte[] big = new byte[(int) WebServer.MAX_BODY_BYTES + 1024];
        java.util.Arrays.fill(big, (byte) 'a');
        HttpResponse<String> r = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofByteArray(big)));
        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void noSecretInAnyResponseOrPage() throws Exception {
        String a = f.runIds.get(0);
        String b = f.runIds.get(1);
        List<String> paths = new ArrayList<>(List.of("/", "/runs/" + a, "/compare?a=" + a + "&b=" + b, "/api/runs",
                "/api/runs/" + a, "/api/runs/" + a + "/requests", "/api/runs/" + a + "/requests?format=csv",
                "/api/runs/" + a + "/report.html", "/api/compare?a=" + a + "&b=" + b, "/api/openapi.json", "/metrics",
                "/static/app.js", "/login"));
        for (String path : paths) {
            HttpResponse<byte[]> r = f.http.send(HttpRequest.newBuilder(URI.create(f.base() + path)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            String all = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8) + r.headers().map();
            assertThat(all).as(path).doesNotContain(WebFixture.API_KEY).doesNotContain(WebFixture.COOKIE_SECRET)
                    .doesNotContain(WebFixture.API_KEY.substring(3, 20))
                    .doesNotContain(WebFixture.CUSTOM_HEADER_KEY.substring(8));
        }
    }

    @Test
    void bindingOffLoopbackWithoutATokenIsRefusedInOneLine() {
        assertThatThrownBy(() -> new WebConfig("0.0.0.0", 0, null)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("needs a token");
        // off loopback a guessable token is refused (a 3-character one was accepted); 32 characters or more pass
        assertThatThrownBy(() -> new WebConfig("0.0.0.0", 0, "abc")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("at least 32");
        String strong = "0123456789abcdef0123456789abcdef";
        assertThat(new WebConfig("0.0.0.0", 0, strong).token()).isEqualTo(strong);
        assertThat(new WebConfig("127.0.0.1", 0, "t").token()).isEqualTo("t");
        assertThat(new WebConfig("localhost", 0, null).token()).isNull();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(new String[] {"serve", "--host", "0.0.0.0", "--port", "0", "--token-env",
                "UNIBENCH_TEST_TOKEN_THAT_IS_NOT_SET", "--db", dir.resolve("x.db").toString()},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString().strip()).doesNotContain("\n").contains("--token-env");
    }
}
