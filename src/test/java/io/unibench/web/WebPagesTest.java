package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.Phase;
import io.unibench.metrics.PhaseSummary;
import io.unibench.store.RunRow;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;

import java.util.List;

/** The rendered pages, read with jsoup (no browser): what a person sees is there, from the stored figures. */
class WebPagesTest extends WebFixtureTest {
    private static Document page(String path) throws Exception {
        var r = f.get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return Jsoup.parse(r.body());
    }

    @Test
    void runsPageListsRunsWithBadgesFiguresAndTrend() throws Exception {
        Document d = page("/");
        List<Element> rows = d.select("table.runs tbody tr");
        assertThat(rows).hasSize(2);
        assertThat(rows.getFirst().attr("data-run")).isEqualTo(f.runIds.get(1));
        assertThat(rows.getFirst().select(".badge.finished").text()).isEqualTo("finished");
        List<String> cells = rows.getFirst().select("td.num").eachText();
        assertThat(cells).hasSize(5);
        assertThat(cells.get(1)).isEqualTo("100%");
        assertThat(Double.parseDouble(cells.get(2))).isPositive(); // TTFT p95
        // both runs share model and URL: one target, two runs in its sparkline
        assertThat(rows.getFirst().select("svg.spark polyline").attr("points").split(" ")).hasSize(2);
        assertThat(d.select("input.pick")).hasSize(2);
        assertThat(page("/?name=second").select("table.runs tbody tr")).hasSize(1);
        assertThat(page("/?name=nothing").select("p.empty").text()).contains("No stored runs match");
    }

    @Test
    void detailPageHasTheReportTablesChartsAndEnvironment() throws Exception {
        Document d = page("/runs/" + f.runIds.get(0));
        assertThat(d.select("h2").eachText()).contains("Performance Overview", "Per-Request Metrics", "Phases",
                "Workload Throughput", "Environment");
        Element overview = d.select("h2:containsOwn(Performance Overview) + div table").first();
        assertThat(overview.select("tbody tr")).hasSize(2);
        assertThat(overview.select("tbody tr").first().select("td").eachText()).startsWith("parallel_2_number_12", "2");
        // seven of the client's (the request-rate curves' hidden by the page when the run has none), three of the
        // server's own /metrics
        assertThat(d.select(".chart")).hasSize(10);
        JsonNode charts = new ObjectMapper().readTree(d.getElementById("chart-data").data());
        assertThat(charts.get("labels")).hasSize(2);
        assertThat(charts.get("server").get("engine").asText()).isEqualTo("vLLM");
        assertThat(charts.get("server").get("t_s").size()).isGreaterThanOrEqualTo(4); // ≥ 2 scrapes per point
        // the cached-token figure with its source (the simulator answers in OpenAI's usage shape)
        assertThat(d.select("h2:containsOwn(Per-Request Metrics) + div table td").eachText())
                .contains("Cached tokens (source: prompt_tokens_details.cached_tokens)");
        // timings carry their 95 % interval where the point has one (12 requests: the p50's, not the p99's)
        Element ttft = d.select("h2:containsOwn(Per-Request Metrics) + div table tr:has(td:containsOwn(TTFT (ms)))")
                .first();
        List<String> cells = ttft.select("td").eachText();
        int metric = cells.indexOf("TTFT (ms)");
        assertThat(cells.get(metric + 2)).matches("[0-9.,]+ \\[[0-9.,]+, [0-9.,]+\\]"); // p50
        assertThat(cells.get(metric + 4)).matches("[0-9.,]+"); // p99: none from 12 requests
        // the terminal's Server table, from the points' stored summary keys
        Element server = d.select("h2:matchesOwn(^Server$) + div table").first();
        assertThat(server.select("thead th").eachText()).contains("Running mean/max", "Prefix hit (client)");
        assertThat(server.select("tbody tr")).hasSize(2);
        assertThat(server.select("tbody tr").first().select("td").eachText().getLast()).matches("\\d+\\.\\d");
        assertThat(charts.get("ttft_over_time").get("t_s")).hasSize(28);
        assertThat(charts.get("levels").get("x")).hasSize(2);
        assertThat(charts.get("rate_levels").get("x")).isEmpty();
        assertThat(d.select("table.kv th").eachText()).contains("model", "tool_version");
        assertThat(d.select("p.downloads a").eachAttr("href")).anySatisfy(h -> assertThat(h).endsWith("format=csv"));
    }

