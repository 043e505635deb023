package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.unibench.cli.ScenarioLauncher;
import io.unibench.schedule.Notifier;
import io.unibench.schedule.Round;
import io.unibench.schedule.RoundLauncher;
import io.unibench.schedule.RoundRunner;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleService;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.WebhookReceiver;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Inspections operated from the service (issue 29 §3): the delivery log, Send test, Run now, enable/disable and
 * Delete from the schedule page and the API, the overview's firing / no data / ok, the notices' content (how long
 * an incident lasted, values with their metric and unit, a channel's language) and the channels' variables on an
 * allow-list. Webhooks go to receivers on 127.0.0.1; rounds are real runs of the service against two simulators
 * (a slow and a fast one) recorded by {@link RoundRunner} on an injected clock, and their notices delivered by a
 * {@link Notifier} on the same clock.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InspectionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN_VALUE = "service-token-5b1c9e7d2a";

    @TempDir
    static Path dir;

    static SimServer slow;
    static SimServer fast;
    static WebhookReceiver ok;
    static WebhookReceiver flaky;
    static Map<String, String> env;
    static StoreLocation location;
    static RunStore store;
    static WebServer server;
    static ScheduleService scheduler;
    static final HttpClient http = HttpClient.newHttpClient();
    static final StringWriter log = new StringWriter();

    @BeforeAll
    static void start() throws Exception {
        slow = SimServer.start(SimConfig.defaults().withHost("127.0.0.1").withModel("m").withTtftMs(250));
        fast = SimServer.start(SimConfig.defaults().withHost("127.0.0.1").withModel("m").withTtftMs(1));
        ok = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"code\":0}"));
        flaky = new WebhookReceiver(new WebhookReceiver.Answer(500, "upstream down"),
                new WebhookReceiver.Answer(200, "{\"code\":0}"));
        env = Map.of("TEAM_HOOK_URL", ok.url("/team"), "ZH_HOOK_URL", ok.url("/zh"),
                "FEISHU_SIGNING_SECRET", "sign-secret-0a9f", "FLAKY_HOOK_URL", flaky.url("/flaky"),
                "UNIBENCH_TOKEN", TOKEN_VALUE, "UNIBENCH_DB_PASSWORD", "db-password-3c4d", "PATH", "/usr/bin:/bin");
        location = StoreLocation.sqlite(dir.resolve("unibench.db"));
        store = RunStore.open(location);
        PrintWriter out = new PrintWriter(log, true);
        RunService service = new RunService(new ScenarioLauncher(Map.of(), dir.resolve("out"), out), 1, env,
                KeyAllowList.defaults(), RunLimits.DEFAULTS, KeyAllowList.channelDefaults());
        server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location, service, "test", out);
        KeyAllowList channels = KeyAllowList.channelDefaults();
        scheduler = ScheduleService.start(location, server.rounds(), channels.filter(env), null, out, channels::allows,
                "serve --allow-channel-env: " + channels);
        server.attach(scheduler);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scheduler != null) scheduler.close();
        if (server != null) server.close();
        if (store != null) store.close();
        for (AutoCloseable c : new AutoCloseable[] {ok, flaky, slow, fast}) if (c != null) c.close();
    }

    static String base() {
        return "http://127.0.0.1:" + server.port();
    }

    /** Against the slow simulator; fires on its first slow round; notices in English (webhook) and Chinese (Feishu). */
    static String document(String name, String extraRule) {
        return """
                name: %s
                provider: {name: local, base_url: "%s/v1", model: m}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {levels: [1], requests_per_level: 4}
                scenarios:
                  - {name: chat, type: chat, prompt: hello}
                alerts:
                  - name: slow-first-token
                    metric: ttft_p95_ms
                    op: ">"
                    threshold: 100
                    for_rounds: 1
                    notify: [team-hook, zh-hook]
                %snotify:
                  - {name: team-hook, type: webhook, url_env: TEAM_HOOK_URL}
                  - {name: zh-hook, type: feishu, url_env: ZH_HOOK_URL, secret_env: FEISHU_SIGNING_SECRET, format: text, language: zh}
                  - {name: flaky-hook, type: webhook, url_env: FLAKY_HOOK_URL}
                """.formatted(name, slow.baseUrl(), extraRule);
    }

    static HttpResponse<String> send(String method, String path, String body, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, null, Map.of());
    }

    static JsonNode api(String method, String path, String body, int status) throws Exception {
        HttpResponse<String> r = send(method, path, body, Map.of("Content-Type", "application/json"));
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    static void create(String name, String document) throws Exception {
        api("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", name, "document", document,
                "cron", "0 3 1 1 *", "tz", "UTC")), 201);
    }

    @Test
    void aChannelVariableOutsideTheAllowListIsRefusedWithItsJsonPointer() throws Exception {
        // the attack: a schedule whose channel signs with the service's token, or posts to a URL held by its
        // database password; before, both were set in the service's environment, so the schedule was stored (201)
        String signWithToken = document("attack", "").replace("url_env: TEAM_HOOK_URL}",
                "url_env: TEAM_HOOK_URL, secret_env: UNIBENCH_TOKEN}");
        HttpResponse<String> r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "attack",
                "document", signWithToken, "cron", "0 3 1 1 *")), Map.of("Content-Type", "application/json"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo("document: /notify/0/secret_env: variable "
                + "UNIBENCH_TOKEN is not one this service reads for a channel: it reads only " + KeyAllowList.CHANNEL_DEFAULT
                + " (serve --allow-channel-env), never its own UNIBENCH_* settings");
        String urlFromPassword = document("attack", "").replace("url_env: FLAKY_HOOK_URL", "url_env: UNIBENCH_DB_PASSWORD");
        r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "attack", "document", urlFromPassword,
                "cron", "0 3 1 1 *")), Map.of("Content-Type", "application/json"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).get("error").asText()).startsWith("document: /notify/2/url_env: variable "
                + "UNIBENCH_DB_PASSWORD is not one");
        // a provider key's variable is no channel's either
        r = send("POST", "/api/schedules", JSON.writeValueAsString(Map.of("name", "attack", "document",
                document("attack", "").replace("url_env: TEAM_HOOK_URL}", "url_env: OPENAI_API_KEY}"), "cron", "0 3 1 1 *")),
                Map.of("Content-Type", "application/json"));
        assertThat(JSON.readTree(r.body()).get("error").asText()).startsWith("document: /notify/0/url_env: variable "
                + "OPENAI_API_KEY is not one");
        assertThat(get("/api/schedules").body()).doesNotContain("attack");
        assertThat(ok.received).noneSatisfy(x -> assertThat(x.body()).contains("attack"));
        assertThat(log.toString()).doesNotContain(TOKEN_VALUE);
    }

    @Test
    void sendTestRunNowEnableDisableAndDeleteFromTheApiEachStateChangeRefusedCrossOrigin() throws Exception {
        create("ops", document("ops", ""));
        // Send test: the flaky channel fails once (HTTP 500, not retried), then delivers; both in the delivery log
        JsonNode first = api("POST", "/api/schedules/ops/channels/flaky-hook/test", null, 200);
        assertThat(first.get("delivered").asBoolean()).isFalse();
        assertThat(first.get("status").asText()).isEqualTo("failed");
        assertThat(first.get("deliveries")).singleElement().satisfies(d -> {
            assertThat(d.get("http_status").asInt()).isEqualTo(500);
            assertThat(d.get("detail").asText()).isEqualTo("HTTP 500: upstream down (a test message: not retried)");
        });
        JsonNode second = api("POST", "/api/schedules/ops/channels/flaky-hook/test", null, 200);
        assertThat(second.get("delivered").asBoolean()).isTrue();
        assertThat(flaky.received).hasSize(2);
        assertThat(JSON.readTree(flaky.received.get(1).body()).get("title").asText())
                .isEqualTo("[TEST] schedule ops · channel flaky-hook");
        JsonNode logged = api("GET", "/api/schedules/ops/deliveries", null, 200);
        assertThat(logged.findValuesAsText("status")).containsExactlyInAnyOrder("sent", "failed");
        assertThat(logged.toString()).doesNotContain(flaky.url("/flaky")); // the URL is a secret: names only
        assertThat(send("POST", "/api/schedules/ops/channels/nope/test", null, Map.of()).statusCode()).isEqualTo(404);
        Document page = Jsoup.parse(get("/schedules/ops").body());
        assertThat(page.select("#delivery-log tbody tr")).hasSize(2);
        assertThat(page.select("#delivery-log tr.delivery-failed").text()).contains("HTTP 500")
                .contains("upstream down");
        assertThat(page.select("#channel-list tr[data-channel=zh-hook]").text()).contains("feishu").contains("zh")
                .contains("ZH_HOOK_URL").contains("FEISHU_SIGNING_SECRET");

        // Disable: no next fire times (API and page), the overview says so; Enable: five again
        JsonNode off = api("POST", "/api/schedules/ops/disable", null, 200);
        assertThat(off.get("enabled").asBoolean()).isFalse();
        assertThat(off.get("next_fire_at").isNull()).isTrue();
        assertThat(api("GET", "/api/schedules/ops", null, 200).get("next_fire_times")).isEmpty();
        page = Jsoup.parse(get("/schedules/ops").body());
        assertThat(page.select("#next-fires")).isEmpty();
        assertThat(page.select("#no-fires").text()).startsWith("Disabled: no round fires");
        assertThat(page.select("#enable")).hasSize(1);
        assertThat(Jsoup.parse(get("/schedules").body()).select("#schedules tr[data-schedule=ops] td").get(4).text())
                .isEqualTo("- (disabled)");
        api("POST", "/api/schedules/ops/enable", null, 200);
        assertThat(api("GET", "/api/schedules/ops", null, 200).get("next_fire_times")).hasSize(5);

        // a page of another origin can neither run a round nor delete the schedule (web.RequestGuard)
        String evil = "http://127.0.0.1:1";
        HttpResponse<String> refused = send("POST", "/api/schedules/ops/run", null, Map.of("Origin", evil));
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("cross-site request refused");
        assertThat(send("POST", "/schedules/ops/delete", "", Map.of("Origin", evil,
                "Content-Type", "application/x-www-form-urlencoded")).statusCode()).isEqualTo(403);
        assertThat(send("POST", "/api/schedules/ops/channels/team-hook/test", null, Map.of("Origin", evil))
                .statusCode()).isEqualTo(403);
        try (ScheduleStore s = ScheduleStore.open(location)) {
            assertThat(s.rounds("ops", 10)).isEmpty();
            assertThat(s.get("ops").enabled()).isTrue();
        }

        // Run now: a manual round through the service's queue; a second one while it runs is skipped (409)
        JsonNode round = api("POST", "/api/schedules/ops/run", null, 202);
        assertThat(round.get("trigger").asText()).isEqualTo(Round.MANUAL);
        Round done = awaitRound("ops", round.get("roundId").asText());
        assertThat(done.status()).as(String.valueOf(done.reason())).isEqualTo(Round.FINISHED);
        assertThat(done.runIds()).hasSize(1);

        // Delete from the page's form (same origin): gone, with its rounds; its run stays in the history
        HttpResponse<String> deleted = send("POST", "/schedules/ops/delete", "", Map.of("Origin", base(),
                "Content-Type", "application/x-www-form-urlencoded"));
        assertThat(deleted.statusCode()).isEqualTo(302);
        assertThat(deleted.headers().firstValue("Location")).hasValue("/schedules?removed=ops");
        assertThat(api("GET", "/api/schedules", null, 200).findValuesAsText("name")).doesNotContain("ops");
        assertThat(store.run(done.runIds().getFirst()).row().status()).isEqualTo("finished");
    }

    /** The round once it ended: read until then, at most 120 s (a run of a few requests takes about a second). */
    private static Round awaitRound(String schedule, String roundId) throws Exception {
        try (ScheduleStore s = ScheduleStore.open(location)) {
            for (int i = 0; i < 1200; i++) {
                Round r = s.round(roundId);
                if (!r.active()) return r;
                Thread.sleep(100);
            }
            throw new AssertionError("round " + roundId + " of " + schedule + " did not end: " + log);
        }
    }

    @Test
    void aResolvedNoticeSaysHowLongTheIncidentLastedOnTheRoundsClockWithUnitsInEachChannelsLanguage() throws Exception {
        create("latency", document("latency", ""));
        long t0 = System.currentTimeMillis() + Duration.ofDays(30).toMillis(); // the service's notifier never sees them due
        AtomicLong clock = new AtomicLong(t0);
        int before = ok.received.size();
        try (ScheduleStore s = ScheduleStore.open(location)) {
            Schedule sch = s.get("latency");
            RoundRunner rounds = new RoundRunner(s, store, InspectionsTest::runRound, clock::get, null,
                    new PrintWriter(new StringWriter()));
            for (long at : new long[] {t0, t0 + 28_000, t0 + 56_000}) { // slow, slow, fast: fired, firing, resolved
                clock.set(at);
                Round queued = s.startRound(sch.name(), Round.SCHEDULED, at, at);
                assertThat(rounds.run(sch, queued).round().status()).isEqualTo(Round.FINISHED);
            }
            new Notifier(s.outbox(), env, clock::get, Notifier.http(Duration.ofSeconds(10))).deliverDue();
        }
        List<WebhookReceiver.Received> got = ok.received.subList(before, ok.received.size());
        JsonNode resolved = got.stream().filter(r -> r.path().equals("/team")).map(r -> read(r.body()))
                .filter(b -> b.get("event").asText().equals("resolved")).findFirst().orElseThrow();
        // before: "lasted 0s" (cut to whole minutes) and "worst 261.42 ms" without the metric or grouping
        assertThat(resolved.get("text").asText()).containsPattern("Fired [-0-9: ]+ UTC, lasted 56s \\(3 rounds\\); "
                + "worst TTFT p95 [0-9,]+(\\.[0-9])? ms");
        assertThat(resolved.get("metric").asText()).isEqualTo("ttft_p95_ms");
        String chinese = got.stream().filter(r -> r.path().equals("/zh")).map(r -> read(r.body()).at("/content/text")
                .asText()).filter(t -> t.startsWith("[已恢复]")).findFirst().orElseThrow();
        assertThat(chinese).contains("\n巡检：latency\n").containsPattern("持续 56秒（3 轮）；最差 TTFT p95 [0-9,.]+ ms");
        // the page: the incident's worst value with its metric and unit; four notices delivered
        Document page = Jsoup.parse(get("/schedules/latency").body());
        assertThat(page.select("#incidents tbody tr td").last().text()).matches("TTFT p95 [0-9,]+(\\.[0-9])? ms");
        assertThat(page.select("#delivery-log tr.delivery-sent")).hasSize(4);
        assertThat(page.select("#state").text()).isEqualTo("ok");
    }

    @Test
    void theOverviewShowsEachSchedulesStateFiringNoDataOkOrNoRoundYet() throws Exception {
        create("ov-firing", document("ov-firing", ""));
        create("ov-ok", document("ov-ok", "").replace(slow.baseUrl(), fast.baseUrl()));
        create("ov-down", document("ov-down", """
                  - {name: silent, metric: success_rate, op: "<", threshold: 50, no_data_rounds: 1}
                """).replace(slow.baseUrl(), fast.baseUrl()));
        create("ov-new", document("ov-new", ""));
        AtomicLong clock = new AtomicLong(System.currentTimeMillis() + Duration.ofDays(30).toMillis());
        try (ScheduleStore s = ScheduleStore.open(location)) {
            RoundLauncher down = (sch, r, started) -> new RoundLauncher.Result(List.of(), "the provider refused the connection");
            // ov-down: a round with values, then one that failed (its targets have no data)
            for (String[] round : new String[][] {{"ov-firing", "run"}, {"ov-ok", "run"}, {"ov-down", "run"},
                    {"ov-down", "fail"}}) {
                clock.addAndGet(60_000);
                RoundRunner rounds = new RoundRunner(s, store, round[1].equals("run") ? InspectionsTest::runRound : down,
                        clock::get, null, new PrintWriter(new StringWriter()));
                rounds.run(s.get(round[0]), s.startRound(round[0], Round.SCHEDULED, clock.get(), clock.get()));
            }
        }
        Document list = Jsoup.parse(get("/schedules").body());
        assertThat(list.select("#schedules tr[data-schedule=ov-firing]").attr("data-state")).isEqualTo("firing");
        assertThat(list.select("#schedules tr[data-schedule=ov-firing] .state").text()).isEqualTo("firing (1)");
        assertThat(list.select("#schedules tr[data-schedule=ov-down] .state").text()).isEqualTo("no data (1)");
        assertThat(list.select("#schedules tr[data-schedule=ov-ok] .state").text()).isEqualTo("ok");
        assertThat(list.select("#schedules tr[data-schedule=ov-new] .state").text()).isEqualTo("no round yet");
        assertThat(list.select("#overview").text()).containsPattern("[1-9][0-9]* firing").contains("no data");
        JsonNode all = api("GET", "/api/schedules", null, 200);
        for (JsonNode s : all) {
            String expected = switch (s.get("name").asText()) {
                case "ov-firing" -> "firing";
                case "ov-down" -> "no_data";
                case "ov-ok" -> "ok";
                case "ov-new" -> "new";
                default -> s.get("state").asText();
            };
            assertThat(s.get("state").asText()).as(s.get("name").asText()).isEqualTo(expected);
        }
    }

    @Test
    void theNewScheduleFormShowsTheZoneItsCronExpressionIsReadIn() throws Exception {
        Document form = Jsoup.parse(get("/schedules/new").body());
        String zone = ZoneId.systemDefault().getId();
        // before: an empty field with the placeholder "Asia/Shanghai" while the service's zone was used
        assertThat(form.select("#tz").val()).isEqualTo(zone);
        assertThat(form.select("#tz").attr("placeholder")).isEqualTo(zone);
        assertThat(form.select("label:has(#tz)").text()).startsWith("Time zone (blank: " + zone + ")");
    }

    @Test
    @Order(Integer.MAX_VALUE) // last (the others have Order.DEFAULT): the overview it shows has the other tests' schedules in their states
    void theSchedulePageButtonsInChromium() throws Exception {
        create("buttons", document("buttons", ""));
        try (Playwright pw = BrowserTestBase.playwright(); Browser browser = BrowserTestBase.chromium(pw)) {
            Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000));
            page.navigate(base() + "/schedules/buttons");
            page.locator("#channel-list tr[data-channel=team-hook] button.send-test").click();
            page.waitForSelector("#flash");
            assertThat(page.locator("#flash").textContent()).isEqualTo("Send test: the test message to team-hook was "
                    + "delivered");
            assertThat(page.locator("#delivery-log tr.delivery-sent").count()).isEqualTo(1);
            page.locator("#channel-list tr[data-channel=zh-hook] button.send-test").click();
            page.waitForSelector("#delivery-log tbody tr:nth-child(2)");
            assertThat(page.locator("#delivery-log tbody tr").first().textContent()).contains("[测试] 巡检 buttons");
            page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("schedule-send-test.png"))
                    .setFullPage(true));

            page.locator("#disable").click();
            page.waitForSelector("#no-fires");
            assertThat(page.locator("#next-fires").count()).isZero();
            assertThat(page.locator("h1").textContent()).contains("disabled");
            page.locator("#run-now").click(); // a disabled schedule still runs a round on demand
            page.waitForSelector("#flash");
            assertThat(page.locator("#flash").textContent()).startsWith("Run now: round round-");
            page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("schedule-actions.png"))
                    .setFullPage(true));
            String roundId = page.locator("#flash").textContent().split(" ")[3];
            assertThat(awaitRound("buttons", roundId).status()).isEqualTo(Round.FINISHED);

            page.navigate(base() + "/schedules");
            // its round ran against the slow simulator: the rule fired
            assertThat(page.locator("#schedules tr[data-schedule=buttons] .state").textContent()).isEqualTo("firing (1)");
            page.screenshot(new Page.ScreenshotOptions().setPath(BrowserTestBase.SHOTS.resolve("schedule-overview.png"))
                    .setFullPage(true));
            page.navigate(base() + "/schedules/buttons");
            page.onDialog(d -> {
                assertThat(d.message()).startsWith("Delete schedule buttons");
                d.accept();
            });
            page.locator("#delete-schedule").click();
            page.waitForURL("**/schedules?removed=buttons");
            assertThat(page.locator("#flash").textContent()).startsWith("Schedule buttons deleted");
            assertThat(page.locator("#schedules tr[data-schedule=buttons]").count()).isZero();
        }
    }

    private static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A round's run: the schedule's document through the service, as any run, tagged with its schedule and round. */
    private static RoundLauncher.Result runRound(Schedule s, Round round, Runnable started) {
        try {
            String doc = s.document();
            // the incident's third round: the provider is fast again
            if (s.name().equals("latency") && s.document().contains(slow.baseUrl())) {
                try (ScheduleStore st = ScheduleStore.open(location)) {
                    if (st.rounds(s.name(), 10).size() == 3) doc = doc.replace(slow.baseUrl(), fast.baseUrl());
                }
            }
            String q = "?tag=" + RoundLauncher.scheduleTag(s.name()) + "&tag=" + RoundLauncher.roundTag(round.roundId());
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/runs" + q))
                    .header("Content-Type", "application/yaml")
                    .POST(HttpRequest.BodyPublishers.ofString(doc, StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            String id = JSON.readTree(r.body()).get("id").asText();
            started.run();
            HttpResponse<Stream<String>> events = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/runs/"
                    + id + "/events")).timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofLines());
            try (Stream<String> lines = events.body()) {
                Iterator<String> it = lines.iterator();
                while (it.hasNext() && !it.next().equals("event: run_finished")) {
                    // the run's events until its end
                }
            }
            return new RoundLauncher.Result(List.of(id), null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
