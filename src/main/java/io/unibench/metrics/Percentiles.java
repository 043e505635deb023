package io.unibench.metrics;

/**
 * The two percentile definitions the reports use. Both take an array already sorted ascending and free of NaN,
 * and return NaN for an empty array.
 */
public final class Percentiles {
    private Percentiles() {}

    /**
     * evalscope's per-request percentile ({@code benchmark_percentile.json}): "higher nearest rank" without
     * interpolation. With {@code n} values sorted ascending (0-based):
     * <ul>
     *   <li>{@code p <= 0} → the first value (the minimum);</li>
     *   <li>{@code p >= 100} → the last value (the maximum);</li>
     *   <li>otherwise → {@code sorted[floor(n·p/100)]}.</li>
     * </ul>
     * Every result is an observed value. For n = 10 the 50th percentile is {@code sorted[5]}, the 6th smallest
     * (not the mean of the 5th and 6th), and the 99th is {@code sorted[9]}, the maximum.
     */
    public static double nearestRankHigh(double[] sorted, double p) {
        int n = sorted.length;
        if (n == 0) return Double.NaN;
        return sorted[(int) nearestRankHighIndex(n, p)];
    }

    /** The 0-based rank {@link #nearestRankHigh} picks among {@code n ≥ 1} sorted values. */
    public static long nearestRankHighIndex(long n, double p) {
        if (p <= 0) return 0;
        if (p >= 100) return n - 1;
        return Math.min((long) Math.floor(n * p / 100.0), n - 1);
    }

    /**
     * numpy's default {@code np.percentile} ("linear"): position {@code h = (n−1)·p/100}, then interpolate between
     * {@code sorted[floor(h)]} and the next value. Used by evalscope for per-trace statistics.
     */
    public static double linear(double[] sorted, double p) {
        int n = sorted.length;
        if (n == 0) return Double.NaN;
        double h = linearPosition(n, p);
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, n - 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }

    /** The fractional 0-based position {@link #linear} interpolates at, among {@code n ≥ 1} sorted values. */
    public static double linearPosition(long n, double p) {
        if (p <= 0) return 0;
        if (p >= 100) return n - 1;
        return (n - 1) * p / 100.0;
    }
}
