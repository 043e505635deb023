package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Page;
import io.unibench.schedule.Round;
import io.unibench.schedule.RoundLauncher;
import io.unibench.schedule.RoundRunner;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleStore;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The schedule pages in real headless Chromium ({@link BrowserTestBase}): a schedule created from the form (the cron
 * expression checked beside its field as it is typed), listed with its next fire time, its rounds, alert history
 * and open incidents, the trend chart of its rounds, and the alert-rule editor. Rounds are real runs of the
 * schedule's document through the service (POST /api/runs, the same pipeline as every run) recorded by the
 * schedule package's {@link RoundRunner} on an injected clock one day apart, so the trend has points without
 * waiting for a fire time.
 */
class ScheduleBrowserTest extends BrowserTestBase {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Two levels against the fixture's simulator; the rule fires on the second round (TTFT is always above 0.5 ms). */
    static String document(String name) {
        return """
                name: %s
                provider:
                  name: local
                  base_url: %s/v1
                  model: m
                  api_key_env: TEST_KEY
                generation: {max_tokens: 8}
                concurrency: {levels: [1, 2], requests_per_level: 4}
                scenarios:
                  - {name: qa, type: chat, prompt: Say hello.}
                alerts:
                  - name: slow-first-token
                    metric: ttft_p95_ms
                    op: ">"
                    threshold: 0.5
                    for_rounds: 2
                    notify: [team-hook]
                notify:
                  - {name: team-hook, type: webhook, url_env: TEAM_HOOK_URL}
                """.formatted(name, f.sim.baseUrl());
    }

    /** The new-schedule form filled in and created; returns the schedule's page. */
    private static Page create(String name) {
        Page page = open("/schedules/new");
        page.locator("#name").fill(name);
        page.locator("#cron").fill("0 2 * * *");
        page.locator("#tz").fill("Asia/Shanghai");
        page.locator("#document").fill(document(name));
        page.locator("#schedule-save").click();
        page.waitForURL("**/schedules/" + name);
        return page;
    }

    @Test
    void aScheduleCreatedFromTheFormShowsItsCronCheckAndIsListedWithItsNextFireTime() {
        Page page = open("/schedules/new");
        page.locator("#cron").fill("0 2 * *");
        page.waitForSelector("#cron-preview.error");
        assertThat(page.locator("#cron-preview").textContent()).startsWith("expr '0 2 * *'");
        // beside the field: on the expression's row, to its right
        var field = page.locator("#cron").boundingBox();
        var message = page.locator("#cron-preview").boundingBox();
        assertThat(message.x).isGreaterThan(field.x + field.width);
        assertThat(Math.abs(message.y - field.y)).isLessThan(field.height);
        shot(page, "schedule-new-bad-cron.png");

        page.locator("#tz").fill("Asia/Shanghai");
        page.locator("#cron").fill("30 1 * * 1");
        page.waitForSelector("#cron-preview.ok li:nth-child(5)");
        List<String> next = page.locator("#cron-preview li").allTextContents();
        assertThat(next).hasSize(5).allSatisfy(t -> assertThat(t).endsWith("01:30:00 Asia/Shanghai"));
        page.locator("#name").fill("weekly");
        page.locator("#document").fill(document("weekly"));
        shot(page, "schedule-new.png");
        page.locator("#schedule-save").click();
        page.waitForURL("**/schedules/weekly");
        assertThat(page.locator("h1").textContent()).contains("weekly").contains("cron \"30 1 * * 1\"");
        assertThat(page.locator("#next-fires li").count()).isEqualTo(5);
        assertThat(page.locator("#rule-list li[data-rule=slow-first-token]").textContent())
                .contains("slow-first-token: ttft_p95_ms > 0.5 for 2 round(s) → team-hook").contains("document");

        page.navigate(f.base() + "/schedules");
        var row = page.locator("#schedules tr", new Page.LocatorOptions().setHas(page.locator("a[href='/schedules/weekly']")));
        // the next fire time as the cron expression means it: the first of the five the form showed
        assertThat(row.locator("td").nth(4).textContent()).isEqualTo(next.getFirst());
        assertThat(row.locator("td").nth(3).textContent()).isEqualTo("yes");
        assertThat(row.locator("td").nth(1).textContent()).isEqualTo("no round yet"); // the overview's state
        shot(page, "schedule-list.png");
    }

