package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A schedule against the simulator through the real CLI ({@code schedule add}, {@code schedule run} = the same path
 * as {@code unibench run --config}): the simulator's TTFT is raised between rounds, the rule fires after its
 * {@code for_rounds} and resolves when TTFT is lowered again; the webhook receiver (127.0.0.1) gets exactly those
 * two notices.
 */
class ScheduleEndToEndTest {
    @TempDir
    Path dir;
    SimServer sim;
    HttpServer hook;
    final List<JsonNode> notices = new CopyOnWriteArrayList<>();

    record Run(int exit, String out, String err) {}

    private Run schedule(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new ScheduleCommand().withEnvironment(env)),
                new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private void simulator(int port, double ttftMs) {
        if (sim != null) sim.close();
        sim = SimServer.start(SimConfig.defaults().withHost("127.0.0.1").withPort(port).withModel("m")
                .withTtftMs(ttftMs).withItlMs(1));
    }

    /** The webhook receiver on 127.0.0.1: every notice it gets into {@link #notices}. */
    private ObjectMapper startHook() throws java.io.IOException {
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        ObjectMapper json = new ObjectMapper();
        hook.createContext("/hook", ex -> {
            notices.add(json.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        hook.start();
        return json;
    }

    @AfterEach
    void stop() {
        if (sim != null) sim.close();
        if (hook != null) hook.stop(0);
    }

    @Test
    void firesAfterForRoundsAndResolvesWhenLatencyIsBack() throws Exception {
        ObjectMapper json = startHook();
        simulator(0, 10);
        int port = sim.port();
        Path file = dir.resolve("nightly.yaml");
        Files.writeString(file, """
                providers:
                  - {name: local, base_url: "http://127.0.0.1:%d/v1", model: m}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {levels: [1], requests_per_level: 4}
                scenarios:
                  - {name: chat, type: chat, prompt: hello}
                alerts:
                  - name: slow-first-token
                    metric: ttft_p95_ms
                    op: ">"
                    threshold: 150
                    for_rounds: 2
                    notify: [team-hook]
                notify:
                  - {name: team-hook, type: webhook, url_env: HOOK_URL}
                """.formatted(port));
        String db = dir.resolve("unibench.db").toString();
        Map<String, String> env = Map.of("HOOK_URL", "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook");

        Run add = schedule(env, "add", "nightly", "--config", file.toString(), "--cron", "0 2 * * *", "--tz",
                "Asia/Shanghai", "--db", db);
        assertThat(add.exit()).as(add.err()).isZero();
        assertThat(add.out()).contains("Schedule nightly: cron \"0 2 * * *\" (Asia/Shanghai); 1 alert rule(s), 1 channel(s).")
                .contains("02:00:00 Asia/Shanghai");

        String[] round = {"run", "nightly", "--db", db, "--outputs-dir", dir.resolve("out").toString(),
                "--notify-wait", "0", "--public-url", "https://bench.example.com"};
        Run r1 = schedule(env, round);
        assertThat(r1.exit()).as(r1.err()).isZero();
        assertThat(r1.out()).containsPattern("Alert slow-first-token · local \\(m\\) · chat · concurrency 1: [0-9.]+ ms → ok\n");

        simulator(port, 300); // the provider got slow
        Run r2 = schedule(env, round);
        assertThat(r2.out()).contains("→ pending\n");
        assertThat(notices).isEmpty();
        Run r3 = schedule(env, round);
        assertThat(r3.out()).contains("→ firing [fired]");
        assertThat(notices).hasSize(1);
        JsonNode fired = notices.getFirst();
        assertThat(fired.get("event").asText()).isEqualTo("fired");
        assertThat(fired.get("value").asDouble()).isGreaterThan(300);
        assertThat(fired.get("last_values")).hasSize(3);
        assertThat(fired.get("last_values").get(0).asDouble()).isLessThan(150);
        assertThat(fired.get("run_url").asText()).startsWith("https://bench.example.com/runs/")
                .endsWith(fired.get("run_id").asText());

        simulator(port, 10); // back to normal
        Run r4 = schedule(env, round);
        assertThat(r4.out()).contains("→ ok [resolved]");
        assertThat(notices).hasSize(2);
        assertThat(notices.get(1).get("event").asText()).isEqualTo("resolved");
        assertThat(notices.get(1).get("worst").asDouble()).isGreaterThan(300);

        // evaluating a round again (a retried or repeated evaluation) changes nothing: same state, no new notice
        try (io.unibench.schedule.ScheduleStore ss = io.unibench.schedule.ScheduleStore.open(
                io.unibench.store.StoreLocation.sqlite(Path.of(db)));
             io.unibench.store.RunStore rs = io.unibench.store.RunStore.open(io.unibench.store.StoreLocation.sqlite(Path.of(db)))) {
            io.unibench.schedule.Schedule s = ss.get("nightly");
            io.unibench.schedule.Round last = ss.rounds("nightly", 1).getFirst();
            var again = new io.unibench.schedule.RoundRunner(ss, rs, null, System::currentTimeMillis, null,
                    new PrintWriter(new StringWriter())).evaluate(s, last);
            assertThat(again).singleElement().satisfies(o -> {
                assertThat(o.changes()).isEmpty();
                assertThat(o.state().status()).isEqualTo(io.unibench.schedule.AlertState.Status.OK);
            });
            assertThat(ss.outbox().messages("nightly", 10)).hasSize(2);
        }

        Run show = schedule(env, "show", "nightly", "--db", db);
        assertThat(show.out()).contains("slow-first-token: ttft_p95_ms > 150 for 2 round(s) → team-hook")
                .contains("local (m) · chat · concurrency 1: ok");
        assertThat(show.out().lines().filter(l -> l.contains("  finished  manual  "))).hasSize(4);
        // a disabled schedule lists no fire times (it has none until it is enabled)
        assertThat(schedule(env, "disable", "nightly", "--db", db).exit()).isZero();
        assertThat(schedule(env, "show", "nightly", "--db", db).out())
                .contains("Next fire times: none while disabled (schedule enable nightly)\n");
        assertThat(schedule(env, "enable", "nightly", "--db", db).exit()).isZero();
        assertThat(show.out()).contains("slow-first-token · local (m) · chat · concurrency 1: threshold from ");
        // every round is an ordinary run in the history, tagged with its schedule
        CliHarness.Run runs = CliHarness.main("runs", "list", "--db", db, "--tag", "schedule:nightly");
        assertThat(runs.out().lines().filter(l -> l.contains("nightly/local"))).hasSize(4);

        // the service shows the same rounds: the trend API and the schedule's pages over this database
        io.unibench.store.StoreLocation location = io.unibench.store.StoreLocation.sqlite(Path.of(db));
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(location);
             io.unibench.web.WebServer web = io.unibench.web.WebServer.start(new io.unibench.web.WebConfig("127.0.0.1", 0,
                     null), store, location, new io.unibench.web.RunService(new ScenarioLauncher(Map.of(),
                     Path.of(db).resolveSibling("service-outputs"), new PrintWriter(new StringWriter())), 1, Map.of()),
                     "test", new PrintWriter(new StringWriter()))) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + web.port();
            JsonNode trend = json.readTree(get(http, base + "/api/trends?schedule=nightly&metric=ttft_p95_ms"));
            assertThat(trend.get("unit").asText()).isEqualTo("ms");
            assertThat(trend.get("series")).hasSize(1);
            JsonNode points = trend.get("series").get(0).get("points");
            assertThat(points).hasSize(4);
            assertThat(points.get(0).get("value").asDouble()).isLessThan(150);
            assertThat(points.get(2).get("value").asDouble()).isGreaterThan(300);
            assertThat(trend.get("thresholds").toString()).isEqualTo("[{\"rule\":\"slow-first-token\",\"value\":150.0}]");
            assertThat(trend.get("marks").findValuesAsText("kind")).containsExactly("fired", "resolved");
            // fired on the third round's value, resolved on the fourth's
            assertThat(trend.get("marks").get(0).get("value").asDouble()).isEqualTo(points.get(2).get("value").asDouble());
            assertThat(trend.get("marks").get(1).get("value").asDouble()).isEqualTo(points.get(3).get("value").asDouble());
            org.jsoup.nodes.Document page = org.jsoup.Jsoup.parse(get(http, base + "/schedules/nightly"));
            assertThat(page.select("#rounds tbody tr")).hasSize(4);
            assertThat(page.select("#next-fires li")).hasSize(5);
            assertThat(page.select("#incidents tbody tr").text()).contains("slow-first-token").contains("threshold");
            org.jsoup.nodes.Document list = org.jsoup.Jsoup.parse(get(http, base + "/schedules"));
            assertThat(list.select("#schedules a[href=/schedules/nightly]")).hasSize(1);
            org.jsoup.nodes.Document chart = org.jsoup.Jsoup.parse(get(http, base + "/schedules/nightly/trend?metric=ttft_p95_ms"));
            assertThat(json.readTree(chart.select("#trend-data").html()).get("series")).hasSize(1);
            JsonNode detail = json.readTree(get(http, base + "/api/schedules/nightly"));
            assertThat(detail.get("rounds")).hasSize(4);
            assertThat(detail.get("next_fire_times")).hasSize(5);
            assertThat(json.readTree(get(http, base + "/api/schedules")).findValuesAsText("name")).containsExactly("nightly");
            String rule = "{\"name\": \"few-successes\", \"metric\": \"success_rate\", \"op\": \"<\", "
                    + "\"threshold\": 99, \"notify\": [\"team-hook\"]}";
            // the service checks a rule against its own environment, which lacks the channel's variable here
            java.net.http.HttpResponse<String> added = post(http, base + "/api/schedules/nightly/rules", rule);
            assertThat(added.statusCode()).isEqualTo(400);
            assertThat(json.readTree(added.body()).get("error").asText())
                    .isEqualTo("rule: notify channel 'team-hook': environment variable HOOK_URL is not set");
            try (io.unibench.schedule.ScheduleStore ss = io.unibench.schedule.ScheduleStore.open(location)) {
                var checked = io.unibench.schedule.ScheduleDocument.checkRule(ss.get("nightly"), rule, env);
                assertThat(checked.condition()).isEqualTo("success_rate < 99");
                ss.putRule("nightly", checked.name(), rule);
            }
            assertThat(get(http, base + "/schedules/nightly")).contains("few-successes: success_rate &lt; 99 for 2 round(s)");
            java.net.http.HttpResponse<String> bad = post(http, base + "/api/schedules/nightly/rules",
                    "{\"name\": \"x\", \"metric\": \"ttft\", \"op\": \">\", \"threshold\": 1}");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(json.readTree(bad.body()).get("error").asText()).contains("alerts[1].metric: must be a metric short name");
            java.net.http.HttpResponse<String> unknown = post(http, base + "/api/schedules/nightly/rules",
                    "{\"name\": \"y\", \"metric\": \"rps\", \"op\": \"<\", \"threshold\": 1, \"notify\": [\"nope\"]}");
            assertThat(json.readTree(unknown.body()).get("error").asText()).contains("no channel 'nope' in notify: (known: team-hook)");
            assertThat(json.readTree(get(http, base + "/api/schedules/nightly")).get("rules").has("few-successes")).isTrue();
            assertThat(json.readTree(get(http, base + "/api/trends?schedule=nightly&metric=success_rate"))
                    .get("thresholds").toString()).isEqualTo("[{\"rule\":\"few-successes\",\"value\":99.0}]");
            JsonNode cron = json.readTree(get(http, base + "/api/cron?expr=0+2+*+*+*&tz=Asia/Shanghai"));
            assertThat(cron.get("next")).hasSize(5);
            assertThat(cron.get("next").get(0).asText()).endsWith("02:00:00 Asia/Shanghai");
        }
    }

    /**
     * A schedule of open-loop rate levels: each rate level is a target of its own (not all at "concurrency −1"),
     * a rule scoped to {@code level: rate_40} watches that level only, messages name it "rate 40 req/s", and an
     * incident stored under the key of before levels had names ({@code chat/rate_40 | -1}) carries on under the
     * level's key and resolves there.
     */
    @Test
    void rateLevelsAreTargetsOfTheirOwnNamedByTheirRate() throws Exception {
        ObjectMapper json = startHook();
        simulator(0, 5);
        Path file = dir.resolve("rates.yaml");
        Files.writeString(file, """
                providers:
                  - {name: local, base_url: "http://127.0.0.1:%d/v1", model: m}
                generation: {max_tokens: 2, ignore_eos: true}
                request_rate: {levels: [20, 40], requests_per_level: 3}
                scenarios:
                  - {name: chat, type: chat, prompt: hello}
                alerts:
                  - {name: every-level, metric: success_rate, op: "<", threshold: 50, for_rounds: 1}
                  - {name: fast-one, metric: ttft_p95_ms, op: ">", threshold: 10000, for_rounds: 1, level: rate_40,
                     notify: [team-hook]}
                notify:
                  - {name: team-hook, type: webhook, url_env: HOOK_URL}
                """.formatted(sim.port()));
        String db = dir.resolve("unibench.db").toString();
        Map<String, String> env = Map.of("HOOK_URL", "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook");
        Run add = schedule(env, "add", "rates", "--config", file.toString(), "--every", "1h", "--db", db);
        assertThat(add.exit()).as(add.err()).isZero();
        io.unibench.store.StoreLocation location = io.unibench.store.StoreLocation.sqlite(Path.of(db));
        String legacy = "local | m | chat/rate_40 | -1"; // how the level was keyed before: scenario "chat/rate_40"
        try (io.unibench.schedule.ScheduleStore ss = io.unibench.schedule.ScheduleStore.open(location)) {
            io.unibench.schedule.AlertRule rule = io.unibench.schedule.ScheduleDocument.alerts(ss.get("rates"),
                    ss.rules("rates")).rules().get(1);
            var fired = io.unibench.schedule.AlertMachine.step(rule, io.unibench.schedule.AlertState.INITIAL, false, true);
            ss.alerts().applyRound("rates", rule, legacy,
                    new io.unibench.schedule.Observation("r0", 1, 20000.0, null, null), fired);
        }

        Run r1 = schedule(env, "run", "rates", "--db", db, "--outputs-dir", dir.resolve("out").toString(),
                "--notify-wait", "0");
        assertThat(r1.exit()).as(r1.err()).isZero();
        assertThat(r1.out()).contains("Alert every-level · local (m) · chat · rate 20 req/s: 100 % → ok",
                        "Alert every-level · local (m) · chat · rate 40 req/s: 100 % → ok")
                .containsPattern("Alert fast-one · local \\(m\\) · chat · rate 40 req/s: [0-9.]+ ms → ok \\[resolved]")
                .doesNotContain("fast-one · local (m) · chat · rate 20", "concurrency -1");
        assertThat(r1.out().lines().filter(l -> l.startsWith("Alert "))).hasSize(3).noneMatch(l -> l.contains("chat/rate_"));
        assertThat(notices).singleElement().satisfies(n -> {
            assertThat(n.get("event").asText()).isEqualTo("resolved");
            assertThat(n.at("/target/scenario").asText()).isEqualTo("chat");
            assertThat(n.at("/target/level").asText()).isEqualTo("rate_40");
            assertThat(n.at("/target/level_name").asText()).isEqualTo("rate_40");
            assertThat(n.get("title").asText()).isEqualTo("[RESOLVED] fast-one · local (m) · chat · rate 40 req/s");
        });
        try (io.unibench.schedule.ScheduleStore ss = io.unibench.schedule.ScheduleStore.open(location);
             io.unibench.store.RunStore rs = io.unibench.store.RunStore.open(location)) {
            var trend = io.unibench.schedule.Trends.of(ss, rs, "rates", "ttft_p95_ms", null, 10);
            assertThat(trend.series()).extracting(io.unibench.schedule.Trends.Series::label)
                    .containsExactly("local (m) · chat · rate 20 req/s", "local (m) · chat · rate 40 req/s");
            assertThat(trend.marks()).as("the incident's fired (under the old key) and resolved")
                    .extracting(io.unibench.schedule.Trends.Mark::label)
                    .containsExactly("local (m) · chat · rate 40 req/s", "local (m) · chat · rate 40 req/s");
            assertThat(ss.alerts().states("rates", "fast-one")).containsOnlyKeys("local | m | chat | rate_40");
            assertThat(ss.alerts().states("rates", "every-level"))
                    .containsOnlyKeys("local | m | chat | rate_20", "local | m | chat | rate_40");
            assertThat(ss.alerts().incidents("rates", 10)).singleElement().satisfies(i -> {
                assertThat(i.target()).isEqualTo("local | m | chat | rate_40");
                assertThat(i.open()).isFalse();
            });
        }
        Run show = schedule(env, "show", "rates", "--db", db);
        assertThat(show.out()).contains("    local (m) · chat · rate 40 req/s: ok",
                "fast-one · local (m) · chat · rate 40 req/s: threshold from ");
    }

    private static java.net.http.HttpResponse<String> post(java.net.http.HttpClient http, String url, String body)
            throws Exception {
        return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static String get(java.net.http.HttpClient http, String url) throws Exception {
        java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void aFailedRoundRunsInProcessAndSaysWhyFromItsFailure() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // closed below: nothing answers there
        }
        Path file = dir.resolve("down.yaml");
        Files.writeString(file, """
                providers:
                  - {name: local, base_url: "http://127.0.0.1:%d/v1", model: m}
                concurrency: {levels: [1], requests_per_level: 1}
                scenarios:
                  - {name: chat, type: chat, prompt: hello}
                """.formatted(port));
        String db = dir.resolve("unibench.db").toString();
        assertThat(schedule(Map.of(), "add", "down", "--config", file.toString(), "--every", "1h", "--db", db).exit())
                .isZero();
        Run r = schedule(Map.of(), "run", "down", "--db", db, "--outputs-dir", dir.resolve("out").toString(),
                "--notify-wait", "0");
        assertThat(r.exit()).isEqualTo(Main.EXIT_FAILED);
        try (io.unibench.schedule.ScheduleStore ss = io.unibench.schedule.ScheduleStore.open(
                io.unibench.store.StoreLocation.sqlite(Path.of(db)))) {
            io.unibench.schedule.Round round = ss.rounds("down", 1).getFirst();
            assertThat(round.status()).isEqualTo(io.unibench.schedule.Round.FAILED);
            // the reason is the failure's own message (what run --config prints after "unibench: "), not an exit code
            // and a scraped stderr line
            assertThat(round.reason()).contains("127.0.0.1:" + port).doesNotContain("exited").doesNotContain("\n");
            assertThat(r.err()).contains("unibench: " + round.reason());
            assertThat(r.out()).contains("failed (" + round.reason() + ")");
        }
    }

    @Test
    void badInputIsOneLocatedLineAndExit2() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, """
                providers:
                  - {name: p, base_url: "http://127.0.0.1:9/v1", model: m}
                scenarios:
                  - {name: chat, type: chat, prompt: hello}
                alerts:
                  - name: a
                    metric: ttft_p95
                    op: ">"
                    threshold: 1
                """);
        String db = dir.resolve("unibench.db").toString();
        Run bad = schedule(Map.of(), "add", "x", "--config", file.toString(), "--every", "1h", "--db", db);
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).isEqualTo("unibench: bad.yaml:7: alerts[0].metric: must be a metric short name: "
                + "{ttft,latency,tpot,itl}_{p50,p90,p95,p99,mean}_{ms,s}, success_rate, error_rate, output_tps, rps, "
                + "cache_hit_rate or cost_per_1k");
        Files.writeString(file, Files.readString(file).replace("ttft_p95", "ttft_p95_ms") + "    level: rate-10\n");
        Run level = schedule(Map.of(), "add", "x", "--config", file.toString(), "--every", "1h", "--db", db);
        assertThat(level.exit()).isEqualTo(2);
        assertThat(level.err().strip()).isEqualTo("unibench: bad.yaml:10: alerts[0].level: must name a level as its "
                + "label does: parallel_N, rate_R, ramp_STRATEGY_R0_R1, trace or sla_VAR_VAL_run_I");
        Files.writeString(file, Files.readString(file).replace("    level: rate-10\n", "    level: rate_10\n")
                + "    notify: [chat]\nnotify:\n  - {name: chat, type: feishu, url_env: FEISHU_URL}\n");
        Run unset = schedule(Map.of(), "add", "x", "--config", file.toString(), "--every", "1h", "--db", db);
        assertThat(unset.exit()).isEqualTo(2);
        assertThat(unset.err().strip()).isEqualTo("unibench: bad.yaml: notify channel 'chat': environment variable "
                + "FEISHU_URL is not set");
        Run cron = schedule(Map.of("FEISHU_URL", "http://127.0.0.1:9/x"), "add", "x", "--config", file.toString(),
                "--cron", "0 25 * * *", "--db", db);
        assertThat(cron.exit()).isEqualTo(2);
        assertThat(cron.err()).startsWith("unibench: --cron '0 25 * * *': not a cron expression");
        assertThat(cron.err().lines()).hasSize(1);
    }
}
