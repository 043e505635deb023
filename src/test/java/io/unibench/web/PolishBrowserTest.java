package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.Test;

/** Issue 29 §4, the first-run polish, in real headless Chromium: each item as it was seen in a screenshot. */
class PolishBrowserTest extends BrowserTestBase {
    /** A page of the given width, the service's content security policy enforced (no bypass). */
    static Page openStrict(String path, int width, int height) {
        Page page = browser().newPage(new Browser.NewPageOptions().setViewportSize(width, height));
        page.navigate(f.base() + path);
        return page;
    }

    /**
     * A failed run as a team's list holds them: a long name, model and URL without a place to break, several tags, a
     * long reason. Stored directly: it only has to be listed.
     */
    static String longRun() throws Exception {
        io.unibench.store.RunStart start = new io.unibench.store.RunStart(
                "provider-comparison-deepseek-vs-qwen/qwen-plus-latest-long-context", java.util.List.of("nightly",
                "team-platform", "cn-east-2", "regression"), "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4-long-context-preview",
                "https://dashscope-intl.aliyuncs.example.com/compatible-mode/v1/chat/completions",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(), java.util.Map.of());
        String id = f.store.createRun(start, io.unibench.store.Owner.current(), System.currentTimeMillis(), "running");
        f.store.endActive(id, "failed", "connection test failed: https://dashscope-intl.aliyuncs.example.com/compatible-"
                + "mode/v1/chat/completions: connection refused (is the server running and the URL right?)",
                System.currentTimeMillis());
        return id;
    }

    @Test
    void theRunsListFitsA1366PixelScreen() throws Exception {
        longRun();
        Page page = openStrict("/", 1366, 768);
        page.waitForSelector("table.runs tbody tr");
        Number scroll = (Number) page.evaluate("document.documentElement.scrollWidth");
        Number viewport = (Number) page.evaluate("window.innerWidth");
        shot(page, "runs-1366.png");
        assertThat(scroll.intValue()).isLessThanOrEqualTo(viewport.intValue());
    }

