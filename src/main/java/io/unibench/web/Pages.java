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
                           RunLinks links, ShardsModel shards, Headline headline, Failure failure) {
        /** Something was measured: the charts and tables have something to draw. */
        public boolean measured() {
            return !tables.isEmpty();
        }
    }

    /** A figure of the finished run's headline; {@code note} says what it covers (may be empty). */
    public record Tile(String label, String value, String note) {}

    /** The finished run's headline tiles; {@code point} the label of the point they show, or null (a single point). */
    public record Headline(String point, List<Tile> tiles) {}

    /** Why a run ended without its report and what to do (the page's words, never a command-line flag). */
    public record Failure(String title, String reason, List<String> advice) {}

    /** The Shards tab: the table, and the partial marker's reasons (empty when the merge is whole). */
    public record ShardsModel(String group, int count, List<String> partialReasons, Table table) {}

    /** A run compared with the baseline, and its letter (B, C, …). */
    /** @param target {@code model @ url}, or the tool an imported run without a URL came from */
    public record CompareRun(String key, RunRow row, String target) {}

    /** The compare page: the baseline {@code a}, the other runs, one table per shared level, notes, the method. */
    public record CompareModel(RunRow a, String aTarget, List<CompareRun> others, List<Table> tables, List<String> notes,
                               String method, String chartJson, boolean loggedIn, Fingerprints fingerprints) {}

    /**
     * The runs' workload fingerprints side by side (one row per field, {@code differing} the fields a refusal names),
     * why a verdict is refused (per run: "B: …"), whether the verdicts were forced, and the link that forces them.
     */
    public record Fingerprints(Table table, List<String> differing, List<String> refusals, boolean forced,
                               String forceUrl) {}

    public record LoginModel(String error) {}

    /** A page route's error as a page: a browser that follows a link or submits a form gets words, not JSON. */
    /** @param link a page of the service the error points to (the run a file was imported as), or null */
    public record ErrorModel(int status, String message, String link) {
        public ErrorModel(int status, String message) {
            this(status, message, null);
        }

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
                api.queueReason(run.runId()), api.links(run.runId()), shardsModel(api.shards(run.runId())),
                run.row().active() ? null : RunViews.headline(run), RunViews.failure(run.row()));
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
        RunComparison.Result r = api.comparison(ctx.queryParam("a"), ctx.queryParams("b"),
                "true".equals(ctx.queryParam("force")));
        List<RunComparisonReport.Side> sides = new ArrayList<>();
        List<CompareRun> others = new ArrayList<>();
        List<Object> chartRuns = new ArrayList<>();
        chartRuns.add(ChartData.of(store, r.baseline()));
        char key = 'B';
        for (RunComparison.Pair p : r.pairs()) {
            String k = String.valueOf(key++);
            sides.add(new RunComparisonReport.Side(k, p.candidate().label(), p.rows(), p.onlyBaseline(),
                    p.onlyCandidate()));
            others.add(new CompareRun(k, p.candidate().row(), p.candidate().target()));
            chartRuns.add(ChartData.of(store, p.candidate()));
        }
        List<Table> tables = new ArrayList<>();
        for (RunComparisonReport.Grid g : RunComparisonReport.grids(sides)) {
            List<Boolean> numeric = new ArrayList<>();
            for (int i = 0; i < g.header().size(); i++) numeric.add(i > 0);
            tables.add(new Table(g.title(), g.header(), numeric, g.rows()));
        }
        Map<String, Object> charts = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>(List.of("A"));
        others.forEach(o -> keys.add(o.key()));
        charts.put("keys", keys);
        charts.put("runs", chartRuns);
        ctx.html(render("compare.jte", new CompareModel(r.baseline().row(), r.baseline().target(), others, tables,
                RunComparisonReport.notes(sides), RunComparison.METHOD, scriptJson(charts), auth.required(),
                fingerprints(ctx, r))));
    }

    /** The compare page's fingerprint table: field, A, B, …; and the refusals with the link that overrides them. */
    private static Fingerprints fingerprints(Context ctx, RunComparison.Result r) {
        Map<String, Object> base = io.unibench.store.RunFingerprints.of(r.baseline()).toMap();
        List<Map<String, Object>> others = r.pairs().stream().map(p -> p.fingerprint().toMap()).toList();
        List<String> header = new ArrayList<>(List.of("Field", "A"));
        List<String> refusals = new ArrayList<>();
        // highlighted: the fields the guard refuses on (its own decision), not every text that differs (a tool's name,
        // a seed, or what a server's usage falls back to refuse nothing)
        List<String> differing = new ArrayList<>();
        char key = 'B';
        for (RunComparison.Pair p : r.pairs()) {
            String k = String.valueOf(key++);
            header.add(k);
            for (var refusal : p.refusals()) {
                refusals.add(k + ": " + refusal.why());
                if (!differing.contains(refusal.field())) differing.add(refusal.field());
            }
        }
        List<List<String>> rows = new ArrayList<>();
        for (String field : base.keySet()) {
            List<String> row = new ArrayList<>(List.of(field, shown(base.get(field))));
            for (Map<String, Object> o : others) row.add(shown(o.get(field)));
            rows.add(row);
        }
        List<Boolean> numeric = header.stream().map(h -> false).toList();
        boolean forced = r.pairs().stream().anyMatch(RunComparison.Pair::forced);
        StringBuilder url = new StringBuilder("/compare?a=").append(enc(ctx.queryParam("a")));
        for (String b : ctx.queryParams("b")) url.append("&b=").append(enc(b));
        url.append("&force=true");
        return new Fingerprints(new Table("Workload fingerprints", header, numeric, rows), differing, refusals, forced,
                url.toString());
    }

    private static String shown(Object v) {
        return v == null ? "not known" : v.toString();
    }

    private static String enc(String v) {
        return java.net.URLEncoder.encode(v == null ? "" : v, java.nio.charset.StandardCharsets.UTF_8);
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

    /**
     * The icon ({@code static/favicon.svg}), also answered at {@code /favicon.ico}: what a browser asks for on a page
     * that names none (the JSON and text answers).
     */
    static byte[] favicon() throws java.io.IOException {
        try (var in = Pages.class.getResourceAsStream("/io/unibench/web/static/favicon.svg")) {
            return in.readAllBytes();
        }
    }

    private static String pretty(Object value) {
        try {
            return WebServer.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