    @Test
    void thePhasesTableSaysTheConnectionsInTheTerminalsOneLine() throws Exception {
        // a stored run: the fixture's (no stale connection)
        Element phases = page("/runs/" + f.runIds.get(0)).select("h2:containsOwn(Phases) + div table").first();
        assertThat(phases.select("td").eachText()).anySatisfy(t -> assertThat(t).matches("connections: \\d+ opened, \\d+ reused"))
                .noneSatisfy(t -> assertThat(t).contains("connections new")).doesNotContain("stale connections retried");
        // one that met a stale pooled connection: the same words as the terminal's note, cost included
        PhaseSummary summary = new PhaseSummary(List.of(new PhaseSummary.Row(Phase.TRANSFER, 10, 5.0, 5.0, 5.0, 5.0)),
                10, 0, 1, new PhaseSummary.Row(null, 1, 0.632, 0.632, 0.632, 0.632), 0, 0, 0);
        JsonNode stored = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(summary.toMap()));
        StoredPoint point = new StoredPoint(0, "p0", 10, -1, 10, 0, new ObjectMapper().readTree("{\"Total Requests\": 10}"),
                null, null, null, new StoredPoint.Details(null, null, stored, null));
        RunRow row = new RunRow("r1", "n", "m", "http://127.0.0.1:1/v1", RunRow.FINISHED, 0, 1L, 10, 10, List.of(),
                null, null, null);
        Table table = RunViews.tables(new StoredRun(row, null, null, List.of(point))).stream()
                .filter(t -> t.title().equals("Phases")).findFirst().orElseThrow();
        assertThat(table.rows()).extracting(r -> r.get(1)).contains("connections: " + summary.connectionsLine())
                .contains("connections: 10 opened, 0 reused; 1 sent again after a stale pooled connection (counted as "
                        + "opened), the wasted attempts 0.632 ms each on average, 0.632 ms in all");
    }

    @Test
    void aPageRoutesErrorIsAPageForABrowserAndJsonForTheApi() throws Exception {
        // the runs page's compare form submitted without two runs, an unknown run: words on a page, not raw JSON
        for (String[] c : new String[][] {{"/compare?a=&b=", "400", "Bad request", "compare needs a baseline and at least one other run"},
                {"/runs/nope", "404", "Not found", "run 'nope'"}}) {
            var r = f.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(f.base() + c[0]))
                    .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8").GET());
            assertThat(r.statusCode()).as(c[0]).isEqualTo(Integer.parseInt(c[1]));
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(c[0]).startsWith("text/html");
            Document d = Jsoup.parse(r.body());
            assertThat(d.select("h1").text()).as(c[0]).isEqualTo(c[2]);
            assertThat(d.select("p.error").text()).as(c[0]).contains(c[3]);
            assertThat(d.select("a[href=/]")).as(c[0]).isNotEmpty();
        }
        // the API answers JSON whatever the client accepts; so does a page route asked without text/html (curl)
        var api = f.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(f.base() + "/api/runs/nope"))
                .header("Accept", "text/html").GET());
        assertThat(api.statusCode()).isEqualTo(404);
        assertThat(new ObjectMapper().readTree(api.body()).get("error").asText()).contains("run 'nope'");
        var curl = f.get("/runs/nope");
        assertThat(curl.statusCode()).isEqualTo(404);
        assertThat(new ObjectMapper().readTree(curl.body()).has("error")).isTrue();
    }

    @Test
    void comparePageShowsDeltasWithTheirVerdicts() throws Exception {
        Document d = page("/compare?a=" + f.runIds.get(0) + "&b=" + f.runIds.get(1));
        assertThat(d.select(".side.a a").text()).isEqualTo("first");
        assertThat(d.select("table.report")).hasSize(2); // one per shared level
        assertThat(d.select("h2").eachText()).contains("parallel_2 — concurrency 2", "parallel_4 — concurrency 4");
        assertThat(d.select("table.report thead th").eachText()).contains("n", "A", "B", "Δ B [95%]", "B vs A");
        assertThat(d.select("table.report td").eachText()).contains("p95 TTFT (ms)", "p95 Latency (s)");
        assertThat(d.select(".chart")).hasSize(8); // the request-rate curves' two hidden by the page here
    }

    @Test
    void theVerdictIsABadgeOnTheRunPageAndMarksInvalidSidesOfACompare() throws Exception {
        // 12 and 16 requests per point: too few for a p99's 95% interval, whatever else the machine did
        Document run = page("/runs/" + f.runIds.get(0));
        assertThat(run.select("h1 .badge.verdict-invalid").text()).startsWith("not valid: ").contains("too-few-samples");
        // and each point's own, a badge in its row of the overview
        Element overview = run.select("h2:containsOwn(Performance Overview) + div table").first();
        assertThat(overview.select("thead th").eachText()).endsWith("Verdict");
        assertThat(overview.select("tbody tr")).hasSize(2).allSatisfy(row -> assertThat(row
                .select("td .badge.point-verdict.verdict-invalid").text()).contains("too-few-samples"));
        Document cmp = page("/compare?a=" + f.runIds.get(0) + "&b=" + f.runIds.get(1));
        assertThat(cmp.select(".side .badge.verdict-invalid")).hasSize(2);
    }

    @Test
    void htmlReportIsSelfContained() throws Exception {
        Document d = page("/api/runs/" + f.runIds.get(0) + "/report.html");
        assertThat(d.select("script[src], link[rel=stylesheet]")).isEmpty();
        assertThat(d.select("script").stream().map(Element::data).filter(s -> s.contains("uPlot"))).isNotEmpty();
        assertThat(d.select("h2").eachText()).contains("Performance Overview");
    }
}
