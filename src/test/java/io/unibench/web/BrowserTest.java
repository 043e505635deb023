package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The run pages in real headless Chromium ({@link BrowserTestBase}: the set-up every browser test shares). */
class BrowserTest extends BrowserTestBase {
    @Test
    void runsListShowsBothRunsAndPickingTwoOpensTheComparison() {
        Page page = open("/");
        assertThat(page.locator("table.runs tbody tr").count()).isEqualTo(2);
        assertThat(page.locator("#compare-button").isDisabled()).isTrue();
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("runs.png")).setFullPage(true));
        page.locator("input.pick").nth(1).check();
        page.locator("input.pick").nth(0).check();
        assertThat(page.locator("#compare-button").isEnabled()).isTrue();
        page.locator("#compare-button").click();
        page.waitForURL("**/compare?**");
        assertThat(page.url()).contains("a=" + f.runIds.get(0)).contains("b=" + f.runIds.get(1));
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 6");
        for (String id : List.of("cmp-latency", "cmp-ttft", "cmp-levels-tok", "cmp-levels-ttft", "cmp-ttft-time",
                "cmp-throughput")) {
            assertThat(series(page, id)).as(id).isEqualTo(2);
            assertThat(drawn(page, id)).as(id).isTrue();
        }
        assertThat(page.locator("table.report th").allTextContents()).contains("Δ B [95%]", "B vs A");
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("compare.png")).setFullPage(true));
    }

    @Test
    void detailPageDrawsEveryChartWithItsSeries() {
        Page page = open("/runs/" + f.runIds.get(0));
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 9");
        // the server's charts (the simulator's /metrics, vLLM's names): running and waiting, KV-cache use and
        // prefix-cache hit rate, generated tok/s
        Map<String, Integer> expected = Map.of("chart-latency", 2, "chart-ttft", 2, "chart-itl", 2,
                "chart-ttft-time", 1, "chart-throughput", 1, "chart-levels", 2, "chart-server-load", 2,
                "chart-server-cache", 2, "chart-server-tokens", 1);
        expected.forEach((id, n) -> {
            assertThat(series(page, id)).as(id).isEqualTo(n);
            assertThat(drawn(page, id)).as(id).isTrue();
        });
        assertThat(page.locator("h2", new Page.LocatorOptions().setHasText("Per-Request Metrics")).count()).isEqualTo(1);
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("run-detail.png")).setFullPage(true));
    }

    @Test
    void aRunCreatedFromTheFormIsWatchedLiveThenShowsItsReport() throws Exception {
        Page page = open("/runs/new");
        page.locator("#f-name").fill("from-form");
        page.locator("#f-base-url").fill(f.sim.baseUrl() + "/v1");
        page.locator("#f-model").fill("m");
        page.locator("#f-key-env").fill("TEST_KEY");
        page.locator("#f-levels").fill("1 2");
        page.locator("input[name=f-per][value=duration]").check();
        page.locator("#f-duration").fill("4");
        page.locator("#f-max-tokens").fill("8");
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith('valid')");
        assertThat(page.locator("#yaml").inputValue()).contains("api_key_env: TEST_KEY").contains("ramp_interval_sec: 4")
                .contains("levels: [1, 2]");
        page.locator("#test-connection").click();
        page.waitForFunction("document.getElementById('connection-result').className === 'ok'");
        assertThat(page.locator("#connection-result").textContent()).contains("answered model m");
        var download = page.waitForDownload(() -> page.locator("#save-yaml").click());
        assertThat(download.suggestedFilename()).isEqualTo("from-form.yaml");
        assertThat(Files.readString(download.path())).isEqualTo(page.locator("#yaml").inputValue());
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("new-run.png")).setFullPage(true));

        page.locator("#create-run").click();
        page.waitForURL("**/runs/2*");
        String id = page.url().substring(page.url().lastIndexOf('/') + 1);
        // live: three snapshots charted, the figures counting, the level shown
        page.waitForFunction("window.unibenchCharts['live-rate'] && window.unibenchCharts['live-rate'].points >= 3");
        for (String chart : List.of("live-rate", "live-ttft-chart", "live-latency", "live-errors")) {
            assertThat(drawn(page, chart)).as(chart).isTrue();
        }
        assertThat(series(page, "live-ttft-chart")).isEqualTo(3);
        assertThat(series(page, "live-rate")).isEqualTo(2);
        assertThat(Long.parseLong(page.locator("#live-completed").textContent())).isPositive();
        assertThat(page.locator("#live-level").textContent()).startsWith("concurrency ");
        assertThat(page.locator("#live-state").textContent()).startsWith("running: point ");
        // the facts rendered while the run was queued follow the store once a point has started or ended
        page.waitForFunction("document.getElementById('live') !== null"
                + " && /^[1-9]/.test(document.getElementById('run-requests').textContent)"
                + " && document.querySelectorAll('#run-environment tr').length > 0");
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("run-live.png")).setFullPage(true));

        // the end reloads the page into the run's report
        page.waitForSelector("h1 .badge.finished", new Page.WaitForSelectorOptions().setTimeout(60_000));
        assertThat(page.locator("#live").count()).isZero();
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 9");
        for (String chart : List.of("chart-latency", "chart-ttft", "chart-ttft-time", "chart-throughput", "chart-itl",
                "chart-levels")) {
            assertThat(drawn(page, chart)).as(chart).isTrue();
        }
        assertThat(page.content()).doesNotContain(WebFixture.API_KEY);
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("run-finished.png")).setFullPage(true));
        assertThat(f.store.run(id).row().status()).isEqualTo("finished");
    }

    @Test
    void theFormWritesRateLevelsGoodputAndAnSlaBlockThatValidate() throws Exception {
        Page page = open("/runs/new");
        page.locator("#f-name").fill("rates-form");
        page.locator("#f-base-url").fill(f.sim.baseUrl() + "/v1");
        page.locator("#f-model").fill("m");
        page.locator("#f-key-env").fill("TEST_KEY");
        page.locator("input[name=f-load][value=rate]").check();
        assertThat(page.locator("#f-rates").isVisible()).isTrue();
        assertThat(page.locator("input[name=f-per][value=duration]").isVisible()).as("a rate level is counted").isFalse();
        page.locator("#f-rates").fill("50 100");
        page.locator("#f-burstiness").fill("0.5");
        page.locator("#f-requests").fill("6");
        page.locator("#f-max-tokens").fill("4");
        page.locator("#f-goodput-ttft").fill("500");
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith('valid: request rate levels')");
        String rates = page.locator("#yaml").inputValue();
        assertThat(rates).contains("request_rate:\n  levels: [50, 100]\n  burstiness: 0.5\n")
                .contains("  requests_per_level: 6\n").contains("goodput:\n  ttft_ms: 500\n").doesNotContain("concurrency:");
        assertThat(page.locator("#doc-status").textContent()).isEqualTo("valid: request rate levels [50, 100] req/s "
                + "(open loop), burstiness 0.5 (gamma gaps), no bound in flight, 6 requests per level");

        page.locator("#f-sla").check();
        assertThat(page.locator("#f-load-set").isVisible()).as("the search chooses the load").isFalse();
        page.locator("#f-sla-upper").fill("8");
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith("
                + "'valid: SLA auto-tune of parallel (concurrency) in [1, 8], criteria ')");
        String sla = page.locator("#yaml").inputValue();
        assertThat(sla).contains("sla_auto_tune:\n  variable: parallel\n  params: {\"p99_latency\":\"<=2\",\"avg_ttft\":\"<=500ms\"}\n")
                .contains("  upper_bound: 8\n").doesNotContain("request_rate:").doesNotContain("concurrency:");
        page.locator("#f-sla-params").fill("{\"p98_latency\": \"<=1\"}");
        int line = List.of(page.locator("#yaml").inputValue().split("\n")).indexOf("  params: {\"p98_latency\":\"<=1\"}") + 1;
        assertThat(line).isPositive();
        var note = page.locator(".note-line[data-line=\"" + line + "\"]");
        note.waitFor();
        assertThat(note.textContent()).contains("/sla_auto_tune/params").contains("unknown metric 'p98_latency'");
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("new-run-sla.png")).setFullPage(true));

        page.locator("#f-sla").uncheck(); // back to the rate levels: created and run to the end
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith('valid: request rate levels')");
        page.locator("#create-run").click();
        page.waitForURL(u -> !u.endsWith("/runs/new"));
        page.waitForSelector("h1 .badge.finished", new Page.WaitForSelectorOptions().setTimeout(60_000));
        String id = page.url().substring(page.url().lastIndexOf('/') + 1);
        assertThat(f.store.run(id).points()).extracting(p -> p.label())
                .containsExactly("target/main/rate_50", "target/main/rate_100");
        // the fixture's run list stays as the other tests expect it, whatever their order
        assertThat(f.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(f.base() + "/api/runs/" + id))
                .DELETE()).statusCode()).isEqualTo(200);
    }

    @Test
    void aYamlErrorIsShownBesideItsLine() {
        Page page = open("/runs/new");
        page.waitForFunction("document.getElementById('doc-status').textContent.startsWith('valid')");
        String text = page.locator("#yaml").inputValue().replace("max_tokens: 64", "max_tokens: many");
        int line = List.of(text.split("\n")).indexOf("  max_tokens: many") + 1;
        assertThat(line).isPositive();
        page.locator("#yaml").fill(text);
        var note = page.locator(".note-line[data-line=\"" + line + "\"]");
        note.waitFor();
        assertThat(note.textContent()).contains("/generation/max_tokens").contains("integer");
        var gutterLine = page.locator("#yaml-gutter span").nth(line - 1);
        assertThat(gutterLine.getAttribute("class")).isEqualTo("bad");
        assertThat(Math.abs(note.boundingBox().y - gutterLine.boundingBox().y)).isLessThan(3);
        assertThat(page.locator("#doc-status").textContent()).isEqualTo("1 problem");
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("new-run-yaml-error.png")).setFullPage(true));
        page.locator("#create-run").click(); // refused: stays on the form, the message still beside its line
        page.waitForFunction("!document.getElementById('create-run').disabled");
        assertThat(page.url()).endsWith("/runs/new");
        assertThat(note.isVisible()).isTrue();
    }
}
