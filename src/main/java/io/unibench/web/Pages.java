package io.unibench.web;

import static io.unibench.report.RunComparisonReport.num;
import static io.unibench.web.Html.nz;
import static io.unibench.web.Html.render;
import static io.unibench.web.Html.scriptJson;
import static io.unibench.web.Html.time;

import io.javalin.http.Context;
import io.unibench.metrics.MetricDelta;
import io.unibench.report.RunComparisonReport;
import io.unibench.store.RunComparison;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The browser pages: runs (home), a run's detail, a comparison, and the login form when a token is set. */
public final class Pages {
    /** Runs of a target drawn in its sparkline. */
    static final int SPARK_RUNS = 20;
    static final String UPLOT_JS = "/webjars/uplot/1.6.30/dist/uPlot.iife.min.js";
    static final String UPLOT_CSS = "/webjars/uplot/1.6.30/dist/uPlot.min.css";

    private final RunStore store;
    private final Auth auth;
    private final RunsApi api;

    Pages(RunStore store, RunsApi api, Auth auth) {
        this.store = store;
        this.api = api;
        this.auth = auth;
    }

    List<Route> routes() {
        return List.of(
                Route.page("get", "/", this::runs),
                Route.page("get", "/runs/new", ctx -> ctx.html(render("new.jte",
                        new NewRunModel(io.unibench.scenario.ScenarioFile.chatDatasets(), auth.required())))),
                Route.page("get", "/runs/{id}", ctx -> ctx.html(render("run.jte", runModel(ctx.pathParam("id"), false)))),
                Route.api("get", "/api/runs/{id}/report.html", "The run's report as one self-contained HTML file "
                        + "(the detail page's tables and charts, scripts and styles inlined: opens offline).",
                        "text/html", this::report),
                Route.page("get", "/compare", this::compare),
                Route.page("get", "/login", ctx -> ctx.html(render("login.jte", new LoginModel(null)))),
                Route.page("post", "/login", this::login),
                Route.page("post", "/logout", this::logout));
    }

    // ---- models of the templates ------------------------------------------------------------------------

    /** A run's line in the history table; figures formatted, {@code spark} an SVG polyline (or empty). */
    public record RunItem(String id, String name, String status, String created, String model, String url,
                          List<String> tags, String requests, String success, String ttftP95, String latencyP95,
                          String outputTokens, String spark, String note) {}

    public record RunsModel(Map<String, String> filters, List<RunItem> runs, String nextUrl, boolean loggedIn) {}

    /**
     * @param queueReason why a queued run waits, or null
     * @param links       the other runs of its service run
     * @param shards      a sharded run's merge: its Shards tab; null for any other run
     */
    public record RunModel(RunRow row, String started, String ended, List<Table> tables,
                           List<Map.Entry<String, String>> environment, String configJson, String chartJson,
                           boolean standalone, String inlineCss, String inlineJs, boolean loggedIn, String queueReason,
                           RunLinks links, ShardsModel shards) {}

    /** The Shards tab: the table, and the partial marker's reasons (empty when the merge is whole). */
    public record ShardsModel(String group, int count, List<String> partialReasons, Table table) {}

    public record CompareModel(RunRow a, RunRow b, List<Table> tables, List<String> notes, String chartJson,
                               boolean loggedIn) {}

    public record LoginModel(String error) {}

    /** A page route's error as a page: a browser that follows a link or submits a form gets words, not JSON. */
    public record ErrorModel(int status, String message) {
        public String title() {
            return switch (status) {
                case 400 -> "Bad request";
                case 404 -> "Not found";
                case 409 -> "Conflict";
                default -> status >= 500 ? "Service error" : "Error " + status;
            };
        }
    }

    /** @param datasets the single-turn datasets a scenario may name */
    public record NewRunModel(List<String> datasets, boolean loggedIn) {}

    // ---- handlers ---------------------------------------------------------------------------------------

