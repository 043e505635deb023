package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.cli.Main;
import io.unibench.cli.ScenarioLauncher;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A store filled by real {@code unibench perf} runs against the embedded simulator on a loopback port (with an API
 * key and a Cookie header that must never be served back), and the service over it on an ephemeral port.
 */
final class WebFixture implements AutoCloseable {
    static final String API_KEY = "sk-test-secret-key-7f3a9c";
    static final String COOKIE_SECRET = "cookie-secret-b41d2e";
    /** A key in a header whose name says nothing ({@code X-Custom}): masked by its value. */
    static final String CUSTOM_HEADER_KEY = "sk-proj-custom5e6f7a8b9c";
    /** The service's own settings and a variable no provider key is in: never sent, whatever a document says. */
    static final String DB_PASSWORD = "db-password-e81f0c";
    /**
     * The service's environment: a document names TEST_KEY in api_key_env, never the key; a schedule's notify channel
     * names TEAM_HOOK_URL (a loopback URL nothing calls: no notifier runs in these tests).
     */
    static final java.util.Map<String, String> ENV = java.util.Map.of("TEST_KEY", API_KEY,
            "TEAM_HOOK_URL", "http://127.0.0.1:9/hook", "UNIBENCH_DB_PASSWORD", DB_PASSWORD, "PATH", "/usr/bin:/bin");
    /** The keys a run of the fixture's service may send: TEST_KEY and the default provider-key names. */
    static final KeyAllowList KEYS = KeyAllowList.parse("TEST_KEY,*_API_KEY", "test", java.util.Set.of());

    final SimServer sim;
    final StoreLocation location;
    final RunStore store;
    final WebServer server;
    final List<String> runIds = new ArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    /** The service's log: what it says about its runs (and must never say about their keys). */
    final StringWriter logText = new StringWriter();
    private final PrintWriter log = new PrintWriter(logText, true);
    private final String token;

    /** Two runs ("first": two points; "second": the same flags, so a repeat) and the service, with or without a token. */
    WebFixture(Path dir, String token) throws Exception {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1));
        location = StoreLocation.sqlite(dir.resolve("web.db"));
        for (String name : List.of("first", "second")) runIds.add(perf(dir, name));
        store = RunStore.open(location);
        this.token = token;
        server = WebServer.start(new WebConfig("127.0.0.1", 0, token), store, location,
                new RunService(new ScenarioLauncher(KEYS.filter(ENV), dir.resolve("service-outputs"), log), 1, ENV,
                        KEYS, RunLimits.DEFAULTS), "test", log);
    }

    /**
     * {@code perf --dry-run}'s spec of a small run against the fixture's simulator (files under {@code outputs}, which
     * the service replaces), its key named by reference: {@code TEST_KEY}.
     */
    com.fasterxml.jackson.databind.node.ObjectNode dryRunSpec(String name, String... flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("perf", "--dry-run", "--url", sim.baseUrl() + "/v1/chat/completions",
                "--model", "m", "--name", name, "--no-timestamp", "--sleep-interval", "0", "--max-tokens", "8",
                "--min-prompt-length", "8", "--max-prompt-length", "8", "--outputs-dir", "outputs"));
        args.addAll(List.of(flags));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        var spec = (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(out.toString());
        ((com.fasterxml.jackson.databind.node.ObjectNode) spec.get("targets").get(0)).putObject("api_key")
                .put("variable", "TEST_KEY");
        return spec;
    }

    private String perf(Path dir, String name) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(new String[] {"perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model", "m",
                "--api-key", API_KEY, "--headers", "Cookie=session=" + COOKIE_SECRET, "--headers",
                "X-Custom=" + CUSTOM_HEADER_KEY,
                "--outputs-dir", dir.resolve("outputs").toString(), "--no-timestamp", "--name", name,
                "--sleep-interval", "0", "--parallel", "2", "4", "--number", "12", "16", "--max-tokens", "8",
                "--min-prompt-length", "8", "--max-prompt-length", "8", "--tag", "web", "--db", location.jdbcUrl()},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        String e = err.toString();
        int at = e.indexOf("Run history: run ");
        assertThat(at).as(e).isNotNegative();
        return e.substring(at + "Run history: run ".length()).split(" ")[0];
    }

    String base() {
        return "http://127.0.0.1:" + server.port();
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).GET());
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws Exception {
        server.close();
        store.close();
        sim.close();
    }
}
