package io.unibench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.MetricDelta;
import io.unibench.metrics.MetricDelta.Direction;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * {@code runs compare}'s text, pinned byte for byte: it moved here from {@code store.RunComparison} (presentation
 * left the store) and was diffed then against the old code's output on the same stored runs.
 */
class RunComparisonReportTest {
    @Test
    void rendersEveryPointTheUnmatchedAndTheSpreadNote() {
        List<MetricDelta> rows = List.of(
                new MetricDelta("parallel_2_number_6", "Avg Latency (s)", 0.5, 0.25, -0.25, -50.0,
                        Direction.LOWER_BETTER, "better", 0.3, 3, true),
                new MetricDelta("parallel_2_number_6", "Output Throughput (tok/s)", 100.0, 90.0, -10.0, -10.0,
                        Direction.HIGHER_BETTER, "worse", null, 1, false),
                new MetricDelta("parallel_4_number_6", "Request Count", 6.0, null, null, null, Direction.NEUTRAL, "",
                        null, 0, false));
        String text = RunComparisonReport.render("ra x — m @ http://h [finished]", "rb — m @ http://h [running]", rows,
                List.of("parallel_8_number_6 (only in B)"), 3);
        assertThat(text).isEqualTo("""
                A: ra x — m @ http://h [finished]
                B: rb — m @ http://h [running]
                Δ = B − A; better/worse by the metric's direction; '~' marks a Δ inside the run-to-run spread.

                parallel_2_number_6
                ┌───────────────────────────┬────────┬────────┬─────────┬────────┬────────┬──────────────────────────────┐
                │ Metric                    │      A │      B │       Δ │     Δ% │        │ Spread                       │
                ├───────────────────────────┼────────┼────────┼─────────┼────────┼────────┼──────────────────────────────┤
                │ Avg Latency (s)           │ 0.5000 │ 0.2500 │ -0.2500 │ -50.0% │ better │ ~ within ±0.3000 (3 repeats) │
                │ Output Throughput (tok/s) │    100 │     90 │     -10 │ -10.0% │ worse  │                              │
                └───────────────────────────┴────────┴────────┴─────────┴────────┴────────┴──────────────────────────────┘

                parallel_4_number_6
                ┌───────────────┬───┬───┬───┬────┬──┬────────┐
                │ Metric        │ A │ B │ Δ │ Δ% │  │ Spread │
                ├───────────────┼───┼───┼───┼────┼──┼────────┤
                │ Request Count │ 6 │ - │   │    │  │        │
                └───────────────┴───┴───┴───┴────┴──┴────────┘

                Not compared: parallel_8_number_6 (only in B)
                Note: spread = the range of the metric over 3 other finished runs with the same configuration as A or B; a Δ within it may be noise.
                """);
    }
}
