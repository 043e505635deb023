package io.unibench.web;

import static io.unibench.web.Html.nz;
import static io.unibench.web.Html.render;
import static io.unibench.web.Html.time;

import io.javalin.http.Context;
import io.unibench.BadInputException;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.AlertStore;
import io.unibench.schedule.Channel;
import io.unibench.schedule.Metric;
import io.unibench.schedule.OutboxStore;
import io.unibench.schedule.ScheduleService;
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
                Route.page("get", "/schedules", ctx -> ctx.html(render("schedules.jte", listModel(ctx.queryParam("removed"))))),
                Route.page("get", "/schedules/new", ctx -> ctx.html(render("schedule_form.jte", FormModel.blank()))),
                Route.page("post", "/schedules", ctx -> submit(ctx, null)),
                Route.page("get", "/schedules/{name}", this::page),
                Route.page("post", "/schedules/{name}", ctx -> submit(ctx, ctx.pathParam("name"))),
                Route.page("post", "/schedules/{name}/rules", this::submitRule),
                Route.page("post", "/schedules/{name}/rules/{rule}/remove", ctx -> {
                    schedules.removeRule(schedules.get(ctx.pathParam("name")).name(), ctx.pathParam("rule"));
                    ctx.redirect("/schedules/" + ctx.pathParam("name") + "#rules");
                }),
                Route.page("post", "/schedules/{name}/run", ctx -> {
                    Round r = api.runNow(ctx.pathParam("name"));
                    ctx.redirect("/schedules/" + r.schedule() + "?round=" + r.roundId() + "#rounds");
                }),
                Route.page("post", "/schedules/{name}/enable", ctx -> {
                    ctx.redirect("/schedules/" + api.setEnabled(ctx, true).name());
                }),
                Route.page("post", "/schedules/{name}/disable", ctx -> {
                    ctx.redirect("/schedules/" + api.setEnabled(ctx, false).name());
                }),
                Route.page("post", "/schedules/{name}/delete", ctx -> {
                    Schedule s = schedules.get(ctx.pathParam("name"));
                    schedules.remove(s.name());
                    ctx.redirect("/schedules?removed=" + s.name());
                }),
                Route.page("post", "/schedules/{name}/channels/{channel}/test", ctx -> {
                    OutboxStore.Entry e = api.sendTest(ctx.pathParam("name"), ctx.pathParam("channel"));
                    ctx.redirect("/schedules/" + e.message().schedule() + "?test=" + e.message().messageId()
                            + "#deliveries");
                }),
                Route.page("get", "/schedules/{name}/trend", this::trendPage)));
        return out;
    }

    /** The service's scheduler, which runs a round on Run now. */
    void attach(ScheduleService scheduler) {
        api.attach(scheduler);
    }

    // ---- pages ----------------------------------------------------------------------------------

    /**
     * @param state {@code firing}, {@code no_data}, {@code ok} or {@code new} ({@link ScheduleApi.State})
     */
    public record Row(String name, String when, boolean enabled, String next, String lastRound, String state,
                      int firing, int noData) {
        /** The state as the overview says it. */
        public String stateText() {
            return switch (state) {
                case "firing" -> "firing (" + firing + ")" + (noData > 0 ? " · no data (" + noData + ")" : "");
                case "no_data" -> "no data (" + noData + ")";
                case "ok" -> "ok";
                default -> "no round yet";
            };
        }
    }

    /** @param removed the schedule just deleted, or null */
    public record ListModel(List<Row> rows, String removed) {
        public long count(String state) {
            return rows.stream().filter(r -> r.state().equals(state)).count();
        }
    }

    /**
     * The create/edit form, with what was typed and the error when it was refused.
     *
     * @param defaultZone the zone a blank time zone means (the service's)
     */
    public record FormModel(boolean edit, String name, String document, String cron, String tz, String every,
                            String jitter, boolean enabled, String error, String defaultZone) {
        public FormModel(boolean edit, String name, String document, String cron, String tz, String every,
                         String jitter, boolean enabled, String error) {
            this(edit, name, document, cron, tz, every, jitter, enabled, error, java.time.ZoneId.systemDefault().getId());
        }

        /** A new schedule: the time zone field holds the zone its cron expression will be read in. */
        static FormModel blank() {
            return new FormModel(false, "", "", "0 2 * * *", java.time.ZoneId.systemDefault().getId(), "", "", true, null);
        }
    }

    /** A notify channel of the schedule, with its Send test. */
    public record ChannelRow(String name, String type, String language, String urlEnv, String secretEnv) {
        public String segment() {
            return java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
        }
    }

    /** One message of the delivery log, its attempts one a line. */
    public record DeliveryRow(String id, String created, String channel, String kind, String title, String status,
                              int attempts, String next, List<String> tries) {}

    /** What the action just done did (Run now, Send test): {@code ok} false says it did not work. */
    public record Flash(boolean ok, String text) {}

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
                            RuleEditor.Model ruleForm, List<ChannelRow> channels, List<DeliveryRow> deliveries,
                            Flash flash, String state) {}

    public record TrendModel(String schedule, String metric, List<String> metrics, String json) {}

    private ListModel listModel(String removed) throws SQLException {
        List<Row> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (Schedule s : schedules.list()) {
            List<Round> last = schedules.rounds(s.name(), 1);
            ScheduleApi.State st = api.state(s.name());
            out.add(new Row(s.name(), s.trigger().describe(), s.enabled(),
                    s.enabled() ? fireTime(s, s.trigger().nextAfter(now)) : "- (disabled)",
                    last.isEmpty() ? "-" : last.getFirst().status() + " · " + time(last.getFirst().dueAt()),
                    st.state(), st.firing(), st.noData()));
        }
        return new ListModel(out, removed != null && removed.matches("[A-Za-z0-9._-]{1,64}") ? removed : null);
    }

    /** A fire time as its cron expression means it: in the schedule's zone (an interval's in UTC). */
    private static String fireTime(Schedule s, long t) {
        return s.trigger() instanceof Trigger.Cron c ? io.unibench.schedule.Times.in(t, c.zone()) : time(t);
    }

    private void page(Context ctx) throws SQLException {
        Schedule s = schedules.get(ctx.pathParam("name"));
        PageModel m = pageModel(s, form(s, null), null);
        ctx.html(render("schedule.jte", withFlash(m, flash(s, ctx.queryParam("round"), ctx.queryParam("test")))));
    }

    private static PageModel withFlash(PageModel m, Flash f) {
        return new PageModel(m.name(), m.when(), m.enabled(), m.nextFires(), m.rules(), m.problem(), m.metrics(),
                m.rounds(), m.open(), m.incidents(), m.history(), m.form(), m.ruleForm(), m.channels(), m.deliveries(),
                f, m.state());
    }

    /** What Run now or Send test did, told on the page they return to. */
    private Flash flash(Schedule s, String roundId, String messageId) throws SQLException {
        if (roundId != null) {
            Round r;
            try {
                r = schedules.round(roundId);
            } catch (BadInputException | IllegalArgumentException | java.util.NoSuchElementException e) {
                return null;
            }
            if (r == null || !r.schedule().equals(s.name())) return null;
            if (r.status().equals(Round.SKIPPED)) return new Flash(false, "Run now: skipped, " + r.reason());
            return new Flash(true, "Run now: round " + r.roundId() + " " + r.status()
                    + (r.active() ? " (it runs as a run of the service's queue; reload to follow it)" : ""));
        }
        if (messageId != null) {
            OutboxStore.Message m = schedules.outbox().message(messageId);
            if (m == null || !m.schedule().equals(s.name())) return null;
            if (m.status().equals(OutboxStore.SENT)) {
                return new Flash(true, "Send test: the test message to " + m.channel().name() + " was delivered");
            }
            return new Flash(false, "Send test: the test message to " + m.channel().name() + " was not delivered: "
                    + m.lastError());
        }
        return null;
    }

    /** The schedule's page; {@code ruleForm} null: a blank rule editor. */
    private PageModel pageModel(Schedule s, FormModel form, RuleEditor.Model ruleForm) throws SQLException {
        List<String> next = new ArrayList<>();
        if (s.enabled()) for (long t : s.trigger().next(5, System.currentTimeMillis())) next.add(fireTime(s, t));
        Map<String, Metric> metricOf = new LinkedHashMap<>();
        List<ChannelRow> channelRows = new ArrayList<>();
        List<RuleRow> rules = new ArrayList<>();
        List<String> metrics = new ArrayList<>();
        List<String> channels = new ArrayList<>();
        String problem = null;
        Map<String, String> added = schedules.rules(s.name());
        try {
            AlertsDocument a = ScheduleDocument.alerts(s, added);
            channels.addAll(a.channels().keySet());
            for (Channel c : a.channels().values()) {
                channelRows.add(new ChannelRow(c.name(), c.type().id(), c.language(), c.urlEnv(), c.secretEnv()));
            }
            for (AlertRule r : a.rules()) {
                metricOf.put(r.name(), r.metric());
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
                    i.open() ? "open" : time(i.resolvedAt()), valued(metricOf.get(i.rule()), i.worstValue()));
            incidents.add(row);
            if (i.open()) open.add(row);
        }
        List<EventRow> history = new ArrayList<>();
        for (AlertStore.HistoryEvent e : schedules.alerts().events(s.name()).reversed()) {
            if (history.size() == 50) break;
            history.add(new EventRow(time(e.at()), e.kind(), e.rule(), Target.display(e.target()),
                    valued(metricOf.get(e.rule()), e.value()), runsOfRound.getOrDefault(e.roundId(), List.of())));
        }
        List<DeliveryRow> deliveries = new ArrayList<>();
        for (OutboxStore.Entry e : schedules.outbox().log(s.name(), 50)) {
            OutboxStore.Message m = e.message();
            List<String> tries = new ArrayList<>();
            for (OutboxStore.Delivery d : e.attempts()) {
                tries.add("#" + d.attempt() + " " + time(d.at()) + " · " + (d.httpStatus() != null ? "HTTP " + d.httpStatus()
                        + " · " : "") + d.outcome() + (d.detail() != null ? ": " + d.detail() : ""));
            }
            deliveries.add(new DeliveryRow(m.messageId(), time(m.createdAt()), m.channel().name() + " ("
                    + m.channel().type().id() + ", " + m.channel().language() + ")", m.notice().kind(),
                    m.notice().title(), m.status(), m.attempts(),
                    m.status().equals(OutboxStore.PENDING) ? time(m.nextAttemptAt()) : null, tries));
        }
        return new PageModel(s.name(), s.trigger().describe(), s.enabled(), next, rules, problem, metrics, rounds, open,
                incidents, history, form, ruleForm == null ? RuleEditor.blank(channels) : ruleForm, channelRows,
                deliveries, null, api.state(s.name()).state());
    }

    /** {@code TTFT p95 1,012.9 ms}: a rule's value with its metric and unit (a bare number when the rule is gone). */
    static String valued(Metric m, Double v) {
        if (v == null) return "no data";
        if (m == null) return Numbers.format(v);
        return m.display("en") + " " + Numbers.withUnit(v, m.unit(), "no data");
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
