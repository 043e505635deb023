package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.unibench.cli.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code unibench run --report html}'s file, opened from disk in headless Chromium: a two-provider scenario against
 * embedded simulators, each provider's stored run drawn with the run page's charts (uPlot and app.js inlined), the
 * server's own series among them, and nothing fetched from anywhere.
 */
class ReportBrowserTest {
    @TempDir
    static Path dir;

    private static Playwright playwright;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        playwright = BrowserTestBase.playwright();
        browser = BrowserTestBase.chromium(playwright);
        Files.createDirectories(BrowserTestBase.SHOTS);
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
    }

    /** Runs the two-provider scenario with {@code extra} flags; returns scenario_report.html. */
    private static Path report(String name, String... extra) throws Exception {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, """
                name: %s
                providers:
                  - {name: fast, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                  - {name: slow, base_url: sim, model: m, simulator: {ttft_ms: 40, itl_ms: 4}}
                generation: {max_tokens: 8, ignore_eos: true}
                concurrency: {levels: [1, 2], requests_per_level: 6}
                rate_limit: 1000
                scenarios:
                  - {name: qa, type: chat, stream: true, prompt: "Explain a database index in one sentence."}
                """.formatted(name));
        List<String> args = new ArrayList<>(List.of("run", "--config", file.toString(), "--outputs-dir",
                dir.resolve("out").toString(), "--no-timestamp", "--report", "html"));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        Path html = dir.resolve("out").resolve(name).resolve("scenario_report.html");
        assertThat(out.toString()).contains("Report: " + html.toAbsolutePath());
        return html;
    }

    @Test
    void theReportFileDrawsEveryProvidersChartsOfflineFromDisk() throws Exception {
        Path html = report("bench", "--db", dir.resolve("h.db").toString());
        String text = Files.readString(html);
        assertNoExternalReference(text);

        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000));
        List<String> fetched = new ArrayList<>();
        page.route(url -> !url.startsWith("file:"), route -> {
            fetched.add(route.request().url());
            route.abort();
        });
        page.navigate(html.toUri().toString());
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 18");
        Map<String, Integer> expected = new LinkedHashMap<>();
        for (String p : List.of("p0-", "p1-")) {
            expected.put(p + "chart-latency", 2); // one line per level
            expected.put(p + "chart-ttft", 2);
            expected.put(p + "chart-itl", 2);
            expected.put(p + "chart-ttft-time", 1);
            expected.put(p + "chart-throughput", 1);
            expected.put(p + "chart-levels", 2);
            expected.put(p + "chart-server-load", 2); // the simulator's /metrics: running, waiting
            expected.put(p + "chart-server-cache", 2); // KV-cache use, prefix-cache hit rate
            expected.put(p + "chart-server-tokens", 1);
        }
        expected.forEach((id, n) -> {
            assertThat(BrowserTestBase.series(page, id)).as(id).isEqualTo(n);
            assertThat(BrowserTestBase.drawn(page, id)).as(id).isTrue();
        });
        assertThat(page.locator("section.provider-run h1").allTextContents()).hasSize(2)
                .anySatisfy(t -> assertThat(t).startsWith("fast")).anySatisfy(t -> assertThat(t).startsWith("slow"));
        assertThat(page.locator("h2", new Page.LocatorOptions().setHasText("Provider comparison: qa")).count()).isEqualTo(1);
        assertThat(fetched).as("requests the file made").isEmpty();
        page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("report-html.png")).setFullPage(true));
    }

    @Test
    void withoutTheRunHistoryTheReportStillDrawsItsChartsAndWithoutServerMetricsHidesTheirs() throws Exception {
        Path html = report("nodb", "--no-db", "--server-metrics", "off");
        assertNoExternalReference(Files.readString(html));
        assertThat(Files.list(dir.resolve("out").resolve("nodb")).map(p -> p.getFileName().toString()))
                .noneMatch(n -> n.endsWith(".db"));
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000));
        page.navigate(html.toUri().toString());
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 12"); // six a provider, none of the server's
        assertThat(BrowserTestBase.series(page, "p1-chart-ttft-time")).isEqualTo(1);
        assertThat(BrowserTestBase.drawn(page, "p1-chart-ttft-time")).isTrue();
        assertThat(BrowserTestBase.series(page, "p0-chart-server-load")).isEqualTo(-1);
        assertThat(page.locator(".server-charts").count()).isEqualTo(2);
        assertThat(page.locator(".server-charts:visible").count()).isZero();
    }

    /**
     * Nothing in the file loads or links anything: no {@code src}/{@code href}/{@code url(...)}/{@code @import} of a
     * URL, and every {@code http(s)://} in its text is one that is never fetched: uPlot's licence banner, the SVG
     * namespace, or the simulator's loopback address shown as the target.
     */
    private static void assertNoExternalReference(String text) {
        assertThat(text).doesNotContainPattern("(?i)(src|href)\\s*=\\s*[\"']?\\s*(https?:)?//")
                .doesNotContainPattern("(?i)url\\(\\s*[\"']?\\s*(https?:)?//").doesNotContain("@import");
        Matcher m = Pattern.compile("https?://[^\\s\"'<>)]*").matcher(text);
        while (m.find()) {
            assertThat(m.group()).as("a URL in the report").matches(
                    "https://github\\.com/leeoniya/uPlot|http://www\\.w3\\.org/2000/svg|http://127\\.0\\.0\\.1:\\d+(/.*)?");
        }
    }
}
