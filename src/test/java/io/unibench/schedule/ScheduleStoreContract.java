package io.unibench.schedule;

import io.unibench.BadInputException;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The schedule tables (migration V10) on each database: the same behaviour on SQLite and PostgreSQL. */
abstract class ScheduleStoreContract {
    abstract TestStores.Backend backend(Path tmp) throws Exception;

    @TempDir
    Path tmp;
    TestStores.Backend backend;
    ScheduleStore store;

    @BeforeEach
    void open() throws Exception {
        backend = backend(tmp);
        store = ScheduleStore.open(backend.location());
    }

    @AfterEach
    void close() throws Exception {
        if (store != null) store.close();
        if (backend != null) backend.close();
    }

    static Schedule nightly(String name) {
        return new Schedule(name, "scenarios: []\n", "bench.yaml", Trigger.cron("0 2 * * *", "Asia/Shanghai", "--cron"),
                Duration.ofMinutes(5), true, null, null, 1_000L, 1_000L);
    }

    @Test
    void schedulesRoundTripAndNamesAreUnique() throws Exception {
        store.add(nightly("nightly"));
        store.add(new Schedule("hourly", "x: 1\n", "h.json", Trigger.every(Duration.ofHours(1), 5_000L, "--every"),
                Duration.ZERO, false, null, null, 5_000L, 5_000L));
        assertThat(store.list()).extracting(Schedule::name).containsExactly("hourly", "nightly");
        Schedule n = store.get("nightly");
        assertThat(n.trigger().describe()).isEqualTo("cron \"0 2 * * *\" (Asia/Shanghai)");
        assertThat(n.jitter()).isEqualTo(Duration.ofMinutes(5));
        assertThat(n.document()).isEqualTo("scenarios: []\n");
        assertThat(store.get("hourly").trigger()).isEqualTo(new Trigger.Every(Duration.ofHours(1), 5_000L));
        assertThat(store.get("hourly").enabled()).isFalse();
        assertThatThrownBy(() -> store.add(nightly("nightly"))).isInstanceOf(BadInputException.class)
                .hasMessageContaining("schedule 'nightly': already exists");
        store.setNext("nightly", 10L, 12L);
        assertThat(store.get("nightly").nextDueAt()).isEqualTo(12L);
        store.setEnabled("nightly", false, 20L);
        assertThat(store.get("nightly").enabled()).isFalse();
        assertThat(store.get("nightly").nextFireAt()).isNull();
        assertThatThrownBy(() -> store.get("nope")).hasMessage("schedule 'nope': no such schedule (schedule list shows them)");
    }

    @Test
    void aRoundStillActiveMakesTheNextOneSkipNamingIt() throws Exception {
        store.add(nightly("n"));
        Round first = store.startRound("n", Round.SCHEDULED, 100L, 100L);
        assertThat(first.status()).isEqualTo(Round.QUEUED);
        store.roundRunning(first.roundId(), 110L);
        Round second = store.startRound("n", Round.SCHEDULED, 200L, 200L);
        assertThat(second.status()).isEqualTo(Round.SKIPPED);
        assertThat(second.reason()).isEqualTo("round " + first.roundId() + " (due 1970-01-01 00:00:00 UTC) is still running");
        store.roundEnded(first.roundId(), Round.FINISHED, null, List.of("run-a", "run-b"), 300L);
        Round third = store.startRound("n", Round.MANUAL, 400L, 400L);
        assertThat(third.status()).isEqualTo(Round.QUEUED);
        List<Round> rounds = store.rounds("n", 10);
        assertThat(rounds).extracting(Round::status).containsExactly(Round.QUEUED, Round.SKIPPED, Round.FINISHED);
        assertThat(rounds.get(2).runIds()).containsExactly("run-a", "run-b");
        assertThat(rounds.get(2).startedAt()).isEqualTo(110L);
        assertThat(rounds.get(2).endedAt()).isEqualTo(300L);
    }

    @Test
    void alertStateIncidentsAndHistoryPersist() throws Exception {
        store.add(nightly("n"));
        AlertRule rule = new AlertRule("slow", new Metric("ttft_p95_ms", null), AlertRule.Scope.EVERY, AlertRule.Op.GT,
                2000.0, null, 2, 1, 0, 0, 1, List.of());
        String target = new Target("p", "m", "chat", "parallel_4").key();
        AlertState s = AlertState.INITIAL;
        double[] values = {2500, 2600, 1500};
        List<AlertStore.Change> all = new java.util.ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            AlertMachine.Step step = AlertMachine.step(rule, s, false, values[i] > 2000);
            all.addAll(store.alerts().applyRound("n", rule, target,
                    new Observation("r" + i, 1000L * (i + 1), values[i], "run" + i, null), step));
            s = store.alerts().state("n", "slow", target);
        }
        assertThat(all).extracting(AlertStore.Change::event)
                .containsExactly(AlertMachine.Event.FIRED, AlertMachine.Event.RESOLVED);
        Incident inc = store.alerts().incidents("n", 10).getFirst();
        assertThat(inc.firedRound()).isEqualTo("r1");
        assertThat(inc.resolvedRound()).isEqualTo("r2");
        assertThat(inc.firstValue()).isEqualTo(2600.0);
        assertThat(inc.worstValue()).isEqualTo(2600.0);
        assertThat(inc.lastValue()).isEqualTo(1500.0);
        assertThat(s).isEqualTo(AlertState.INITIAL);
        assertThat(store.alerts().observations("n", "slow", target, 10)).extracting(Observation::value)
                .containsExactly(1500.0, 2600.0, 2500.0);
        assertThat(store.alerts().events("n")).extracting(AlertStore.HistoryEvent::kind).containsExactly("fired", "resolved");
        store.remove("n");
        assertThat(store.alerts().events("n")).isEmpty();
        assertThat(store.list()).isEmpty();
    }

    @Test
    void outboxKeepsChannelNamesNotUrlsAndLogsAttempts() throws Exception {
        Channel ch = new Channel("team", Channel.Type.FEISHU, "FEISHU_URL", "FEISHU_SECRET", "card", null);
        Notice n = new Notice("fired", "n", "slow", "ttft_p95_ms > 2000", "ms", new Target("p", "m", "chat", "parallel_4"), 2500.0,
                2000.0, 2500.0, java.util.Arrays.asList(null, 2100.0, 2500.0), 10L, 20L, 2, "r1", "run1", null);
        String id = store.outbox().enqueue("n", ch, n, 50L);
        assertThat(store.outbox().due(49L, 10)).isEmpty();
        OutboxStore.Message m = store.outbox().due(50L, 10).getFirst();
        assertThat(m.channel()).isEqualTo(ch);
        assertThat(m.notice()).isEqualTo(n.in("en")); // stored in the channel's language
        store.outbox().attempted(m, 60L, 500, OutboxStore.PENDING, "HTTP 500: busy", 90L);
        assertThat(store.outbox().nextAttempt()).isEqualTo(90L);
        store.outbox().attempted(store.outbox().due(90L, 1).getFirst(), 90L, 200, OutboxStore.SENT, null, 90L);
        assertThat(store.outbox().nextAttempt()).isNull();
        assertThat(store.outbox().deliveries(id)).extracting(OutboxStore.Delivery::outcome, OutboxStore.Delivery::httpStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("error", 500), org.assertj.core.groups.Tuple.tuple("delivered", 200));
    }
}
