package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The service's defences over plain HTTP, each as the attack it stops (the browser's own versions are in
 * {@link CrossSiteBrowserTest}): cross-site writes, rebound host names, framing, documents that name a variable of
 * the service's own as their key, and runs too large for the machine.
 */
class WebSecurityTest extends WebFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String doc(String name, String keyEnv, String concurrency) {
        return """
                name: %s
                provider:
                  name: local
                  base_url: %s/v1
                  model: m
                  api_key_env: %s
                concurrency: %s
                scenarios:
                  - {name: qa, type: chat, prompt: hi}
                """.formatted(name, f.sim.baseUrl(), keyEnv, concurrency);
    }

    private static HttpResponse<String> post(String path, String type, String body, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(f.base() + path)).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return f.send(b);
    }

    private static String scheduleBody(String name, String document) throws Exception {
        return JSON.writeValueAsString(Map.of("name", name, "every", "1h", "document", document));
    }

    @Test
    void aCrossSiteWriteIs403InOneLineAndChangesNothing() throws Exception {
        long runs = f.store.count();
        String other = "http://127.0.0.1:1";
        String body = scheduleBody("xs", doc("xs", "TEST_KEY", "{levels: [1], requests_per_level: 1}"));
        for (Map<String, String> h : List.of(Map.of("Origin", other), Map.of("Referer", other + "/attack.html"),
                Map.of("Origin", "null"))) {
            HttpResponse<String> r = post("/api/schedules", "text/plain", body, h);
            assertThat(r.statusCode()).as(h.toString()).isEqualTo(403);
            assertThat(r.body()).as(h.toString()).contains("cross-site request refused").doesNotContain("\n");
            HttpResponse<String> run = post("/api/runs", "application/yaml", doc("xr", "TEST_KEY",
                    "{levels: [1], requests_per_level: 1}"), h);
            assertThat(run.statusCode()).as(h.toString()).isEqualTo(403);
            HttpResponse<String> del = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/"
                    + f.runIds.get(0))).header(h.keySet().iterator().next(), h.values().iterator().next()).DELETE());
            assertThat(del.statusCode()).as(h.toString()).isEqualTo(403);
        }
        assertThat(f.get("/api/schedules").body()).doesNotContain("\"xs\"");
        assertThat(f.store.count()).isEqualTo(runs);
        // the service's own origin passes, and so does a client that is no browser (no Origin, no cookie)
        String valid = doc("ok", "TEST_KEY", "{levels: [1], requests_per_level: 1}");
        assertThat(post("/api/scenarios/validate", "application/yaml", valid, Map.of("Origin", f.base())).statusCode())
                .isEqualTo(200);
        assertThat(post("/api/scenarios/validate", "application/yaml", valid, Map.of()).statusCode()).isEqualTo(200);
    }

    @Test
    void aForeignHostNameIs421AndPagesMayNotBeFramed() throws Exception {
        assertThat(rawStatus("rebind.example:" + f.server.port())).startsWith("HTTP/1.1 421");
        assertThat(rawStatus("localhost:" + f.server.port())).startsWith("HTTP/1.1 200");
        assertThat(rawStatus("[::1]:" + f.server.port())).startsWith("HTTP/1.1 200");
        HttpResponse<String> home = f.get("/");
        assertThat(home.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(home.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("frame-ancestors 'none'").contains("script-src 'self'").doesNotContain("unsafe-inline");
        assertThat(home.body()).doesNotContain("<script>").doesNotContain("style=\"");
        HttpResponse<String> report = f.get("/api/runs/" + f.runIds.get(0) + "/report.html");
        assertThat(report.headers().firstValue("Content-Security-Policy").orElseThrow()).startsWith("sandbox");
    }

    /** The status line of GET / sent with this Host header (HttpClient may not set Host). */
    private static String rawStatus(String host) throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\r' && line.length() < 200; c = in.read()) line.append((char) c);
            return line.toString();
        }
    }

    @Test
    void aDocumentMaySendOnlyAnAllowedKeyNeverTheServicesOwnSettings() throws Exception {
        long runs = f.store.count();
        for (String variable : List.of("UNIBENCH_DB_PASSWORD", "PATH")) {
            String d = doc("steal", variable, "{levels: [1], requests_per_level: 1}");
            HttpResponse<String> r = post("/api/runs", "application/yaml", d, Map.of());
            assertThat(r.statusCode()).as(variable).isEqualTo(400);
            JsonNode p = JSON.readTree(r.body()).path("problems").get(0);
            assertThat(p.path("path").asText()).isEqualTo("/provider/api_key_env");
            assertThat(p.path("line").asInt()).isEqualTo(6);
            assertThat(p.path("message").asText()).contains(variable).contains("--allow-key-env");
            HttpResponse<String> s = post("/api/schedules", "application/json", scheduleBody("steal", d), Map.of());
            assertThat(s.statusCode()).as(variable).isEqualTo(400);
            assertThat(s.body()).contains("/provider/api_key_env").doesNotContain(WebFixture.DB_PASSWORD);
        }
        assertThat(f.store.count()).isEqualTo(runs);
        assertThat(f.get("/api/schedules").body()).doesNotContain("steal");
        // a key in a header whose name says nothing is refused too (it would be stored and shown in clear)
        String custom = doc("custom", "TEST_KEY", "{levels: [1], requests_per_level: 1}").replace("  model: m\n",
                "  model: m\n  headers: {X-Custom: " + WebFixture.CUSTOM_HEADER_KEY + "}\n");
        HttpResponse<String> r = post("/api/runs", "application/yaml", custom, Map.of());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("/provider/headers/X-Custom").doesNotContain(WebFixture.CUSTOM_HEADER_KEY);
    }

    @Test
    void aRunSpecIsHeldToTheSameKeysAndLimitsAsADocument() throws Exception {
        long runs = f.store.count();
        var good = f.dryRunSpec("spec-attack", "--parallel", "1", "--number", "1");
        // the attack: a spec naming the service's own token as its key, as JSON and as YAML
        var steal = good.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) steal.get("targets").get(0).get("api_key"))
                .put("variable", "UNIBENCH_TOKEN");
        for (var sent : List.of(Map.entry("application/json", JSON.writeValueAsString(steal)),
                Map.entry("application/yaml", new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                        .writeValueAsString(steal)))) {
            HttpResponse<String> r = post("/api/runs", sent.getKey(), sent.getValue(), Map.of());
            assertThat(r.statusCode()).as(sent.getKey()).isEqualTo(400);
            JsonNode p = JSON.readTree(r.body()).path("problems").get(0);
            assertThat(p.path("path").asText()).isEqualTo("/targets/0/api_key/variable");
            assertThat(p.path("message").asText()).contains("UNIBENCH_TOKEN").contains("--allow-key-env");
            assertThat(JSON.readTree(r.body()).path("error").asText()).contains("run spec");
        }
        assertThat(refused(good, "/targets/0/api_key", n -> n.putObject("api_key").put("value", WebFixture.API_KEY)))
                .contains("never the key itself").doesNotContain(WebFixture.API_KEY);
        assertThat(refused(good, "/targets/0/headers/X-Custom", n -> n.putObject("headers")
                .put("X-Custom", WebFixture.CUSTOM_HEADER_KEY))).doesNotContain(WebFixture.CUSTOM_HEADER_KEY);
        assertThat(refused(good, "/points/0/plan/parallel", n -> { }, "parallel", 100_000_000))
                .contains("--max-run-concurrency");
        assertThat(refused(good, "/points", n -> { }, "number", 100_000_000)).contains("--max-run-requests");
        assertThat(refused(good, "/points/0/plan/number", n -> { }, "number", 0)).contains("must be ≥ 1");
        assertThat(f.store.count()).isEqualTo(runs);
    }

    /**
     * A spec of two targets runs (WebRunsTest): every rule holds for its second target, workload and point too, each
     * refusal at the second's pointer, and the run limits count both targets' requests.
     */
    @Test
    void aSpecsSecondTargetIsHeldToTheServicesRulesAtItsPointer() throws Exception {
        long runs = f.store.count();
        var two = WebRunsTest.twoTargetSpec("spec-two-attack");
        java.util.function.BiFunction<java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode>,
                String, String> refusedAt = (change, path) -> {
                    try {
                        var bad = two.deepCopy();
                        change.accept(bad);
                        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(bad),
                                Map.of());
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
                        assertThat(JSON.readTree(r.body()).path("problems").get(0).path("path").asText()).as(r.body())
                                .isEqualTo(path);
                        return r.body();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                };
        java.util.function.Function<com.fasterxml.jackson.databind.node.ObjectNode,
                com.fasterxml.jackson.databind.node.ObjectNode> second = s -> (com.fasterxml.jackson.databind.node.ObjectNode)
                s.get("targets").get(1);
        assertThat(refusedAt.apply(s -> ((com.fasterxml.jackson.databind.node.ObjectNode) second.apply(s).get("api_key"))
                .put("variable", "UNIBENCH_TOKEN"), "/targets/1/api_key/variable")).contains("--allow-key-env");
        assertThat(refusedAt.apply(s -> ((com.fasterxml.jackson.databind.node.ObjectNode) second.apply(s).get("api_key"))
                .put("variable", "OTHER_API_KEY"), "/targets/1/api_key/variable")).contains("is not set");
        assertThat(refusedAt.apply(s -> second.apply(s).putObject("api_key").put("value", WebFixture.API_KEY),
                "/targets/1/api_key")).doesNotContain(WebFixture.API_KEY);
        assertThat(refusedAt.apply(s -> second.apply(s).put("url", f.sim.baseUrl().replace("://", "://u:"
                + WebFixture.DB_PASSWORD + "@") + "/v1/chat/completions"), "/targets/1/url"))
                .contains("credential in the URL").doesNotContain(WebFixture.DB_PASSWORD);
        assertThat(refusedAt.apply(s -> second.apply(s).putObject("headers").put("X-Custom",
                WebFixture.CUSTOM_HEADER_KEY), "/targets/1/headers/X-Custom")).doesNotContain(WebFixture.CUSTOM_HEADER_KEY);
        assertThat(refusedAt.apply(s -> ((com.fasterxml.jackson.databind.node.ObjectNode) s.get("workloads").get(1))
                .put("prompt", "@/etc/passwd"), "/workloads/1/prompt")).contains("--data-dir");
        // the second target's point over the concurrency limit; both targets' requests over the run's limit
        assertThat(refusedAt.apply(s -> ((com.fasterxml.jackson.databind.node.ObjectNode) s.at("/points/2/plan"))
                .put("parallel", 100_000_000), "/points/2/plan/parallel")).contains("--max-run-concurrency");
        long half = RunLimits.DEFAULT_REQUESTS / 2;
        assertThat(refusedAt.apply(s -> {
            ((com.fasterxml.jackson.databind.node.ObjectNode) s.at("/points/1/plan")).put("number", half);
            ((com.fasterxml.jackson.databind.node.ObjectNode) s.at("/points/2/plan")).put("number", half);
        }, "/points")).contains("--max-run-requests");
        assertThat(f.store.count()).isEqualTo(runs);
    }

    /** The message of the first problem of {@code spec} changed by {@code target} (its first target): at {@code path}. */
    private static String refused(com.fasterxml.jackson.databind.node.ObjectNode spec, String path,
                                  java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> target)
            throws Exception {
        return refused(spec, path, target, null, 0);
    }

    private static String refused(com.fasterxml.jackson.databind.node.ObjectNode spec, String path,
                                  java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> target,
                                  String planKey, int value) throws Exception {
        var bad = spec.deepCopy();
        target.accept((com.fasterxml.jackson.databind.node.ObjectNode) bad.get("targets").get(0));
        if (planKey != null) ((com.fasterxml.jackson.databind.node.ObjectNode) bad.get("points").get(0).get("plan"))
                .put(planKey, value);
        HttpResponse<String> r = post("/api/runs", "application/json", JSON.writeValueAsString(bad), Map.of());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode p = JSON.readTree(r.body()).path("problems").get(0);
        assertThat(p.path("path").asText()).as(r.body()).isEqualTo(path);
        return r.body();
    }

    @Test
    void theAllowListNeverHoldsTheServicesOwnSettings() {
        KeyAllowList d = KeyAllowList.defaults();
        assertThat(d.allows("OPENAI_API_KEY")).isTrue();
        assertThat(d.allows("UNIBENCH_API_KEY")).isFalse();
        assertThat(d.allows("UNIBENCH_TOKEN")).isFalse();
        assertThat(d.allows("PATH")).isFalse();
        assertThat(KeyAllowList.parse("*", "x", Set.of("MY_TOKEN")).allows("MY_TOKEN")).isFalse();
        assertThat(KeyAllowList.parse("*", "x", Set.of()).allows("UNIBENCH_DB_PASSWORD")).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeyAllowList.parse("UNIBENCH_TOKEN", "--allow-key-env",
                Set.of())).isInstanceOf(io.unibench.BadInputException.class).hasMessageContaining("--allow-key-env");
    }

    @Test
    void aRunTooLargeForTheMachineIsRefusedWithItsPointer() throws Exception {
        long runs = f.store.count();
        HttpResponse<String> huge = post("/api/runs", "application/yaml",
                doc("huge", "TEST_KEY", "{levels: [1, 1000000000], requests_per_level: 1}"), Map.of());
        assertThat(huge.statusCode()).isEqualTo(400);
        JsonNode p = JSON.readTree(huge.body()).path("problems").get(0);
        assertThat(p.path("path").asText()).isEqualTo("/concurrency/levels/1");
        assertThat(p.path("message").asText()).contains("--max-run-concurrency");
        HttpResponse<String> many = post("/api/runs", "application/yaml",
                doc("many", "TEST_KEY", "{levels: [1], requests_per_level: 100000000}"), Map.of());
        assertThat(many.statusCode()).isEqualTo(400);
        assertThat(many.body()).contains("/concurrency/requests_per_level").contains("--max-run-requests");
        HttpResponse<String> rate = post("/api/runs", "application/yaml", doc("rate", "TEST_KEY",
                "{levels: [1], requests_per_level: 1}").replace("concurrency: {levels: [1], requests_per_level: 1}",
                "request_rate: {levels: [5], max_concurrency: 100000000, requests_per_level: 1}"), Map.of());
        assertThat(rate.statusCode()).as(rate.body()).isEqualTo(400);
        assertThat(rate.body()).contains("/request_rate/max_concurrency");
        HttpResponse<String> longHold = post("/api/runs", "application/yaml",
                doc("long", "TEST_KEY", "{levels: [1, 2], ramp_interval_sec: 100000}"), Map.of());
        assertThat(longHold.statusCode()).as(longHold.body()).isEqualTo(400);
        assertThat(longHold.body()).contains("/concurrency/ramp_interval_sec").contains("--max-run-duration");
        assertThat(f.store.count()).isEqualTo(runs);
    }
}
