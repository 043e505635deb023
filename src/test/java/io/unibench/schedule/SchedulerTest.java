package io.unibench.schedule;

import io.unibench.store.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The scheduler on a hand-driven clock: cron and interval firing, jitter, no overlap, one catch-up after downtime. */
class SchedulerTest {
    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    @TempDir
    Path tmp;
    ScheduleStore store;
    final AtomicLong now = new AtomicLong();
    final List<Round> submitted = new ArrayList<>();
    final List<Long> jitterBounds = new ArrayList<>();
    long jitterAnswer;
    final StringWriter log = new StringWriter();
    Scheduler scheduler;

    @BeforeEach
    void open() throws Exception {
        store = ScheduleStore.open(TestStores.sqlite(tmp).location());
        scheduler = new Scheduler(store, now::get, bound -> {
            jitterBounds.add(bound);
            return jitterAnswer;
        }, (s, r) -> submitted.add(r), new PrintWriter(log));
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    private static long at(String local) {
        return ZonedDateTime.of(java.time.LocalDateTime.parse(local), SHANGHAI).toInstant().toEpochMilli();
    }

    private void add(String name, Trigger t, Duration jitter) throws Exception {
        store.add(new Schedule(name, "x: 1\n", "b.yaml", t, jitter, true, null, null, now.get(), now.get()));
    }

    @Test
    void cronFiresAtItsLocalTimeAndPlansTheNext() throws Exception {
        now.set(at("2026-12-01T01:00:00"));
        add("nightly", Trigger.cron("0 2 * * *", "Asia/Shanghai", "--cron"), Duration.ZERO);
        assertThat(scheduler.tick()).isEqualTo(at("2026-12-01T02:00:00"));
        assertThat(submitted).isEmpty();
        now.set(at("2026-12-01T01:59:59"));
        scheduler.tick();
        assertThat(submitted).isEmpty();
        now.set(at("2026-12-01T02:00:00"));
        assertThat(scheduler.tick()).isEqualTo(at("2026-12-02T02:00:00"));
        assertThat(submitted).singleElement().satisfies(r -> {
            assertThat(r.trigger()).isEqualTo(Round.SCHEDULED);
            assertThat(r.dueAt()).isEqualTo(at("2026-12-01T02:00:00"));
        });
        assertThat(jitterBounds).isEmpty(); // no jitter asked for: none drawn
    }

    @Test
    void intervalCountsFromTheAnchorNotFromTheRound() {
        Trigger every = Trigger.every(Duration.ofHours(6), 1_000, "--every");
        assertThat(every.next(3, 1_000)).containsExactly(1_000 + 21_600_000L, 1_000 + 43_200_000L, 1_000 + 64_800_000L);
        assertThat(every.nextAfter(1_000 + 21_600_000L - 1)).isEqualTo(1_000 + 21_600_000L);
    }

    @Test
    void cronFollowsDaylightSavingTime() {
        Trigger.Cron c = Trigger.cron("30 2 * * *", "Europe/Berlin", "--cron");
        long beforeSwitch = ZonedDateTime.of(2026, 3, 28, 12, 0, 0, 0, ZoneId.of("Europe/Berlin")).toInstant().toEpochMilli();
        List<Long> next = c.next(2, beforeSwitch);
        // 29 March 2026 02:30 does not exist in Berlin (clocks jump 02:00 → 03:00): cron-utils skips that day's
        // round (the README says so), and the next day's runs at 02:30 again
        assertThat(Instant.ofEpochMilli(next.get(0)).atZone(ZoneId.of("Europe/Berlin")).toLocalDateTime())
                .isEqualTo(java.time.LocalDateTime.of(2026, 3, 30, 2, 30));
        assertThat(Instant.ofEpochMilli(next.get(1)).atZone(ZoneId.of("Europe/Berlin")).toLocalDateTime())
                .isEqualTo(java.time.LocalDateTime.of(2026, 3, 31, 2, 30));
        // the autumn change repeats 02:00–03:00: 02:30 fires once
        long october = ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, ZoneId.of("Europe/Berlin")).toInstant().toEpochMilli();
        List<Long> autumn = c.next(2, october);
        assertThat(autumn.get(1) - autumn.get(0)).isEqualTo(Duration.ofHours(25).toMillis());
    }

