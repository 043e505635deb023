package io.unibench.schedule;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.metrics.ConfidenceIntervals;
import io.unibench.metrics.Interval;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.TestRecords;
import io.unibench.schedule.AlertRule.Decision;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Issue 30 §2: a threshold rule on a percentile or a mean decides on the value's stored 95 % confidence interval: a
 * breach only when the whole interval is beyond the threshold, a clear round only when it is wholly within, and an
 * inconclusive round (neither a breach nor a recovery: the state is held) when it straddles it. Deterministic: the
 * stored points are made from fixed records (TTFT 100, 101, …, 499 ms), whose p95 interval is known from the ranks.
 */
class AlertIntervalTest {
    private static final int N = 400;

    @TempDir
    Path tmp;
    private ScheduleStore schedules;
    private RunStore runs;
    private long now = 1_000_000L;

    @BeforeEach
    void open() throws Exception {
        StoreLocation location = TestStores.sqlite(tmp).location();
        schedules = ScheduleStore.open(location);
        runs = RunStore.open(location);
        schedules.add(new Schedule("n", "scenarios: []\n", "bench.yaml", Trigger.every(Duration.ofHours(1), 0, "--every"),
                Duration.ZERO, true, null, null, 0L, 0L));
    }

    @AfterEach
    void close() throws Exception {
        runs.close();
        schedules.close();
    }

    /** The p95 interval of TTFT 100 … 499 ms: the sorted samples at the interval's ranks. */
    private static Interval p95() {
        ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(N, 0.95);
        return new Interval(100 + r.lower(), 100 + r.upper());
    }

