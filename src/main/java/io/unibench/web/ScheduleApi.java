package io.unibench.web;

import io.javalin.http.Context;
import io.unibench.BadInputException;
import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.scenario.LocatedYaml;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.Channel;
import io.unibench.schedule.Incident;
import io.unibench.schedule.Notifier;
import io.unibench.schedule.OutboxStore;
import io.unibench.schedule.Round;
import io.unibench.schedule.ScheduleService;
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
    /** What a schedule's document is checked against: the keys a run may send and the channels' variables. */
    private final Map<String, String> env;
    private final RunService service;
    private final Notifier tests; // channels' test messages, sent at once
    private volatile ScheduleService scheduler; // Run now; null until the service's scheduler is attached

    ScheduleApi(ScheduleStore schedules, RunStore runs, RunService service) {
        this.service = service;
        this.schedules = schedules;
        this.runs = runs;
        Map<String, String> allowed = new LinkedHashMap<>(service.keyEnvironment());
        allowed.putAll(service.channelEnvironment());
        this.env = Map.copyOf(allowed);
        this.tests = new Notifier(schedules.outbox(), service.channelEnvironment(), System::currentTimeMillis,
                Notifier.http(Duration.ofSeconds(10)), service.channels()::allows, channelHint(service));
    }

    static String channelHint(RunService service) {
        return "serve --allow-channel-env: " + service.channels();
    }

    /** The service's scheduler, which runs a round on Run now. */
    void attach(ScheduleService scheduler) {
        this.scheduler = scheduler;
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
                Route.api("post", "/api/schedules/{name}/run", "Run a round now (trigger manual), enabled or not: "
                        + "202 with the queued round, or 409 with why it was skipped (a round is queued or running).",
                        "application/json", ctx -> {
                            Round r = runNow(ctx.pathParam("name"));
                            WebServer.json(ctx.status(r.status().equals(Round.SKIPPED) ? 409 : 202), r);
                        }).with(202, List.of()),
                Route.api("post", "/api/schedules/{name}/enable", "Enable a schedule: it fires again at its next fire "
                        + "time.", "application/json", ctx -> WebServer.json(ctx, summary(setEnabled(ctx, true)))),
                Route.api("post", "/api/schedules/{name}/disable", "Disable a schedule: no round fires until it is "
                        + "enabled (Run now still runs one).", "application/json",
                        ctx -> WebServer.json(ctx, summary(setEnabled(ctx, false)))),
                Route.api("post", "/api/schedules/{name}/channels/{channel}/test", "Send a test message through one "
                        + "of the schedule's notify channels now (once, not retried); the message with its attempt, "
                        + "as the delivery log shows it.", "application/json",
                        ctx -> WebServer.json(ctx, entry(sendTest(ctx.pathParam("name"), ctx.pathParam("channel"))))),
                Route.api("get", "/api/schedules/{name}/deliveries", "The schedule's delivery log: its newest "
                        + "notices per channel, each with every attempt (failures, retries, given up).",
                        "application/json", ctx -> WebServer.json(ctx, deliveries(schedules.get(ctx.pathParam("name")),
                                parseRounds(ctx.queryParam("limit"), 50, 500, "limit"))),
                        Route.param("limit", "newest messages (default 50, at most 500)")),
                Route.api("post", "/api/schedules/{name}/rules", "Add an alert rule to a schedule: an alerts: entry "
                        + "as JSON, naming the document's notify channels.", "application/json", this::addRule),
                Route.api("delete", "/api/schedules/{name}/rules/{rule}", "Remove a rule added to a schedule.",
                        "application/json", ctx -> WebServer.json(ctx, Map.of("removed",
                                schedules.removeRule(ctx.pathParam("name"), ctx.pathParam("rule"))))),
                Route.api("get", "/api/cron", "Check a cron expression: its next five fire times, or 400 with why.",
                        "application/json", this::cron, Route.required("expr", "five-field cron expression"),
                        Route.param("tz", "time zone (default: the service's, " + java.time.ZoneId.systemDefault().getId()
                                + ")")),
                Route.api("get", "/api/trends", "A metric of a schedule's rounds over time, per target, with the rules' "
                        + "thresholds and fired/resolved marks.", "application/json",
                        ctx -> WebServer.json(ctx, trend(ctx)), Route.required("schedule", "schedule name"),
                        Route.required("metric", "metric short name, e.g. ttft_p95_ms"),
                        Route.param("error_class", "with error_rate: one error class"),
                        Route.param("rounds", "newest rounds read (default 200)")));
    }

    private List<Map<String, Object>> list() throws SQLException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Schedule s : schedules.list()) {
            Map<String, Object> m = summary(s);
            State st = state(s.name());
            m.put("state", st.state());
            m.put("firing", st.firing());
            m.put("no_data", st.noData());
            out.add(m);
        }
        return out;
    }

    /**
     * Where a schedule stands: {@code firing} (an incident of a rule is open), {@code no_data} (only no-data ones),
     * {@code ok} (a round ended, nothing open) or {@code new} (no round ended yet); with the open incidents' counts.
     */
    record State(String state, int firing, int noData) {}

    State state(String schedule) throws SQLException {
        int firing = 0;
        int noData = 0;
        for (Incident i : schedules.alerts().incidents(schedule, 500)) {
            if (!i.open()) continue;
            if (i.kind().equals(Incident.NO_DATA)) noData++;
            else firing++;
        }
        String state = firing > 0 ? "firing" : noData > 0 ? "no_data" : schedules.rounds(schedule, 20).stream()
                .anyMatch(r -> !r.active() && !r.status().equals(Round.SKIPPED)) ? "ok" : "new";
        return new State(state, firing, noData);
    }

    Round runNow(String name) throws SQLException {
        Schedule s = schedules.get(name);
        ScheduleService sch = scheduler;
        if (sch == null) throw new ApiError(503, "the service's scheduler is not running: run a round with "
                + "`unibench schedule run " + s.name() + "`");
        return sch.runNow(s.name());
    }

    Schedule setEnabled(Context ctx, boolean enabled) throws SQLException {
        Schedule s = schedules.get(ctx.pathParam("name"));
        schedules.setEnabled(s.name(), enabled, System.currentTimeMillis());
        ScheduleService sch = scheduler;
        if (sch != null) sch.wake();
        return schedules.get(s.name());
    }

    /** The channels of a schedule's document, by name (empty when its alerts cannot be read). */
    Map<String, Channel> channels(Schedule s) throws SQLException {
        try {
            return ScheduleDocument.alerts(s, schedules.rules(s.name())).channels();
        } catch (BadInputException e) {
            return Map.of();
        }
    }

    OutboxStore.Entry sendTest(String name, String channel) throws SQLException, InterruptedException {
        Schedule s = schedules.get(name);
        Channel ch = channels(s).get(channel);
        if (ch == null) throw new ApiError(404, "schedule " + s.name() + " has no notify channel '" + channel + "'");
        OutboxStore.Message m = tests.sendTest(s.name(), ch);
        return new OutboxStore.Entry(m, schedules.outbox().deliveries(m.messageId()));
    }

    List<Map<String, Object>> deliveries(Schedule s, int limit) throws SQLException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (OutboxStore.Entry e : schedules.outbox().log(s.name(), limit)) out.add(entry(e));
        return out;
    }

    /** One message of the delivery log: the channel by name and variables (never its URL), what it said, every attempt. */
    static Map<String, Object> entry(OutboxStore.Entry e) {
        OutboxStore.Message m = e.message();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("message_id", m.messageId());
        out.put("channel", m.channel().name());
        out.put("channel_type", m.channel().type().id());
        out.put("language", m.channel().language());
        out.put("kind", m.notice().kind());
        out.put("title", m.notice().title());
        out.put("created_at", m.createdAt());
        out.put("status", m.status());
        out.put("delivered", m.status().equals(OutboxStore.SENT));
        out.put("attempts", m.attempts());
        out.put("next_attempt_at", m.status().equals(OutboxStore.PENDING) ? m.nextAttemptAt() : null);
        out.put("last_error", m.lastError());
        List<Map<String, Object>> tries = new ArrayList<>();
        for (OutboxStore.Delivery d : e.attempts()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("attempt", d.attempt());
            t.put("at", d.at());
            t.put("http_status", d.httpStatus());
            t.put("outcome", d.outcome());
            t.put("detail", d.detail());
            tries.add(t);
        }
        out.put("deliveries", tries);
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
        m.put("next_fire_times", s.enabled() ? s.trigger().next(5, System.currentTimeMillis()) : List.of());
        m.put("document", s.document());
        m.put("rules", schedules.rules(s.name()));
        m.put("rounds", schedules.rounds(s.name(), 50));
        m.put("incidents", schedules.alerts().incidents(s.name(), 50));
        State st = state(s.name());
        m.put("state", st.state());
        m.put("deliveries", deliveries(s, 20));
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
        // the service's allow-lists first, so a variable it does not read is never looked up (nor its absence told)
        requireAllowedChannels(fileName, doc);
        try {
            ScenarioDocument.requireAllowedKeys(doc, service.keys());
            ScenarioDocument.requireAllowedFiles(fileName, doc, service.dataDirs()); // before anything reads them
        } catch (ScenarioDocument.Invalid e) {
            throw new BadInputException("document: " + e.getMessage());
        }
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

    /**
     * Each notify channel's {@code url_env} and {@code secret_env} must be a variable the service lets channels read
     * ({@link KeyAllowList}, {@code serve --allow-channel-env}): otherwise bad input naming its JSON pointer. A
     * document that does not parse is left to the checks after this one.
     */
    private void requireAllowedChannels(String fileName, String doc) {
        JsonNode root;
        try {
            root = LocatedYaml.parse(fileName, doc).root();
        } catch (BadInputException unreadable) {
            return;
        }
        JsonNode list = root == null ? null : root.path("notify");
        if (list == null || !list.isArray()) return;
        for (int i = 0; i < list.size(); i++) {
            for (String field : List.of("url_env", "secret_env")) {
                JsonNode v = list.get(i).get(field);
                if (v != null && v.isTextual() && !service.channels().allows(v.asText())) {
                    throw new BadInputException("document: /notify/" + i + "/" + field + ": variable " + v.asText()
                            + " is not one this service reads for a channel: it reads only " + service.channels()
                            + " (serve --allow-channel-env), never its own UNIBENCH_* settings");
                }
            }
        }
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
        return parseRounds(v, 200, 5000, "rounds");
    }

    private static int parseRounds(String v, int fallback, int max, String name) {
        if (blank(v)) return fallback;
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 1 && n <= max) return n;
        } catch (NumberFormatException ignored) {
            // the message below
        }
        throw new ApiError(400, name + " '" + v + "': must be a whole number 1-" + max);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
