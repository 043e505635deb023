package io.unibench.web;

import static io.unibench.web.Html.nz;
import static io.unibench.web.Html.render;
import static io.unibench.web.Html.time;

import io.javalin.http.Context;
import io.unibench.BadInputException;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.AlertStore;
import io.unibench.schedule.AlertsDocument;
import io.unibench.schedule.Durations;
import io.unibench.schedule.Incident;
import io.unibench.schedule.Numbers;
import io.unibench.schedule.Round;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Trends;
import io.unibench.schedule.Trigger;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Schedules in the service: the REST API ({@code /api/schedules}, {@code /api/cron}, {@code /api/trends}) and the
 * pages (list, create/edit with cron validation and the next five fire times, a schedule's rounds and alerts, a
 * metric's trend per target with threshold lines and fired/resolved marks). Over its own connection to the run
 * database; the service's scheduler sees a new or edited schedule at its next look (within 30 s).
 */
public final class SchedulePages implements AutoCloseable {
    private final ScheduleStore schedules;
    private final RunStore runs;
    private final Map<String, String> env;

    private SchedulePages(ScheduleStore schedules, RunStore runs, Map<String, String> env) {
        this.schedules = schedules;
        this.runs = runs;
        this.env = env;
    }

    /** Over a connection of its own to the run database; documents are checked against the service's environment. */
    static SchedulePages open(StoreLocation location, RunStore runs, Map<String, String> env) {
        try {
            return new SchedulePages(ScheduleStore.open(location), runs, env);
        } catch (SQLException e) {
            throw new IllegalStateException("the schedules of " + location.display() + " cannot be opened: "
                    + StoreLocation.mask(String.valueOf(e.getMessage())), e);
        }
    }

    List<Route> routes() {
        return List.of(
                Route.api("get", "/api/schedules", "The schedules: when, enabled, next fire time.", "application/json",
                        ctx -> WebServer.json(ctx, list())),
                Route.api("post", "/api/schedules", "Create a schedule: {name, document, document_name, cron, tz | every, "
                        + "jitter, enabled}; the document is checked as `unibench run --config --check` checks it.",
                        "application/json", ctx -> WebServer.json(ctx.status(201), detail(save(ctx, null)))),
                Route.api("get", "/api/schedules/{name}", "A schedule: next five fire times, rules, rounds, incidents.",
                        "application/json", ctx -> WebServer.json(ctx, detail(schedules.get(ctx.pathParam("name"))))),
                Route.api("put", "/api/schedules/{name}", "Replace a schedule's document and timing (same body as POST).",
                        "application/json", ctx -> WebServer.json(ctx, detail(save(ctx, ctx.pathParam("name"))))),
                Route.api("delete", "/api/schedules/{name}", "Remove a schedule (its runs stay in the history).",
                        "application/json", ctx -> {
                            schedules.remove(ctx.pathParam("name"));
                            WebServer.json(ctx, Map.of("removed", ctx.pathParam("name")));
                        }),
                Route.api("post", "/api/schedules/{name}/rules", "Add an alert rule to a schedule: an alerts: entry "
                        + "as JSON, naming the document's notify channels.", "application/json", this::addRule),
                Route.api("delete", "/api/schedules/{name}/rules/{rule}", "Remove a rule added to a schedule.",
                        "application/json", ctx -> WebServer.json(ctx, Map.of("removed",
                                schedules.removeRule(ctx.pathParam("name"), ctx.pathParam("rule"))))),
                Route.api("get", "/api/cron", "Check a cron expression: its next five fire times, or 400 with why.",
                        "application/json", this::cron, Route.required("expr", "five-field cron expression"),
                        Route.param("tz", "time zone (default: the service's)")),
                Route.api("get", "/api/trends", "A metric of a schedule's rounds over time, per target, with the rules' "
                        + "thresholds and fired/resolved marks.", "application/json",
                        ctx -> WebServer.json(ctx, trend(ctx)), Route.required("schedule", "schedule name"),
                        Route.required("metric", "metric short name, e.g. ttft_p95_ms"),
                        Route.param("error_class", "with error_rate: one error class"),
                        Route.param("rounds", "newest rounds read (default 200)")),
                Route.page("get", "/schedules", ctx -> ctx.html(render("schedules.jte", new ListModel(rows())))),
                Route.page("get", "/schedules/new", ctx -> ctx.html(render("schedule_form.jte", FormModel.blank()))),
                Route.page("post", "/schedules", ctx -> submit(ctx, null)),
                Route.page("get", "/schedules/{name}", this::page),
                Route.page("post", "/schedules/{name}", ctx -> submit(ctx, ctx.pathParam("name"))),
                Route.page("post", "/schedules/{name}/rules", this::submitRule),
                Route.page("post", "/schedules/{name}/rules/{rule}/remove", ctx -> {
                    schedules.removeRule(schedules.get(ctx.pathParam("name")).name(), ctx.pathParam("rule"));
                    ctx.redirect("/schedules/" + ctx.pathParam("name") + "#rules");
                }),
                Route.page("get", "/schedules/{name}/trend", this::trendPage));
    }

    // ---- API ------------------------------------------------------------------------------------

    private List<Map<String, Object>> list() throws SQLException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Schedule s : schedules.list()) out.add(summary(s));
        return out;
    }

    private static Map<String, Object> summary(Schedule s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("when", s.trigger().describe());
        if (s.trigger() instanceof Trigger.Cron c) {
            m.put("cron", c.expression());
            m.put("tz", c.zone().getId());
        } else {
            m.put("every", Durations.format(((Trigger.Every) s.trigger()).interval()));
        }
        m.put("jitter", Durations.format(s.jitter()));
        m.put("enabled", s.enabled());
        m.put("next_fire_at", s.enabled() ? s.trigger().nextAfter(System.currentTimeMillis()) : null);
        m.put("document_name", s.documentName());
        return m;
    }

    private Map<String, Object> detail(Schedule s) throws SQLException {
        Map<String, Object> m = summary(s);
        m.put("next_fire_times", s.trigger().next(5, System.currentTimeMillis()));
        m.put("document", s.document());
        m.put("rules", schedules.rules(s.name()));
        m.put("rounds", schedules.rounds(s.name(), 50));
        m.put("incidents", schedules.alerts().incidents(s.name(), 50));
        return m;
    }

    /** POST/PUT body → a checked, stored schedule ({@code name} null: create). */
    private Schedule save(Context ctx, String name) throws Exception {
        Map<?, ?> body = WebServer.JSON.readValue(ctx.body(), Map.class);
        Map<String, String> f = new LinkedHashMap<>();
        body.forEach((k, v) -> f.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
        if (name != null) f.put("name", name);
        return store(f, name != null);
    }

    private Schedule store(Map<String, String> f, boolean edit) throws SQLException {
        String name = f.getOrDefault("name", "");
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new BadInputException("name '" + name + "': use 1-64 letters, digits, '.', '_' or '-'");
        }
        String doc = f.get("document");
        if (doc == null || doc.isBlank()) throw new BadInputException("document: the scenario file's text is required");
        String fileName = blank(f.get("document_name")) ? name + ".yaml" : f.get("document_name");
        ScheduleDocument.check(fileName, doc, env);
        long now = System.currentTimeMillis();
        Trigger t;
        if (!blank(f.get("cron")) == !blank(f.get("every"))) throw new BadInputException("give exactly one of cron and every");
        t = !blank(f.get("cron")) ? Trigger.cron(f.get("cron"), f.get("tz"), "cron")
                : Trigger.every(Durations.parse(f.get("every"), "every"), now, "every");
        Duration jitter = blank(f.get("jitter")) ? Duration.ZERO : Durations.parse(f.get("jitter"), "jitter");
        boolean enabled = f.get("enabled") == null || Boolean.parseBoolean(f.get("enabled")) || "on".equals(f.get("enabled"));
        if (edit) {
            Schedule old = schedules.get(name);
            schedules.update(new Schedule(name, doc, fileName, t, jitter, enabled, null, null, old.createdAt(), now));
        } else {
            schedules.add(new Schedule(name, doc, fileName, t, jitter, enabled, null, null, now, now));
        }
        return schedules.get(name);
    }

    private void addRule(Context ctx) throws Exception {
        Schedule s = schedules.get(ctx.pathParam("name"));
        AlertRule rule = putRule(s, ctx.body());
        WebServer.json(ctx.status(201), Map.of("schedule", s.name(), "rule", rule.name(), "condition", rule.condition()));
    }

    /** One rule added to the schedule (its alerts: entry as JSON), checked against the document and the service's environment. */
    private AlertRule putRule(Schedule s, String json) throws SQLException {
        AlertRule rule = ScheduleDocument.checkRule(s, json, env);
        schedules.putRule(s.name(), rule.name(), json);
        return rule;
    }

    private void cron(Context ctx) throws Exception {
        Trigger.Cron c = Trigger.cron(ctx.queryParam("expr"), ctx.queryParam("tz"), "expr");
        List<String> next = new ArrayList<>();
        for (long t : c.next(5, System.currentTimeMillis())) next.add(io.unibench.schedule.Times.in(t, c.zone()));
        WebServer.json(ctx, Map.of("expr", c.expression(), "tz", c.zone().getId(), "next", next));
    }

    private Trends.Trend trend(Context ctx) throws SQLException {
        String schedule = ctx.queryParam("schedule");
        String metric = ctx.queryParam("metric");
        if (blank(schedule) || blank(metric)) throw new ApiError(400, "schedule and metric are required");
        int rounds = parseRounds(ctx.queryParam("rounds"));
        return Trends.of(schedules, runs, schedule, metric, ctx.queryParam("error_class"), rounds);
    }

    private static int parseRounds(String v) {
        if (blank(v)) return 200;
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 1 && n <= 5000) return n;
        } catch (NumberFormatException ignored) {
            // the message below
        }
        throw new ApiError(400, "rounds '" + v + "': must be a whole number 1-5000");
    }

    // ---- pages ----------------------------------------------------------------------------------

    public record Row(String name, String when, boolean enabled, String next, String lastRound) {}

    public record ListModel(List<Row> rows) {}

    /** The create/edit form, with what was typed and the error when it was refused. */
    public record FormModel(boolean edit, String name, String document, String cron, String tz, String every,
                            String jitter, boolean enabled, String error) {
        static FormModel blank() {
            return new FormModel(false, "", "", "0 2 * * *", "", "", "", true, null);
        }
    }

    public record RoundRow(String due, String status, String trigger, String reason, List<String> runIds) {}

    public record IncidentRow(String rule, String target, String kind, String opened, String resolved, String worst) {}

    /** @param added added to the schedule (UI/API), so it can be removed here; else from the document */
    public record RuleRow(String name, String text, boolean added) {
        /** The rule's name as one path segment (names are free text). */
        public String segment() {
            return java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
        }
    }

    /** One entry of the alert history, with the runs of its round. */
    public record EventRow(String at, String kind, String rule, String target, String value, List<String> runIds) {}

    /**
     * @param problem why the rules cannot be read (null when they can)
     * @param open    the open incidents; {@code incidents}: every incident, newest first
     */
    public record PageModel(String name, String when, boolean enabled, List<String> nextFires, List<RuleRow> rules,
                            String problem, List<String> metrics, List<RoundRow> rounds, List<IncidentRow> open,
                            List<IncidentRow> incidents, List<EventRow> history, FormModel form,
                            RuleEditor.Model ruleForm) {}

    public record TrendModel(String schedule, String metric, List<String> metrics, String json) {}

    private List<Row> rows() throws SQLException {
        List<Row> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (Schedule s : schedules.list()) {
            List<Round> last = schedules.rounds(s.name(), 1);
            out.add(new Row(s.name(), s.trigger().describe(), s.enabled(),
                    s.enabled() ? fireTime(s, s.trigger().nextAfter(now)) : "-",
                    last.isEmpty() ? "-" : last.getFirst().status() + " · " + time(last.getFirst().dueAt())));
        }
        return out;
    }

    /** A fire time as its cron expression means it: in the schedule's zone (an interval's in UTC). */
    private static String fireTime(Schedule s, long t) {
        return s.trigger() instanceof Trigger.Cron c ? io.unibench.schedule.Times.in(t, c.zone()) : time(t);
    }

    private void page(Context ctx) throws SQLException {
        Schedule s = schedules.get(ctx.pathParam("name"));
        ctx.html(render("schedule.jte", pageModel(s, form(s, null), null)));
    }

    /** The schedule's page; {@code ruleForm} null: a blank rule editor. */
    private PageModel pageModel(Schedule s, FormModel form, RuleEditor.Model ruleForm) throws SQLException {
        List<String> next = new ArrayList<>();
        for (long t : s.trigger().next(5, System.currentTimeMillis())) next.add(fireTime(s, t));
        List<RuleRow> rules = new ArrayList<>();
        List<String> metrics = new ArrayList<>();
        List<String> channels = new ArrayList<>();
        String problem = null;
        Map<String, String> added = schedules.rules(s.name());
        try {
            AlertsDocument a = ScheduleDocument.alerts(s, added);
            channels.addAll(a.channels().keySet());
            for (AlertRule r : a.rules()) {
                rules.add(new RuleRow(r.name(), r.name() + ": " + r.condition() + " for " + r.forRounds() + " round(s)"
                        + (r.channels().isEmpty() ? "" : " → " + String.join(", ", r.channels())), added.containsKey(r.name())));
                if (!metrics.contains(r.metric().name())) metrics.add(r.metric().name());
            }
        } catch (BadInputException e) {
            problem = "cannot be read: " + e.getMessage();
        }
        for (String m : List.of("ttft_p95_ms", "latency_p95_s", "success_rate", "output_tps")) {
            if (!metrics.contains(m)) metrics.add(m);
        }
        List<Round> stored = schedules.rounds(s.name(), 50);
        Map<String, List<String>> runsOfRound = new LinkedHashMap<>();
        List<RoundRow> rounds = new ArrayList<>();
        for (Round r : stored) {
            runsOfRound.put(r.roundId(), r.runIds());
            rounds.add(new RoundRow(time(r.dueAt()), r.status(), r.trigger(), r.reason(), r.runIds()));
        }
        List<IncidentRow> incidents = new ArrayList<>();
        List<IncidentRow> open = new ArrayList<>();
        for (Incident i : schedules.alerts().incidents(s.name(), 50)) {
            IncidentRow row = new IncidentRow(i.rule(), i.target(), i.kind(), time(i.openedAt()),
                    i.open() ? "open" : time(i.resolvedAt()), Numbers.format(i.worstValue()));
            incidents.add(row);
            if (i.open()) open.add(row);
        }
        List<EventRow> history = new ArrayList<>();
        for (AlertStore.HistoryEvent e : schedules.alerts().events(s.name()).reversed()) {
            if (history.size() == 50) break;
            history.add(new EventRow(time(e.at()), e.kind(), e.rule(), e.target(), Numbers.format(e.value()),
                    runsOfRound.getOrDefault(e.roundId(), List.of())));
        }
        return new PageModel(s.name(), s.trigger().describe(), s.enabled(), next, rules, problem, metrics, rounds, open,
                incidents, history, form, ruleForm == null ? RuleEditor.blank(channels) : ruleForm);
    }

    /** The rule editor's form: stored as the API stores a rule, or the page again with the refusal beside its field. */
    private void submitRule(Context ctx) throws SQLException {
        Schedule s = schedules.get(ctx.pathParam("name"));
        Map<String, String> values = new LinkedHashMap<>();
        for (String k : RuleEditor.TEXT) values.put(k, nz(ctx.formParam(k)));
        for (String k : RuleEditor.NUMBERS) values.put(k, nz(ctx.formParam(k)));
        values.put("form", nz(ctx.formParam("form")));
        List<String> notify = ctx.formParams("notify");
        try {
            putRule(s, RuleEditor.json(values, notify));
            ctx.redirect("/schedules/" + s.name() + "#rules");
        } catch (BadInputException e) {
            PageModel blank = pageModel(s, form(s, null), null);
            ctx.status(400).html(render("schedule.jte", pageModel(s, form(s, null), new RuleEditor.Model(values,
                    notify, RuleEditor.errors(e), blank.ruleForm().channels()))));
        }
    }

    private static FormModel form(Schedule s, String error) {
        String cron = "";
        String tz = "";
        String every = "";
        if (s.trigger() instanceof Trigger.Cron c) {
            cron = c.expression();
            tz = c.zone().getId();
        } else {
            every = Durations.format(((Trigger.Every) s.trigger()).interval());
        }
        return new FormModel(true, s.name(), s.document(), cron, tz, every,
                s.jitter().isZero() ? "" : Durations.format(s.jitter()), s.enabled(), error);
    }

    private void submit(Context ctx, String name) throws SQLException {
        Map<String, String> f = new LinkedHashMap<>();
        for (String k : List.of("name", "document", "cron", "tz", "every", "jitter")) f.put(k, ctx.formParam(k));
        f.put("enabled", String.valueOf(ctx.formParam("enabled") != null));
        if (name != null) f.put("name", name);
        if ("cron".equals(ctx.formParam("when"))) f.put("every", null);
        else if ("every".equals(ctx.formParam("when"))) f.put("cron", null);
        try {
            Schedule s = store(f, name != null);
            ctx.redirect("/schedules/" + s.name());
        } catch (BadInputException e) {
            FormModel form = new FormModel(name != null, nz(f.get("name")), nz(f.get("document")), nz(f.get("cron")),
                    nz(f.get("tz")), nz(f.get("every")), nz(f.get("jitter")), Boolean.parseBoolean(f.get("enabled")),
                    e.getMessage());
            ctx.status(400);
            if (name == null) ctx.html(render("schedule_form.jte", form));
            else ctx.html(render("schedule.jte", pageModel(schedules.get(name), form, null)));
        }
    }

    private void trendPage(Context ctx) throws Exception {
        Schedule s = schedules.get(ctx.pathParam("name"));
        String metric = blank(ctx.queryParam("metric")) ? "ttft_p95_ms" : ctx.queryParam("metric");
        Trends.Trend t = Trends.of(schedules, runs, s.name(), metric, ctx.queryParam("error_class"), 200);
        ctx.html(render("trend.jte", new TrendModel(s.name(), t.metric(), pageModel(s, null, null).metrics(),
                Html.scriptJson(t))));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    @Override
    public void close() {
        try {
            schedules.close();
        } catch (SQLException ignored) {
            // stopping
        }
    }
}