    private void runs(Context ctx) throws Exception {
        RunsApi.Page page = api.page(ctx);
        Map<String, List<Double>> sparks = sparklines(page.rows());
        List<RunItem> items = new ArrayList<>();
        for (RunRow r : page.rows()) {
            RunViews.Headline h = page.headlines().get(r.runId());
            items.add(new RunItem(r.runId(), r.name() == null ? "" : r.name(), r.status(), time(r.startedAt()),
                    nz(r.model()), nz(r.url()), r.tags(), Long.toString(r.requestCount()),
                    h.successPercent() == null ? "—" : RunViews.fmt(h.successPercent(), 1) + "%",
                    RunViews.fmt(h.ttftP95Ms(), 2), RunViews.fmt(h.latencyP95Seconds(), 3),
                    RunViews.fmt(h.outputTokensPerSecond(), 2), spark(sparks.get(target(r))),
                    r.status().equals(RunRow.QUEUED) ? api.queueReason(r.runId()) : r.statusReason()));
        }
        Map<String, String> filters = new LinkedHashMap<>();
        for (String k : List.of("model", "url", "name", "tag", "status", "since", "until")) {
            filters.put(k, ctx.queryParam(k) == null ? "" : ctx.queryParam(k));
        }
        String next = null;
        if (page.next() != null) {
            StringBuilder q = new StringBuilder("/?");
            filters.forEach((k, v) -> {
                if (!v.isEmpty()) q.append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)).append('&');
            });
            next = q.append("cursor=").append(page.next()).toString();
        }
        ctx.html(render("runs.jte", new RunsModel(filters, items, next, auth.required())));
    }

    /** TTFT p95 of each listed target's recent runs, oldest first (a target: model and URL). */
    private Map<String, List<Double>> sparklines(List<RunRow> rows) throws SQLException {
        Map<String, List<Double>> out = new LinkedHashMap<>();
        for (RunRow r : rows) {
            String key = target(r);
            if (out.containsKey(key)) continue;
            List<RunRow> recent = store.list(new RunFilter(r.model(), r.url(), null, List.of(), null, null, null,
                    SPARK_RUNS * 3)).stream().filter(x -> target(x).equals(key)).limit(SPARK_RUNS).toList();
            List<Double> values = new ArrayList<>();
            Map<String, RunViews.Headline> h = api.headlines(recent);
            for (RunRow x : recent.reversed()) {
                Double v = h.get(x.runId()).ttftP95Ms();
                if (v != null) values.add(v);
            }
            out.put(key, values);
        }
        return out;
    }

    private static String target(RunRow r) {
        return r.model() + " @ " + r.url();
    }

    /** Polyline points in a 100×24 box; empty below two values. */
    static String spark(List<Double> values) {
        if (values == null || values.size() < 2) return "";
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double span = max - min == 0 ? 1 : max - min;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            double x = 100.0 * i / (values.size() - 1);
            double y = 22 - 20 * (values.get(i) - min) / span;
            sb.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        return sb.toString().strip();
    }

    RunModel runModel(String id, boolean standalone) throws SQLException {
        StoredRun run = api.load(id);
        return new RunModel(run.row(), time(run.row().startedAt()),
                run.row().endedAt() == null ? "" : time(run.row().endedAt()), RunViews.tables(run),
                RunViews.environment(run), pretty(run.config()), scriptJson(ChartData.of(store, run)), standalone,
                standalone ? ReportPage.inlineCss() : "", standalone ? ReportPage.inlineJs() : "", auth.required(),
                api.queueReason(run.runId()), api.links(run.runId()), shardsModel(api.shards(run.runId())));
    }

    private static ShardsModel shardsModel(ShardsView v) {
        return v == null ? null : new ShardsModel(v.group(), v.members().size(), v.reasons(), v.table());
    }

    private void report(Context ctx) throws Exception {
        RunModel m = runModel(ctx.pathParam("id"), true);
        ctx.header("Content-Disposition", "inline; filename=\"" + m.row().runId() + "-report.html\"");
        ctx.header("Content-Security-Policy", RequestGuard.REPORT_POLICY);
        ctx.html(render("run.jte", m));
    }

    private void compare(Context ctx) throws Exception {
        RunComparison.Result r = api.comparison(ctx.queryParam("a"), ctx.queryParam("b"));
        Map<String, Table.Builder> byPoint = new LinkedHashMap<>();
        for (MetricDelta row : r.rows()) {
            Table.Builder t = byPoint.computeIfAbsent(row.point(), p -> new Table.Builder(p, 1, "Metric", "A", "B", "Δ",
                    "Δ%", "", "Spread"));
            t.row(row.metric(), num(row.a()), num(row.b()), RunComparisonReport.signed(row.delta()),
                    row.deltaPercent() == null ? "" : String.format(Locale.ROOT, "%+.1f%%", row.deltaPercent()),
                    row.verdict(), row.spread() == null ? "" : (row.inSpread() ? "~ within ±" : "beyond ±")
                            + num(row.spread()) + " (" + row.repeats() + " repeats)");
        }
        List<String> notes = new ArrayList<>();
        for (String u : r.unmatched()) notes.add("Not compared: " + u);
        boolean anySpread = r.rows().stream().anyMatch(x -> x.spread() != null);
        notes.add(anySpread ? "Spread = the range of the metric over " + (r.repeatsA() + r.repeatsB())
                + " other finished runs with the same configuration as A or B; a Δ within it may be noise."
                : "No run-to-run spread is known: the store holds fewer than two other finished runs of either "
                + "configuration. Repeat a run (same flags) to tell a real difference from noise.");
        Map<String, Object> charts = new LinkedHashMap<>();
        charts.put("a", ChartData.of(store, r.a()));
        charts.put("b", ChartData.of(store, r.b()));
        ctx.html(render("compare.jte", new CompareModel(r.a().row(), r.b().row(),
                byPoint.values().stream().map(Table.Builder::build).toList(), notes, scriptJson(charts),
                auth.required())));
    }

    private void login(Context ctx) {
        String token = ctx.formParam("token");
        if (!auth.required() || !auth.check(ctx.ip(), token)) {
            ctx.status(401).html(render("login.jte", new LoginModel(auth.required() ? "That is not the service's token."
                    : "This service needs no token.")));
            return;
        }
        ctx.header("Set-Cookie", auth.newSession());
        ctx.redirect("/", io.javalin.http.HttpStatus.SEE_OTHER);
    }

    /** Ends the browser's session (its cookie cleared, its id forgotten by the service): back to the login form. */
    private void logout(Context ctx) {
        ctx.header("Set-Cookie", auth.endSession(ctx));
        ctx.redirect(auth.required() ? "/login" : "/", io.javalin.http.HttpStatus.SEE_OTHER);
    }

    // ---- helpers ----------------------------------------------------------------------------------------

    private static String pretty(Object value) {
        try {
            return WebServer.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
