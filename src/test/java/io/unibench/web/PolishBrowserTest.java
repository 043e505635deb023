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
}