    /** One finished round whose single point's TTFTs are {@code offset + 100 … offset + 499} ms. */
    private Round round(double offsetMs) throws Exception {
        now += 60_000;
        ObjectNode config = new ObjectMapper().createObjectNode().put("name", "bench");
        String id = runs.createRun(new RunStart("bench/p", List.of(), "m", "http://h/v1", config,
                Map.of("provider", "p")), Owner.current(), now);
        RunInfo info = new RunInfo("p/chat/parallel_1", 1, -1, -1);
        runs.addPoint(id, 0, info, now);
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < N; i++) {
            double start = i * 1000.0;
            double ttft = offsetMs + 100 + i;
            m.accept(TestRecords.record().index(i).startMs(start).tokens(10, 3)
                    .chunksMs(start + ttft, start + ttft + 5, start + ttft + 10).endMs(start + ttft + 10).build());
        }
        runs.savePointResult(id, 0, m.result(info));
        runs.finishRun(id, RunRow.FINISHED, now);
        Round r = schedules.startRound("n", Round.MANUAL, now, now);
        schedules.roundRunning(r.roundId(), now);
        schedules.roundEnded(r.roundId(), Round.FINISHED, null, List.of(id), now);
        return schedules.round(r.roundId());
    }

    private static String rule(String name, String metric, double threshold) {
        return "  - {name: " + name + ", metric: " + metric + ", op: \">\", threshold: " + threshold
                + ", for_rounds: 1, notify: [hook]}\n";
    }

    private Map<String, AlertEvaluator.Outcome> evaluate(AlertsDocument alerts, Round round) throws Exception {
        Map<String, AlertEvaluator.Outcome> out = new LinkedHashMap<>();
        for (AlertEvaluator.Outcome o : new AlertEvaluator(schedules, runs, null).evaluate(schedules.get("n"), round,
                alerts, now)) {
            out.put(o.rule().name(), o);
        }
        return out;
    }

    @Test
    void aBreachNeedsTheWholeIntervalBeyondTheThresholdAndAStraddleIsNeitherABreachNorARecovery() throws Exception {
        Interval ci = p95();
        double value = 480; // the report's p95 (nearest rank, the higher of two): the 381st of 400
        assertThat(ci.low()).isLessThan(value - 1);
        assertThat(ci.high()).isGreaterThan(value + 1);
        AlertsDocument alerts = AlertsDocument.parse("bench.yaml", "alerts:\n"
                + rule("beyond", "ttft_p95_ms", ci.low() - 1)       // the whole interval above: a breach
                + rule("value-above", "ttft_p95_ms", value - 1)    // the value above, the interval straddling
                + rule("value-below", "ttft_p95_ms", value + 1)    // the value below, the interval straddling
                + rule("within", "ttft_p95_ms", ci.high() + 1)     // the whole interval below: clear
                + rule("mean", "ttft_mean_ms", 305)                // mean 299.5, its t-interval straddles 305
                + "notify:\n  - {name: hook, type: webhook, url_env: HOOK_URL}\n");

        // round 1: TTFT 100 … 499 ms
        Map<String, AlertEvaluator.Outcome> r1 = evaluate(alerts, round(0));
        AlertEvaluator.Outcome beyond = r1.get("beyond");
        assertThat(beyond.observation().value()).isEqualTo(value);
        assertThat(beyond.interval()).isEqualTo(ci); // read back from the stored benchmark_percentile.json
        assertThat(beyond.decision()).isEqualTo(Decision.BREACH);
        assertThat(beyond.changes()).extracting(AlertStore.Change::event).containsExactly(AlertMachine.Event.FIRED);
        assertThat(beyond.observation().note()).isEqualTo("95% CI " + AlertEvaluator.intervalText(ci)
                + " ms wholly beyond the threshold " + Numbers.format(ci.low() - 1) + ": a breach");
        // before: 480 > 479 fired at once; now the interval straddles 479: inconclusive, no page
        AlertEvaluator.Outcome above = r1.get("value-above");
        assertThat(above.decision()).isEqualTo(Decision.INCONCLUSIVE);
        assertThat(above.changes()).isEmpty();
        assertThat(above.state().status()).isEqualTo(AlertState.Status.OK);
        assertThat(above.state().breachStreak()).isZero();
        assertThat(above.observation().note()).isEqualTo("95% CI " + AlertEvaluator.intervalText(ci)
                + " ms straddles the threshold 479: inconclusive (neither a breach nor a recovery)");
        assertThat(r1.get("value-below").decision()).isEqualTo(Decision.INCONCLUSIVE);
        assertThat(r1.get("within").decision()).isEqualTo(Decision.CLEAR);
        assertThat(r1.get("within").state().status()).isEqualTo(AlertState.Status.OK);
        AlertEvaluator.Outcome mean = r1.get("mean");
        assertThat(mean.observation().value()).isCloseTo(299.5, within(0.01));
        assertThat(mean.interval()).isNotNull();
        assertThat(mean.interval().low()).isLessThan(299.5);
        assertThat(mean.interval().high()).isBetween(305.0, 320.0);
        assertThat(mean.decision()).isEqualTo(Decision.INCONCLUSIVE);

        // the fired notice carries the interval it was decided on
        List<OutboxStore.Message> sent = Notifier.undelivered(schedules.outbox(), "n");
        assertThat(sent).singleElement().satisfies(m -> {
            assertThat(m.notice().interval()).containsExactly(ci.low(), ci.high());
            assertThat(m.notice().text()).contains("Value: TTFT p95 480 ms, 95% CI [" + Numbers.readable(ci.low())
                    + ", " + Numbers.readable(ci.high()) + "] (threshold ");
        });

        // round 2: a second slower, every interval wholly above every threshold: all fire
        Map<String, AlertEvaluator.Outcome> r2 = evaluate(alerts, round(1000));
        for (String name : List.of("beyond", "value-above", "value-below", "within", "mean")) {
            assertThat(r2.get(name).decision()).as(name).isEqualTo(Decision.BREACH);
            assertThat(r2.get(name).state().status()).as(name).isEqualTo(AlertState.Status.FIRING);
        }

        // round 3: back to round 1's figures. The clear rule resolves; a straddling one stays firing (before:
        // 480 < 481 resolved "value-below" on a round that cannot tell), its clear streak untouched
        Map<String, AlertEvaluator.Outcome> r3 = evaluate(alerts, round(0));
        assertThat(r3.get("within").changes()).extracting(AlertStore.Change::event)
                .containsExactly(AlertMachine.Event.RESOLVED);
        for (String name : List.of("value-above", "value-below", "mean")) {
            AlertEvaluator.Outcome o = r3.get(name);
            assertThat(o.decision()).as(name).isEqualTo(Decision.INCONCLUSIVE);
            assertThat(o.changes()).as(name).isEmpty();
            assertThat(o.state().status()).as(name).isEqualTo(AlertState.Status.FIRING);
            assertThat(o.state().clearStreak()).as(name).isZero();
        }
        assertThat(r3.get("beyond").state().status()).isEqualTo(AlertState.Status.FIRING);
        assertThat(r3.get("beyond").changes()).isEmpty();
    }

    @Test
    void theDecisionOnAnIntervalInEachDirectionAndWithoutOne() {
        AlertRule above = rule(AlertRule.Op.GT, 400);
        assertThat(above.decide(450, new Interval(420, 470))).isEqualTo(Decision.BREACH);
        assertThat(above.decide(412, new Interval(388, 440))).isEqualTo(Decision.INCONCLUSIVE);
        assertThat(above.decide(390, new Interval(380, 405))).isEqualTo(Decision.INCONCLUSIVE);
        assertThat(above.decide(350, new Interval(300, 399))).isEqualTo(Decision.CLEAR);
        assertThat(above.decide(350, new Interval(300, 400))).isEqualTo(Decision.CLEAR); // 400 > 400 does not hold
        assertThat(above.decide(412, null)).isEqualTo(Decision.BREACH); // no interval: the value decides
        assertThat(above.decide(390, null)).isEqualTo(Decision.CLEAR);
        AlertRule below = rule(AlertRule.Op.LT, 100); // e.g. output tok/s < 100: lower is worse
        assertThat(below.decide(80, new Interval(70, 90))).isEqualTo(Decision.BREACH);
        assertThat(below.decide(95, new Interval(90, 110))).isEqualTo(Decision.INCONCLUSIVE);
        assertThat(below.decide(120, new Interval(101, 130))).isEqualTo(Decision.CLEAR);
        AlertRule atLeast = rule(AlertRule.Op.GE, 400);
        assertThat(atLeast.decide(420, new Interval(400, 440))).isEqualTo(Decision.BREACH);
        assertThat(atLeast.decide(390, new Interval(380, 400))).isEqualTo(Decision.INCONCLUSIVE);
    }

    @Test
    void anInconclusiveRoundHoldsTheStateAndEndsOnlyANoDataStreak() {
        AlertState pending = new AlertState(AlertState.Status.PENDING, 1, 0, 0, 0, null, null);
        assertThat(AlertMachine.inconclusive(pending)).isEqualTo(new AlertMachine.Step(pending, List.of()));
        AlertState firing = new AlertState(AlertState.Status.FIRING, 0, 1, 2, 1, "inc", "nd");
        AlertMachine.Step step = AlertMachine.inconclusive(firing);
        assertThat(step.state()).isEqualTo(new AlertState(AlertState.Status.FIRING, 0, 1, 0, 1, "inc", "nd"));
        assertThat(step.events()).containsExactly(AlertMachine.Event.DATA_BACK);
    }

    private static AlertRule rule(AlertRule.Op op, double threshold) {
        return new AlertRule("r", new Metric("ttft_p95_ms", null), AlertRule.Scope.EVERY, op, threshold, null, 1, 1, 0,
                0, 1, List.of());
    }
}
