package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;

/**
 * Cancelling a running run from its live page in real headless Chromium: the run (one 60-second level against a
 * slow simulator, so it is still running when the button is clicked) ends {@code cancelled}, and the page that
 * reloads on its end shows what ran before the stop.
 */
class RunCancelBrowserTest extends BrowserTestBase {
    /** Concurrency 2 for 60 s; each request takes about 200 ms of simulated time, so a few complete each second. */
    static final String LONG_YAML = """
            name: long-one
            provider:
              name: slow-sim
              base_url: sim
              model: m
              simulator: {ttft_ms: 100, itl_ms: 15, prefill_ms_per_token: 0}
            generation: {max_tokens: 6, ignore_eos: true}
            concurrency: {fixed: 2, ramp_interval_sec: 60}
            scenarios:
              - name: chat
                type: chat
                prompt: Say hello.
            """;

    @Test
    void theLivePagesCancelButtonEndsTheRunCancelledWithItsPartialResults() throws Exception {
        HttpResponse<String> created = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs"))
                .header("Content-Type", "application/yaml").POST(HttpRequest.BodyPublishers.ofString(LONG_YAML)));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = new ObjectMapper().readTree(created.body()).get("id").asText();

        Page page = open("/runs/" + id);
        // running, and some requests done: there is something to keep
        page.waitForFunction("parseInt(document.getElementById('live-completed').textContent) >= 3");
        assertThat(page.locator("#live-state").textContent()).startsWith("running: point 1 of 1");
        page.locator("#cancel-run").click(); // (the page may reload on the run's end before the click returns)

        // the run's end reloads the page into what ran, well before the level's 60 s were up
        page.waitForSelector("h1 .badge.cancelled", new Page.WaitForSelectorOptions().setTimeout(30_000));
        assertThat(page.locator("#live").count()).isZero();
        assertThat(page.locator("#run-failure .reason-text").textContent()).isEqualTo("cancelled by request");
        assertThat(page.locator("#run-failure h2").textContent()).isEqualTo("This run was cancelled");
        assertThat(f.store.run(id).row().status()).isEqualTo("cancelled");
        long stored = f.store.run(id).row().requestCount();
        assertThat(stored).isGreaterThanOrEqualTo(3);
        assertThat(page.locator("dl.facts").textContent()).contains(stored + " stored");
        assertThat(page.locator("h2", new Page.LocatorOptions().setHasText("Per-Request Metrics")).count()).isEqualTo(1);
        for (String chart : List.of("chart-latency", "chart-ttft", "chart-ttft-time")) {
            page.waitForFunction("id => window.unibenchCharts && window.unibenchCharts[id]", chart);
            assertThat(drawn(page, chart)).as(chart).isTrue();
        }
        shot(page, "run-cancelled.png");
    }
}
