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
import io.unibench.schedule.Target;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Trends;
import io.unibench.schedule.Trigger;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Schedules in the service: the pages (list, create/edit with cron validation and the next five fire times, a
 * schedule's rules with the rule editor, open incidents, alert history and rounds, a metric's trend per target with
 * threshold lines and fired/resolved marks) and, through {@link ScheduleApi}, the REST API. Over its own connection
 * to the run database; the service's scheduler sees a new or edited schedule at its next look (within 30 s).
 */
public final class SchedulePages implements AutoCloseable {
    private final ScheduleStore schedules;
    private final RunStore runs;
    private final ScheduleApi api;

    private SchedulePages(ScheduleStore schedules, RunStore runs, RunService service) {
        this.schedules = schedules;
        this.runs = runs;
        this.api = new ScheduleApi(schedules, runs, service);
    }

    /** Over a connection of its own to the run database; documents are checked against the service's environment. */
    static SchedulePages open(StoreLocation location, RunStore runs, RunService service) {
        try {
            return new SchedulePages(ScheduleStore.open(location), runs, service);
        } catch (SQLException e) {
            throw new IllegalStateException("the schedules of " + location.display() + " cannot be opened: "
                    + StoreLocation.mask(String.valueOf(e.getMessage())), e);
        }
    }

    /** The API's routes and the pages'. */
    List<Route> routes() {
        List<Route> out = new ArrayList<>(api.routes());
        out.addAll(List.of(
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
                Route.page("get", "/schedules/{name}/trend", this::trendPage)));
        return out;
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
            IncidentRow row = new IncidentRow(i.rule(), Target.display(i.target()), i.kind(), time(i.openedAt()),
                    i.open() ? "open" : time(i.resolvedAt()), Numbers.format(i.worstValue()));
            incidents.add(row);
            if (i.open()) open.add(row);
        }
        List<EventRow> history = new ArrayList<>();
        for (AlertStore.HistoryEvent e : schedules.alerts().events(s.name()).reversed()) {
            if (history.size() == 50) break;
            history.add(new EventRow(time(e.at()), e.kind(), e.rule(), Target.display(e.target()), Numbers.format(e.value()),
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
            api.putRule(s, RuleEditor.json(values, notify));
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
            Schedule s = api.store(f, name != null);
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