    @Test
    void roundsAlertHistoryAndTheTrendChartOfAScheduleShow() throws Exception {
        create("nightly");
        Instant first = Instant.parse("2026-11-27T18:00:00Z"); // 02:00 in Asia/Shanghai
        try (ScheduleStore store = ScheduleStore.open(f.location)) {
            Schedule s = store.get("nightly");
            AtomicLong clock = new AtomicLong();
            RoundRunner rounds = new RoundRunner(store, f.store, ScheduleBrowserTest::runRound, clock::get, null,
                    new PrintWriter(new StringWriter()));
            for (int day = 0; day < 3; day++) {
                long due = first.plus(Duration.ofDays(day)).toEpochMilli();
                clock.set(due);
                Round queued = store.startRound(s.name(), Round.SCHEDULED, due, due);
                assertThat(rounds.run(s, queued).round().status()).isEqualTo(Round.FINISHED);
            }
        }

        Page page = open("/schedules/nightly");
        assertThat(page.locator("#rounds tbody tr").count()).isEqualTo(3);
        assertThat(page.locator("#rounds tbody tr").first().locator("td").first().textContent())
                .isEqualTo("2026-11-29 18:00:00 UTC");
        // one incident per target (levels 1 and 2), fired on the second round and still open
        assertThat(page.locator("#open-incidents tbody tr").count()).isEqualTo(2);
        assertThat(page.locator("#alert-history tbody tr.event-fired").count()).isEqualTo(2);
        assertThat(page.locator("#alert-history tbody tr").first().locator("a").count()).isEqualTo(1);
        shot(page, "schedule-page.png");

        page.locator("a[href='/schedules/nightly/trend?metric=ttft_p95_ms']").click();
        page.waitForFunction("window.unibenchCharts && window.unibenchCharts['chart-trend']");
        assertThat(series(page, "chart-trend")).isEqualTo(2);
        assertThat(drawn(page, "chart-trend")).isTrue();
        assertThat(((Number) page.evaluate("window.unibenchCharts['chart-trend'].points")).intValue()).isEqualTo(6);
        assertThat(((Number) page.evaluate("window.unibenchCharts['chart-trend'].thresholds")).intValue()).isEqualTo(1);
        assertThat(page.locator("#chart-trend .u-legend").textContent()).contains("threshold slow-first-token")
                .contains("local (m) · qa · concurrency 1").contains("local (m) · qa · concurrency 2");
        assertThat(page.locator("#trend-marks li").allTextContents()).hasSize(2)
                .allSatisfy(t -> assertThat(t).startsWith("2026-11-28 18:00:00 UTC · fired · slow-first-token · "
                        + "local (m) · qa · concurrency "));
        shot(page, "trend.png");
    }

