package io.unibench.report.scenario;

import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.CostMeter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The provider comparison compares each level with the same level, and builds its verdict from those. */
class ComparisonTest {
    private static final CostMeter.Totals NONE = new CostMeter.Totals(0, 0, 0, 0);
    private static final ScenarioResults.Scenario QA = new ScenarioResults.Scenario("qa", "chat", false, false);

    /** {@code n} non-streamed successes of {@code latencyMs} each, back to back. */
    private static List<RequestRecord> records(int n, long latencyMs) {
        List<RequestRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = i * latencyMs * 1_000_000L;
            long end = start + latencyMs * 1_000_000L;
            out.add(new RequestRecord(Position.single(i, "r" + i),
                    new Timing(false, 0, Moments.ABSENT, start, start, end, end, end, new long[0]),
                    Tokens.counted(10, 5, RequestRecord.TokenSource.SERVER), Outcome.ok(200, "stop"), PhaseTimes.NONE,
                    null));
        }
        return out;
    }

    private static RunResult result(List<RequestRecord> records, int concurrency) {
        RunMetrics m = new RunMetrics();
        records.forEach(m::accept);
        return m.result(new RunInfo("c" + concurrency, concurrency, -1, records.size()));
    }

    /** A provider's series over levels 1 and 8: {n, latency ms} at each. Time-held levels: n differs. */
    private static ScenarioResults.Series series(String name, int n1, long ms1, int n8, long ms8) {
        List<RequestRecord> one = records(n1, ms1);
        List<RequestRecord> eight = records(n8, ms8);
        List<RequestRecord> all = new ArrayList<>(one);
        all.addAll(eight);
        ScenarioResults.Provider p = new ScenarioResults.Provider(name, "m", null);
        return new ScenarioResults.Series(p, QA, List.of(new ScenarioResults.Level(1, result(one, 1), NONE),
                new ScenarioResults.Level(8, result(eight, 8), NONE)), result(all, -1), NONE, null);
    }

    @Test
    void theProviderFasterAtEveryLevelWinsThoughPoolingTheLevelsWouldCrownTheOther() {
        // fast: 100 ms at level 1, 300 ms at level 8, and (held for the same time) 8× as many requests at level 8;
        // slow: 150 ms and 400 ms, most of its requests at level 1. Pooled, slow's p50 is 150 ms and fast's 300 ms.
        ScenarioResults.Series fast = series("fast", 10, 100, 80, 300);
        ScenarioResults.Series slow = series("slow", 20, 150, 10, 400);
        assertThat(fast.overall().percentile("50%", io.unibench.metrics.PercentileRow.LATENCY))
                .isGreaterThan(slow.overall().percentile("50%", io.unibench.metrics.PercentileRow.LATENCY));

        Comparison.Table t = Comparison.of("qa", List.of(fast, slow));
        assertThat(t.levels()).containsExactly(1, 8);
        Comparison.Column p50 = column(t, "Latency p50 (ms)");
        assertThat(p50.best(0)).isTrue();
        assertThat(p50.best(1)).isFalse();
        assertThat(p50.wins()).containsExactly(2, 0);
        assertThat(p50.values()).containsExactly((100 + 300) / 2.0, (150 + 400) / 2.0); // each level weighs the same
        // per level: the same level, side by side
        assertThat(column(t.perLevel().get(0), "Latency p50 (ms)").values()).containsExactly(100.0, 150.0);
        assertThat(column(t.perLevel().get(1), "Latency p50 (ms)").values()).containsExactly(300.0, 400.0);
    }

    @Test
    void onlyLevelsEveryProviderRanAreCompared() {
        ScenarioResults.Series both = series("a", 4, 100, 4, 200);
        ScenarioResults.Series partial = new ScenarioResults.Series(both.provider(), QA,
                List.of(both.levels().getFirst()), both.overall(), NONE, null); // stopped before level 8
        Comparison.Table t = Comparison.of("qa", List.of(both, partial));
        assertThat(t.levels()).containsExactly(1);
        assertThat(t.perLevel()).hasSize(1);
    }

    private static Comparison.Column column(Comparison.Table t, String title) {
        return t.columns().stream().filter(c -> c.title().equals(title)).findFirst().orElseThrow();
    }
}
