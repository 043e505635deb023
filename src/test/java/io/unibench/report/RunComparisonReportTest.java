package io.unibench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.Interval;
import io.unibench.metrics.MetricDelta;
import io.unibench.metrics.MetricDelta.Direction;
import org.junit.jupiter.api.Test;

import java.util.List;

/** {@code runs compare}'s text: one table per shared level, each run beside the baseline, pinned byte for byte. */
class RunComparisonReportTest {
    @Test
    void rendersEachSharedLevelWithEveryRunBesideTheBaseline() {
        MetricDelta bP95 = new MetricDelta("chat/parallel_4", "p95 TTFT (ms)", 100.0, 2600.0, 2500.0, 2500.0,
                Direction.LOWER_BETTER, MetricDelta.WORSE, new Interval(2400, 2610), 400L, 380L, null);
        MetricDelta bTput = new MetricDelta("chat/parallel_4", "Req Throughput (req/s)", 10.0, 9.0, -1.0, -10.0,
                Direction.HIGHER_BETTER, "", null, null, null, null);
        MetricDelta cP95 = new MetricDelta("chat/parallel_4", "p95 TTFT (ms)", 100.0, 100.6, 0.6, 0.6,
                Direction.LOWER_BETTER, MetricDelta.SAME, new Interval(-2, 3), 400L, 50L, null);
        MetricDelta cP99 = new MetricDelta("chat/parallel_4", "p99 TTFT (ms)", 120.0, 130.0, 10.0, 100 * 10.0 / 120,
                Direction.LOWER_BETTER, MetricDelta.TOO_FEW, null, 400L, 50L, "p99 needs ≥ 368 requests a side");
        String text = RunComparisonReport.render("ra — m @ http://h [finished]", List.of(
                new RunComparisonReport.Side("B", "rb — q @ http://h [finished]", List.of(bP95, bTput),
                        List.of("chat/parallel_1"), List.of("chat/parallel_2")),
                new RunComparisonReport.Side("C", "rc — k @ http://h [finished]", List.of(cP95, cP99), List.of(),
                        List.of())), "METHOD");
        assertThat(text).isEqualTo("""
                A (baseline): ra — m @ http://h [finished]
                B: rb — q @ http://h [finished]
                C: rc — k @ http://h [finished]
                Points matched by scenario and level (concurrency or request rate), not by provider or label.
                Δ = run − A in % of A, [95% interval]; verdict: METHOD.

                chat/parallel_4 — concurrency 4
                ┌────────────────────────┬────────────┬─────┬──────┬───────────────────────────────┬────────┬──────────┬──────────────────────┬────────────────────────────────────────────────────┐
                │ Metric                 │          n │   A │    B │                     Δ B [95%] │ B vs A │        C │            Δ C [95%] │                                             C vs A │
                ├────────────────────────┼────────────┼─────┼──────┼───────────────────────────────┼────────┼──────────┼──────────────────────┼────────────────────────────────────────────────────┤
                │ p95 TTFT (ms)          │ 400/380/50 │ 100 │ 2600 │ +2500.0% [+2400.0%, +2610.0%] │  worse │ 100.6000 │ +0.6% [-2.0%, +3.0%] │                                               same │
                │ Req Throughput (req/s) │            │  10 │    9 │                        -10.0% │        │          │                      │                                                    │
                │ p99 TTFT (ms)          │   400/-/50 │ 120 │      │                               │        │      130 │                +8.3% │ too few requests (p99 needs ≥ 368 requests a side) │
                └────────────────────────┴────────────┴─────┴──────┴───────────────────────────────┴────────┴──────────┴──────────────────────┴────────────────────────────────────────────────────┘

                Not compared: only in A, not in B: chat/parallel_1
                Not compared: only in B: chat/parallel_2
                n = successful requests with the metric, A/B/C. Rows without a verdict have one figure per run (no interval): repeat runs to judge them.
                """);
    }
}