    @Test
    void theRuleEditorShowsARefusalBesideItsFieldAndAddsARuleAsTheApiDoes() throws Exception {
        Page page = create("editor");
        page.locator("#rule-name").fill("few-successes");
        page.locator("#rule-metric").selectOption("success_rate");
        page.locator("#rule-op").selectOption("<");
        page.locator("#rule-threshold").fill("ninety");
        page.locator("#rule-for-rounds").fill("0");
        page.locator("#rule-notify input[value=team-hook]").check();
        page.locator("#rule-save").click();
        page.waitForSelector(".field-error[data-for=threshold]");
        assertThat(page.locator(".field-error[data-for=threshold]").textContent()).contains("number");
        assertThat(page.locator(".field-error[data-for=for_rounds]").textContent()).contains("1");
        // what was typed is kept
        assertThat(page.locator("#rule-name").inputValue()).isEqualTo("few-successes");
        assertThat(page.locator("#rule-metric").inputValue()).isEqualTo("success_rate");
        assertThat(page.locator("#rule-notify input[value=team-hook]").isChecked()).isTrue();
        assertThat(page.locator("#rule-list li[data-rule=few-successes]").count()).isZero();
        shot(page, "schedule-rule-error.png");

        page.locator("#rule-threshold").fill("99.5");
        page.locator("#rule-for-rounds").fill("3");
        page.locator("#rule-save").click();
        page.waitForSelector("#rule-list li[data-rule=few-successes]");
        assertThat(page.locator("#rule-list li[data-rule=few-successes]").textContent())
                .contains("few-successes: success_rate < 99.5 for 3 round(s) → team-hook").contains("added here");
        assertThat(page.locator(".field-error").count()).isZero();
        // stored as the API stores a rule: the API lists it, the trend of its metric draws its threshold
        var detail = JSON.readTree(f.get("/api/schedules/editor").body());
        assertThat(JSON.readTree(detail.get("rules").get("few-successes").asText()).toString()).isEqualTo(
                "{\"name\":\"few-successes\",\"metric\":\"success_rate\",\"op\":\"<\",\"threshold\":99.5,"
                + "\"for_rounds\":3,\"resolve_after_rounds\":1,\"notify\":[\"team-hook\"]}");
        assertThat(JSON.readTree(f.get("/api/trends?schedule=editor&metric=success_rate").body()).get("thresholds")
                .toString()).isEqualTo("[{\"rule\":\"few-successes\",\"value\":99.5}]");

        page.locator("#rule-name").fill("p99 regressed"); // a name that needs encoding in the remove URL
        page.locator("#rule-metric").selectOption("latency_p99_s");
        page.locator("input[name=form][value=regression]").check();
        assertThat(page.locator("#rule-threshold").isDisabled()).isTrue();
        page.locator("#rule-regression-rounds").fill("5");
        page.locator("#rule-regression-percent").fill("20");
        page.locator("#rule-save").click();
        page.waitForSelector("#rule-list li[data-rule=\"p99 regressed\"]");
        assertThat(page.locator("#rule-list li[data-rule=\"p99 regressed\"]").textContent())
                .contains("latency_p99_s 20% above the median of its last 5 rounds");
        shot(page, "schedule-edit.png");

        page.locator("#rule-list li[data-rule=\"p99 regressed\"] button").click();
        page.waitForURL("**/schedules/editor#rules");
        assertThat(page.locator("#rule-list li[data-rule=\"p99 regressed\"]").count()).isZero();
    }

    /** A round's run: the schedule's document through the service, as any run, tagged with its schedule and round. */
    private static RoundLauncher.Result runRound(Schedule s, Round round, Runnable started) {
        try {
            String q = "?tag=" + RoundLauncher.scheduleTag(s.name()) + "&tag=" + RoundLauncher.roundTag(round.roundId());
            HttpResponse<String> r = f.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs" + q))
                    .header("Content-Type", "application/yaml")
                    .POST(HttpRequest.BodyPublishers.ofString(s.document(), StandardCharsets.UTF_8)));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            String id = JSON.readTree(r.body()).get("id").asText();
            started.run(); // the queue had it at once: nothing else runs in this service
            HttpResponse<Stream<String>> events = f.http.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/"
                    + id + "/events")).timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofLines());
            try (Stream<String> lines = events.body()) {
                Iterator<String> it = lines.iterator();
                while (it.hasNext() && !it.next().equals("event: run_finished")) {
                    // the run's events until its end
                }
            }
            assertThat(f.store.run(id).row().status()).isEqualTo("finished");
            return new RoundLauncher.Result(List.of(id), null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