    @Test
    void theApiLinkOpensAReadableReferenceThatPassesThePolicy() throws Exception {
        Page page = openStrict("/", 1366, 900);
        java.util.List<String> console = new java.util.concurrent.CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> console.add(m.type() + ": " + m.text()));
        page.locator("header nav a", new Page.LocatorOptions().setHasText("API")).click();
        page.waitForSelector("h1:has-text('API reference')");
        assertThat(page.url()).endsWith("/api");
        assertThat(page.locator("table.api-index code").allTextContents()).contains("/api/runs", "/api/runs/{id}/events",
                "/api/openapi.json");
        // every documented operation has its entry: as many as the JSON document has
        var doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(f.get("/api/openapi.json").body());
        int operations = 0;
        for (var path : doc.get("paths")) operations += path.size();
        assertThat(page.locator("section.api-op").count()).isEqualTo(operations);
        assertThat(page.locator("#get-api-runs-id-events").textContent()).contains("text/event-stream");
        shot(page, "api-reference.png");
        assertThat(console).noneMatch(m -> m.contains("Content Security Policy"));
        assertThat(page.locator("link[rel=icon]").getAttribute("href")).isEqualTo("/static/favicon.svg");
    }

    @Test
    void theFaviconIsServedAsSvg() throws Exception {
        for (String path : java.util.List.of("/static/favicon.svg", "/favicon.ico")) {
            var r = f.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(path).startsWith("image/svg+xml");
            assertThat(r.body()).as(path).startsWith("<svg");
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(path).isPresent();
        }
    }

    /**
     * What the live page says before the first point (it said "waiting for the first point…" for 6–8 s), the stored
     * requests counting while the point runs (they read "0 stored" until the point's end), and the throughput chart
     * on two y axes (req/s read 0 beside tok/s on one). A run whose connection test hangs (a loopback socket that
     * accepts and never answers) holds the service's one run slot, so the simulator's run queued behind it is watched
     * from before its start: every phase it goes through reaches the page.
     */
    @Test
    void theLivePageSaysEachPhaseCountsStoredRequestsAndDrawsTwoAxes() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String blocker = WebRunsTest.create("""
                    name: silent
                    provider: {name: silent, base_url: "http://127.0.0.1:%d/v1", model: m, api_key_env: TEST_KEY}
                    concurrency: {levels: [1], requests_per_level: 1}
                    scenarios:
                      - {name: qa, type: chat, prompt: hi}
                    """.formatted(silent.getLocalPort()));
            Page a = open("/runs/" + blocker);
            a.waitForFunction("document.getElementById('live-state').textContent.includes('connection test')");
            assertThat(a.locator("#live-progress").textContent())
                    .isEqualTo("before the first point: connection test (silent)…");
            shot(a, "run-phase-connection-test.png");

            String sim = WebRunsTest.create("""
                    name: sim-live
                    provider: {name: local, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 2}}
                    concurrency: {levels: [2], ramp_interval_sec: 6}
                    generation: {max_tokens: 8}
                    scenarios:
                      - {name: qa, type: chat, prompt: hi}
                    """);
            Page b = open("/runs/" + sim);
            b.waitForFunction("document.getElementById('live-state').textContent.startsWith('queued')");
            assertThat(WebRunsTest.post("/api/runs/" + blocker + "/cancel", "application/json", "").statusCode())
                    .isEqualTo(202);
            b.waitForFunction("document.getElementById('live-state').textContent.startsWith('running: point 1 of 1')");
            assertThat(b.evaluate("window.unibenchPhases")).isEqualTo(java.util.List.of("starting_simulator",
                    "connection_test"));
            // the stored count grows while the point runs, not only at its end
            b.waitForFunction("/^[1-9]/.test(document.getElementById('run-requests').textContent)"
                    + " && !document.getElementById('live-progress').textContent.includes('finished')");
            // the start shown is the store's (when the run left the queue), not the queue time the page was rendered with
            String startedAt = io.unibench.schedule.Times.utc(f.store.run(sim).row().startedAt());
            b.waitForFunction("document.getElementById('run-started').textContent === '" + startedAt + "'");
            b.waitForFunction("window.unibenchCharts['live-rate'] && window.unibenchCharts['live-rate'].points >= 2");
            assertThat(b.evaluate("window.unibenchCharts['live-rate'].scales")).isEqualTo(java.util.List.of("req/s",
                    "tok/s"));
            assertThat(drawn(b, "live-rate")).isTrue();
            shot(b, "run-live-two-axes.png");
            b.waitForSelector("h1 .badge.finished", new Page.WaitForSelectorOptions().setTimeout(60_000));
            assertThat(f.store.run(blocker).row().status()).isEqualTo("cancelled");
        }
    }

    /**
     * Two runs of one scenario on the embedded simulator (each on a new random port) are one target: stored as
     * {@code embedded-sim/PROVIDER}, so the runs list draws their TTFT trend (it was always empty: each run's target was
     * a URL of its own).
     */
    @Test
    void embeddedSimulatorRunsAreOneTargetSoTheirTrendIsDrawn() throws Exception {
        java.nio.file.Path file = dir.resolve("trend.yaml");
        java.nio.file.Files.writeString(file, """
                name: trend
                provider: {name: local-sim, base_url: sim, model: trend-model, simulator: {ttft_ms: 5, itl_ms: 1}}
                generation: {max_tokens: 4}
                concurrency: {levels: [1], requests_per_level: 4}
                scenarios:
                  - {name: qa, type: chat, prompt: hi}
                """);
        for (int i = 0; i < 2; i++) {
            java.io.StringWriter err = new java.io.StringWriter();
            int exit = io.unibench.cli.Main.execute(new String[] {"run", "--config", file.toString(), "--outputs-dir",
                    dir.resolve("trend-out").toString(), "--no-timestamp", "--no-client-warmup", "--db",
                    f.location.jdbcUrl()}, new java.io.PrintWriter(new java.io.StringWriter(), true),
                    new java.io.PrintWriter(err, true));
            assertThat(exit).as(err.toString()).isZero();
        }
        Page page = open("/?model=trend-model");
        assertThat(page.locator("table.runs tbody tr").count()).isEqualTo(2);
        assertThat(page.locator("table.runs td.url").allTextContents()).containsOnly("embedded-sim/local-sim");
        assertThat(page.locator("table.runs svg.spark polyline").count()).isEqualTo(2);
        shot(page, "runs-sim-trend.png");
    }

    /**
     * Two problems of one line are one note beside it (they were two notes drawn on top of each other), and a
     * connection test's answer goes once the document is edited (it stayed, about a document no longer there).
     */
    @Test
    void theEditorShowsOneNotePerLineAndDropsAStaleConnectionAnswer() {
        Page page = open("/runs/new");
        page.locator("#f-base-url").fill(f.sim.baseUrl() + "/v1");
        page.locator("#f-model").fill("m");
        page.locator("#f-key-env").fill("TEST_KEY");
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith('valid')");
        page.locator("#test-connection").click();
        page.waitForFunction("document.getElementById('connection-result').className === 'ok'");
        assertThat(page.locator("#connection-result").textContent()).contains("answered model m");

        String text = page.locator("#yaml").inputValue().replaceFirst("(?m)^generation:\\n(  .*\\n)+",
                "generation: {max_tokens: many, temperature: hot}\n");
        int line = java.util.List.of(text.split("\n")).indexOf("generation: {max_tokens: many, temperature: hot}") + 1;
        assertThat(line).as(text).isPositive();
        page.locator("#yaml").fill(text);
        assertThat(page.locator("#connection-result").textContent()).as("the answer was about the old document")
                .isEmpty();
        var note = page.locator(".note-line[data-line=\"" + line + "\"]");
        note.waitFor();
        page.waitForFunction("document.getElementById('doc-status').textContent === '2 problems'");
        assertThat(note.count()).isEqualTo(1);
        assertThat(note.getAttribute("data-count")).isEqualTo("2");
        assertThat(note.getAttribute("title")).contains("/generation/max_tokens").contains("/generation/temperature");
        shot(page, "new-run-two-problems-one-line.png");
    }

    /**
     * A run that failed before measuring anything says why and what to do, in the page's words, and draws no empty
     * chart (it showed seven empty cards whose reasons were wrong, one advising a command-line flag).
     */
    @Test
    void aFailedRunSaysWhyAndWhatToDoWithNoEmptyCards() throws Exception {
        String id = WebRunsTest.create("""
                name: nothing-listens
                provider: {name: gone, base_url: "http://127.0.0.1:1/v1", model: m, api_key_env: TEST_KEY}
                concurrency: {levels: [1, 2], requests_per_level: 2}
                scenarios:
                  - {name: qa, type: chat, prompt: hi}
                """);
        Page page = open("/runs/" + id);
        page.waitForSelector("h1 .badge.failed", new Page.WaitForSelectorOptions().setTimeout(60_000));
        assertThat(page.locator(".chart").count()).as("no chart without a measured point").isZero();
        assertThat(page.locator("#run-tiles").count()).isZero();
        assertThat(page.locator("h2", new Page.LocatorOptions().setHasText("Environment")).count()).as("nothing in it").isZero();
        String failure = page.locator("#run-failure").textContent();
        assertThat(failure).contains("This run failed").contains("connection test").contains("connection_refused")
                .contains("base URL").doesNotContain("--no-test-connection").doesNotContain("--");
        assertThat(page.locator("dl.facts dt").allTextContents()).doesNotContain("Why");
        shot(page, "run-failed.png");
    }

    /** The finished run page opens with its headline figures, as its live page did. */
    @Test
    void theFinishedRunPageOpensWithHeadlineTiles() {
        Page page = open("/runs/" + f.runIds.get(0));
        page.waitForSelector("#run-tiles");
        assertThat(page.locator("#run-tiles dt").allTextContents()).containsExactly("Success", "Req/s", "Output tok/s",
                "TTFT p50 (ms)", "TTFT p95 (ms)", "Latency p50 (s)", "Latency p95 (s)", "Cache hit");
        java.util.List<String> values = page.locator("#run-tiles dd").allTextContents();
        assertThat(values.getFirst()).isEqualTo("100%");
        assertThat(values.subList(1, 7)).allMatch(v -> v.matches("[0-9][0-9.,]*"));
        // above the charts and tables, below the facts
        assertThat(page.locator("#run-tiles").boundingBox().y).isLessThan(page.locator(".charts").first().boundingBox().y);
        assertThat(page.locator("#run-failure").count()).isZero();
        page.setViewportSize(1400, 700);
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("run-finished-tiles.png")));
    }

    /**
     * The runs list's picker compares three runs with a chosen baseline (it took two, the first ticked always A):
     * /compare?a=BASELINE&b=…&b=…, every chart with a series per run.
     */
    @Test
    void thePickerComparesThreeRunsAgainstTheChosenBaseline() {
        java.io.StringWriter err = new java.io.StringWriter();
        int exit = io.unibench.cli.Main.execute(new String[] {"perf", "--url", f.sim.baseUrl() + "/v1/chat/completions",
                "--model", "m", "--outputs-dir", dir.resolve("third-out").toString(), "--no-timestamp", "--name",
                "third", "--sleep-interval", "0", "--parallel", "2", "4", "--number", "8", "8", "--max-tokens", "8",
                "--tag", "pick", "--db", f.location.jdbcUrl()}, new java.io.PrintWriter(new java.io.StringWriter(), true),
                new java.io.PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        String third = err.toString().split("Run history: run ")[1].split(" ")[0];

        Page page = open("/");
        for (String id : java.util.List.of(f.runIds.get(0), f.runIds.get(1), third)) {
            page.locator("input.pick[value=\"" + id + "\"]").check();
        }
        assertThat(page.locator("#compare-button").isEnabled()).isTrue();
        assertThat(page.locator("#compare-baseline option").count()).isEqualTo(3);
        assertThat(page.locator("#compare-hint").textContent()).isEqualTo("A = first (baseline), B = second, C = third");
        page.locator("#compare-baseline").selectOption(f.runIds.get(1));
        assertThat(page.locator("#compare-hint").textContent()).isEqualTo("A = second (baseline), B = first, C = third");
        shot(page, "runs-pick-three.png");
        page.locator("#compare-button").click();
        page.waitForURL("**/compare?**");
        assertThat(page.url()).contains("a=" + f.runIds.get(1)).contains("b=" + f.runIds.get(0)).contains("b=" + third);
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 6");
        for (String id : java.util.List.of("cmp-latency", "cmp-ttft", "cmp-levels-tok", "cmp-ttft-time")) {
            assertThat(series(page, id)).as(id).isEqualTo(3);
            assertThat(drawn(page, id)).as(id).isTrue();
        }
        shot(page, "compare-three.png");
    }

    /** A run of one level draws no per-level card (it showed an empty one advising command-line flags). */
    @Test
    void aRunOfOneLevelHasNoEmptyCurveCard() throws Exception {
        java.io.StringWriter err = new java.io.StringWriter();
        int exit = io.unibench.cli.Main.execute(new String[] {"perf", "--url", f.sim.baseUrl() + "/v1/chat/completions",
                "--model", "m", "--outputs-dir", dir.resolve("one-out").toString(), "--no-timestamp", "--name",
                "one-level", "--sleep-interval", "0", "--parallel", "2", "--number", "6", "--max-tokens", "4",
                "--db", f.location.jdbcUrl()}, new java.io.PrintWriter(new java.io.StringWriter(), true),
                new java.io.PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        String id = err.toString().split("Run history: run ")[1].split(" ")[0];
        Page page = open("/runs/" + id);
        page.waitForFunction("window.unibenchCharts['chart-latency']");
        assertThat(page.locator("#chart-levels").isHidden()).isTrue();
        assertThat(page.locator("#chart-rate-levels").isHidden()).isTrue();
        assertThat(page.content()).doesNotContain("--parallel");
    }
}
