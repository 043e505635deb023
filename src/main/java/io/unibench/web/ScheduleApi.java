package io.unibench.web;

import io.javalin.http.Context;
import io.unibench.BadInputException;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.Durations;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Trends;
import io.unibench.schedule.Trigger;
import io.unibench.store.RunStore;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The schedules' REST API: {@code /api/schedules} (create, edit, remove, a schedule's rules), {@code /api/cron} and
 * {@code /api/trends}. Creating, editing and adding a rule are checked here once, for the API and the pages
 * ({@link SchedulePages}) alike: the document as {@code unibench run --config --check} checks it, against the
 * service's environment.
 */
final class ScheduleApi {
    private final ScheduleStore schedules;
    private final RunStore runs;
    private final Map<String, String> env;

    private final RunService service;

    ScheduleApi(ScheduleStore schedules, RunStore runs, RunService service) {
        this.service = service;
        this.schedules = schedules;
        this.runs = runs;
        this.env = service.environment();
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
                        Route.param("rounds", "newest rounds read (default 200)")));
    }

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

    /** A form or body (name, document, cron/tz or every, jitter, enabled) → a checked, stored schedule. */
    Schedule store(Map<String, String> f, boolean edit) throws SQLException {
        String name = f.getOrDefault("name", "");
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new BadInputException("name '" + name + "': use 1-64 letters, digits, '.', '_' or '-'");
        }
        String doc = f.get("document");
        if (doc == null || doc.isBlank()) throw new BadInputException("document: the scenario file's text is required");
        String fileName = blank(f.get("document_name")) ? name + ".yaml" : f.get("document_name");
        ScheduleDocument.check(fileName, doc, env);
        try { // the rules of a run of the service: the keys it may send, the limits of one run
            ScenarioDocument.parse(fileName, "application/yaml", doc.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    service);
        } catch (ScenarioDocument.Invalid e) {
            throw new BadInputException("document: " + e.getMessage());
        }
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
    AlertRule putRule(Schedule s, String json) throws SQLException {
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

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
