package io.unibench.metrics;

import java.util.List;

/**
 * A two-sided confidence interval at {@link ConfidenceIntervals#LEVEL} (95 %), in the unit of the figure it bounds.
 *
 * @param low  the lower bound
 * @param high the upper bound, ≥ {@code low}
 */
public record Interval(double low, double high) {
    /** As {@code benchmark_percentile.json}/{@code benchmark_summary.json} write it: {@code [low, high]}. */
    public List<Double> toList() {
        return List.of(low, high);
    }

    /** Both bounds multiplied by {@code factor ≥ 0} (a unit change). */
    public Interval scaled(double factor) {
        return new Interval(low * factor, high * factor);
    }

    /** Both bounds rounded to {@code decimals}. */
    public Interval rounded(int decimals) {
        return new Interval(Rounding.round(low, decimals), Rounding.round(high, decimals));
    }
}