    @Test
    void jitterDelaysTheRoundWithinItsBound() throws Exception {
        now.set(at("2026-12-01T01:00:00"));
        add("j", Trigger.cron("0 2 * * *", "Asia/Shanghai", "--cron"), Duration.ofMinutes(10));
        jitterAnswer = 99_999_999; // a draw beyond the bound is clamped to it
        assertThat(scheduler.tick()).isEqualTo(at("2026-12-01T02:10:00"));
        assertThat(jitterBounds).containsExactly(600_000L);
        store.setEnabled("j", false, now.get());
        store.setEnabled("j", true, now.get());
        jitterAnswer = 90_000;
        assertThat(scheduler.tick()).isEqualTo(at("2026-12-01T02:01:30"));
        now.set(at("2026-12-01T02:01:29"));
        scheduler.tick();
        assertThat(submitted).isEmpty();
        now.set(at("2026-12-01T02:01:30"));
        scheduler.tick();
        assertThat(submitted).singleElement().satisfies(r -> assertThat(r.dueAt()).isEqualTo(at("2026-12-01T02:00:00")));
    }

    @Test
    void aRoundStillRunningMakesTheNextSkipAndTheOneAfterRuns() throws Exception {
        now.set(0);
        add("i", Trigger.every(Duration.ofMinutes(10), 0, "--every"), Duration.ZERO);
        scheduler.tick();
        now.set(600_000);
        scheduler.tick();
        Round first = submitted.getFirst();
        store.roundRunning(first.roundId(), now.get());
        now.set(1_200_000);
        scheduler.tick();
        assertThat(submitted).hasSize(1);
        assertThat(store.rounds("i", 10).getFirst().status()).isEqualTo(Round.SKIPPED);
        assertThat(store.rounds("i", 10).getFirst().reason()).contains(first.roundId()).contains("still running");
        assertThat(log.toString()).contains("skipped: round " + first.roundId());
        store.roundEnded(first.roundId(), Round.FINISHED, null, List.of(), now.get());
        now.set(1_800_000);
        scheduler.tick();
        assertThat(submitted).hasSize(2);
        assertThat(submitted.get(1).dueAt()).isEqualTo(1_800_000);
    }

    @Test
    void afterDowntimeOneCatchUpRoundRunsNeverABurst() throws Exception {
        now.set(0);
        add("i", Trigger.every(Duration.ofHours(1), 0, "--every"), Duration.ZERO);
        scheduler.tick(); // due at 1 h
        now.set(Duration.ofHours(5).plusMinutes(30).toMillis()); // down from before 1 h until 5 h 30
        assertThat(scheduler.tick()).isEqualTo(Duration.ofHours(6).toMillis());
        assertThat(submitted).singleElement().satisfies(r -> {
            assertThat(r.trigger()).isEqualTo(Round.CATCH_UP);
            assertThat(r.dueAt()).isEqualTo(Duration.ofHours(1).toMillis());
        });
        List<Round> rounds = store.rounds("i", 10);
        assertThat(rounds).extracting(Round::status).containsExactlyInAnyOrder(Round.QUEUED, Round.SKIPPED);
        Round skipped = rounds.stream().filter(r -> r.status().equals(Round.SKIPPED)).findFirst().orElseThrow();
        assertThat(skipped.reason()).isEqualTo("missed 4 more fire time(s) up to 1970-01-01 05:00:00 UTC while no "
                + "scheduler ran; one catch-up round runs instead");
    }

    @Test
    void aSlowTickIsNotACatchUp() throws Exception {
        now.set(0);
        add("i", Trigger.every(Duration.ofHours(1), 0, "--every"), Duration.ZERO);
        scheduler.tick();
        now.set(Duration.ofHours(1).plusSeconds(59).toMillis());
        scheduler.tick();
        assertThat(submitted).singleElement().satisfies(r -> assertThat(r.trigger()).isEqualTo(Round.SCHEDULED));
    }

    @Test
    void aScheduleStoredJustBeforeItsTimeFiresAtThatTime() throws Exception {
        now.set(at("2026-12-01T01:59:50"));
        add("late", Trigger.cron("0 2 * * *", "Asia/Shanghai", "--cron"), Duration.ZERO);
        now.set(at("2026-12-01T02:00:20")); // the service's first look comes after the fire time
        scheduler.tick();
        assertThat(submitted).singleElement().satisfies(r -> {
            assertThat(r.trigger()).isEqualTo(Round.SCHEDULED);
            assertThat(r.dueAt()).isEqualTo(at("2026-12-01T02:00:00"));
        });
    }

    @Test
    void disabledSchedulesDoNotFire() throws Exception {
        now.set(0);
        add("i", Trigger.every(Duration.ofMinutes(1), 0, "--every"), Duration.ZERO);
        scheduler.tick();
        store.setEnabled("i", false, 0);
        now.set(Duration.ofHours(2).toMillis());
        assertThat(scheduler.tick()).isNull();
        assertThat(submitted).isEmpty();
    }
}
