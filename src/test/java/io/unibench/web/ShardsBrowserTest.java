package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.unibench.cli.Main;
import io.unibench.cli.ScenarioLauncher;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.ClockOffset;
import io.unibench.store.MergedRuns;
import io.unibench.store.Owner;
import io.unibench.store.RunStore;
import io.unibench.store.ShardRegistry;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A sharded run on the platform, in headless Chromium as {@link BrowserTest} drives it: two groups of real
 * {@code perf --shard} runs against the simulator — one whole (its second shard stores the merge when it ends), one
 * whose second shard registered and died (the service's poll stores it partial). The runs list shows each group
 * once; the run page's Shards tab lists the shards and the partial marker with its reason; the merged run's request
 * downloads and per-request chart are its shards' rows. Screenshots: target/screenshots/shards.png, group-run.png.
 */
class ShardsBrowserTest {
    @TempDir
    static Path dir;

    private static SimServer sim;
    private static StoreLocation location;
    private static RunStore store;
    private static WebServer server;
    private static Playwright playwright;
    private static Browser browser;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        playwright = BrowserTestBase.playwright(); // skips (fails in CI) before anything starts
        sim = SimServer.start(SimConfig.defaults().withTtftMs(5).withPrefillMsPerToken(0).withItlMs(1));
        location = StoreLocation.sqlite(dir.resolve("shards.db"));
        // --start-at in the past: each shard starts at once, so the shards of a group can run one after the other
        shard("whole", 0);
        String last = shard("whole", 1);
        assertThat(last).contains("every shard has ended; merged run group:whole stored");
        shard("partial", 0);
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (ShardRegistry r = ShardRegistry.open(location)) {
            r.register("partial", 1, 2, 6, new ClockOffset(1_500, 400), new Owner(Owner.current().host(), gone.pid(), 0));
            r.started("partial", 1);
        }
        // what the service's poll does every 15 s: the dead shard counts as ended, so the group is merged
        assertThat(MergedRuns.mergeOpenGroups(location, Owner.current(), System.currentTimeMillis(),
                (g, e) -> fail(g + ": " + e))).extracting(MergedRuns.Result::runId).containsExactly("group:partial");
        store = RunStore.open(location);
        StringWriter log = new StringWriter();
        server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location,
                new RunService(new ScenarioLauncher(Map.of(), dir.resolve("service-outputs"), new PrintWriter(log)), 1,
                        Map.of()), "test", new PrintWriter(log, true));
        browser = BrowserTestBase.chromium(playwright);
        Files.createDirectories(BrowserTestBase.SHOTS);
    }

    /** Runs shard {@code index}/2 of {@code group} in this JVM; returns what it said on stderr. */
    private static String shard(String group, int index) {
        StringWriter err = new StringWriter();
        int exit = Main.execute(new String[] {"perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model", "m",
                "--outputs-dir", dir.resolve("outputs-" + group + index).toString(), "--no-timestamp", "--name", group,
                "--sleep-interval", "0", "--parallel", "2", "--number", "12", "--max-tokens", "8",
                "--min-prompt-length", "8", "--max-prompt-length", "8", "--db", location.jdbcUrl(),
                "--shard", index + "/2", "--run-group", group, "--start-at", "1"},
                new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        return err.toString();
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        if (server != null) server.close();
        if (store != null) store.close();
        if (sim != null) sim.close();
    }

    private static Page open(String path) {
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000));
        page.navigate("http://127.0.0.1:" + server.port() + path);
        return page;
    }

    @Test
    void theRunsListShowsEachShardedRunOnceAndTheApiListsItsShards() throws Exception {
        Page page = open("/");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < page.locator("table.runs tbody tr").count(); i++) {
            ids.add(page.locator("table.runs tbody tr").nth(i).getAttribute("data-run"));
        }
        assertThat(ids).containsExactlyInAnyOrder("group:whole", "group:partial"); // not the 4 shards' runs
        assertThat(page.locator("tr[data-run='group:partial'] .badge").textContent()).isEqualTo("partial");

        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/api/runs/group:whole")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode run = WebServer.JSON.readTree(r.body());
        // whole, whatever self-check verdict this shared 2-core machine gives (client-bound is not partial)
        assertThat(run.path("partial_reasons")).isEmpty();
        assertThat(run.path("status").asText()).isEqualTo("finished");
        assertThat(run.path("run_group").asText()).isEqualTo("whole");
        assertThat(run.path("partial").asBoolean()).isFalse();
        assertThat(run.path("shards")).hasSize(2);
        long requests = 0;
        for (JsonNode s : run.path("shards")) {
            assertThat(s.path("status").asText()).isEqualTo("finished");
            assertThat(s.path("run_status").asText()).isEqualTo("finished");
            assertThat(s.path("requests").asLong()).isEqualTo(6);
            requests += s.path("requests").asLong();
        }
        assertThat(run.path("request_count").asLong()).isEqualTo(requests);
        assertThat(run.at("/points/0/summary/Total Requests").asLong()).isEqualTo(12);
    }

    @Test
    void theMergedRunsRequestDownloadsAndPerRequestChartAreTheUnionOfItsShardsRows() throws Exception {
        String base = "http://127.0.0.1:" + server.port() + "/api/runs/group:whole/requests";
        HttpResponse<String> jsonl = HTTP.send(HttpRequest.newBuilder(URI.create(base)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(jsonl.statusCode()).isEqualTo(200);
        List<Long> indices = new ArrayList<>();
        for (String line : jsonl.body().strip().split("\n")) {
            indices.add(WebServer.JSON.readTree(line).path("index").asLong());
        }
        // shard 0's 6 requests are the group's 0–5, shard 1's its 6–11: each once, none lost
        assertThat(indices).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
        HttpResponse<String> csv = HTTP.send(HttpRequest.newBuilder(URI.create(base + "?format=csv")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(csv.body().split("\r\n")).hasSize(1 + 12);
        assertThat(csv.body().split("\r\n")[1]).startsWith("group:whole,0,");

        Page page = open("/runs/group:whole");
        JsonNode charts = WebServer.JSON.readTree(page.locator("#chart-data").textContent());
        assertThat(charts.at("/ttft_over_time/t_s")).hasSize(12); // one dot per request of both shards
        assertThat(page.locator("p.downloads a").evaluateAll("as => as.map(a => a.getAttribute('href'))").toString())
                .contains("/api/runs/group:whole/requests");
        // the TTFT-over-time chart drew its dots (uPlot's canvas is there and not blank)
        assertThat(page.locator(".chart canvas").count()).isPositive();
        page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("group-run.png")).setFullPage(true));
    }

    @Test
    void deletingAShardedRunFromItsPageAsksNamingItsShardsAndDeletesThemWithIt() throws Exception {
        shard("doomed", 0);
        assertThat(shard("doomed", 1)).contains("merged run group:doomed stored");
        Page page = open("/runs/group:doomed");
        List<String> asked = new ArrayList<>();
        page.onceDialog(d -> {
            asked.add(d.message());
            d.accept();
        });
        page.waitForNavigation(() -> page.locator("#delete-run").click());
        assertThat(asked).containsExactly("Delete run group:doomed and its 12 stored requests? Its 2 shards' runs and "
                + "registrations are deleted with it (unibench runs delete group:doomed --keep-shards deletes the merge "
                + "alone).");
        assertThat(page.url()).endsWith("/");
        assertThat(page.locator("tr[data-run='group:doomed']").count()).isZero();
        try (ShardRegistry r = ShardRegistry.open(location)) {
            assertThat(r.shards("doomed")).isEmpty();
        }
        assertThat(store.list(io.unibench.store.RunFilter.all(100))).extracting(io.unibench.store.RunRow::name)
                .doesNotContain("doomed");
    }

    @Test
    void theShardsTabListsEveryShardAndThePartialMarkerWithItsReason() {
        Page page = open("/runs/group:partial");
        assertThat(page.locator("#shards").isVisible()).isFalse(); // the Report tab first
        assertThat(page.locator("h2:has-text('Performance Overview')").isVisible()).isTrue();
        page.locator("label[for=tab-shards]").click();
        assertThat(page.locator("#shards").isVisible()).isTrue();
        assertThat(page.locator("h2:has-text('Performance Overview')").isVisible()).isFalse();
        assertThat(page.locator("#shards .partial-marker li").allTextContents())
                .containsExactly("shard 1/2: stored no run (running)");
        List<String> shard0 = page.locator("#shards table.report tbody tr").nth(0).locator("td").allTextContents();
        List<String> shard1 = page.locator("#shards table.report tbody tr").nth(1).locator("td").allTextContents();
        assertThat(shard0.get(0)).isEqualTo("0/2");
        assertThat(shard0.get(2)).isEqualTo("finished");
        assertThat(shard0.get(4)).isEqualTo("6");
        assertThat(shard0.get(5)).isEqualTo("6 (100.0%)");
        assertThat(shard1).containsExactly("1/2", "—", "running", "—", "0", "—", "+1.500 ± 0.200");
        page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("shards.png")).setFullPage(true));
    }
}
