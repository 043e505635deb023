package io.unibench.metrics;

import java.util.Arrays;
import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.DoubleHistogramIterationValue;

/**
 * The samples of one metric of a run (every TTFT, every inter-chunk interval, …) in memory that stops growing.
 *
 * <p>Up to {@link #EXACT_LIMIT} samples (8,388,608: every per-request column of a run of several million requests)
 * the raw values are kept in one primitive {@code double[]} (8 bytes a sample, at most 64 MiB a column; it grows by
 * half when full) and every percentile is an observed value, exactly as {@link Percentiles} defines it: the array is
 * sorted once and the value of each rank read from it. The next sample moves all of them into an HdrHistogram
 * {@link DoubleHistogram} with {@value #SIGNIFICANT_DIGITS} significant digits and the raw array is dropped: from
 * then on memory is fixed (≈ 3 MiB for values spanning 7 decades) whatever the run's length, and a percentile is the
 * midpoint of the histogram bucket holding the sample of that rank, clamped to the exact minimum and maximum. With
 * 4 significant digits a bucket is at most 1/10,000 of its values wide, so the reported value is within
 * {@value #MAX_RELATIVE_ERROR_TEXT} of the exact one (0.006% measured on log-uniform data; 5 µs on a 50 ms ITL).
 * Count, sum (hence the mean), minimum and maximum stay exact in both modes. {@link #exact()} says which mode a
 * distribution is in, so reports can say so.
 *
 * <p>Why a cap rather than always exact: a 1,000,000-request run of 256-chunk replies has 255 M inter-chunk
 * intervals — 2 GB of doubles to keep and sort for one column. Per-request columns reach the cap only past 8.4 M
 * requests; the inter-chunk intervals past 8.4 M chunks (≈ 33,000 replies of 256 chunks).
 *
 * <p>{@link #copy()} (the report's snapshot) sorts the array in place and shares it with the copy instead of
 * duplicating it, so a report never needs twice a column's memory; the owner copies it again before its next
 * {@link #add} (copy on write), which a finished run never does.
 *
 * <p>Only finite values are recorded (NaN means "undefined for this request" everywhere in this package). Not
 * thread-safe: {@link RunMetrics} uses it under its lock.
 */
final class Distribution {
    /** Samples kept raw before switching to the histogram: 64 MiB of doubles. */
    static final int EXACT_LIMIT = 1 << 23;
    static final int SIGNIFICANT_DIGITS = 4;
    static final String MAX_RELATIVE_ERROR_TEXT = "0.01%";
    private static final double NANOS_PER_SECOND = 1e9;

    private final int exactLimit;
    private double[] values = new double[16];
    private int size;
    private boolean sorted = true;
    /** {@link #values} is also a copy's: written only after copying it (copy on write). */
    private boolean shared;
    private DoubleHistogram histogram;
    private long count;
    private double sum;
    /** Welford's running mean and sum of squared deviations, for the mean's interval. */
    private double runningMean;
    private double squaredDeviations;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    Distribution() {
        this(EXACT_LIMIT);
    }

    /** A distribution that switches to the histogram after {@code exactLimit} samples (tests use small limits). */
    Distribution(int exactLimit) {
        if (exactLimit < 1) throw new IllegalArgumentException("exactLimit must be ≥ 1: " + exactLimit);
        this.exactLimit = exactLimit;
    }

    void add(double v) {
        if (!Double.isFinite(v)) return;
        count++;
        sum += v;
        double d = v - runningMean;
        runningMean += d / count;
        squaredDeviations += d * (v - runningMean);
        if (v < min) min = v;
        if (v > max) max = v;
        if (histogram != null) {
            record(v);
            return;
        }
        if (size == exactLimit) {
            toHistogram();
            record(v);
            return;
        }
        if (size == values.length) {
            values = Arrays.copyOf(values, (int) Math.min(exactLimit, size + (size >> 1) + 1L));
            shared = false;
        } else if (shared) {
            values = values.clone();
            shared = false;
        }
        values[size++] = v;
        sorted = false;
    }

    /**
     * Adds the {@code count} intervals between consecutive {@code moments} (nanosecond readings) in milliseconds,
     * {@code (moments[i + 1] - moments[i]) / 1e9 * 1000} as {@link RequestRecord#interChunkSeconds} times 1000: the
     * same samples, sum and running mean as {@link #add} of each in turn, in one loop (~255 a streamed request, where
     * a call per sample was most of the metrics' time per record).
     */
    void addIntervalsMs(long[] moments, int count) {
        if (count <= 0) return;
        if (histogram != null || size + (long) count > exactLimit) { // the histogram now or on the way: one by one
            for (int i = 0; i < count; i++) add((moments[i + 1] - moments[i]) / NANOS_PER_SECOND * 1000);
            return;
        }
        if (size + count > values.length) {
            values = Arrays.copyOf(values, (int) Math.min(exactLimit, Math.max(size + count, size + (size >> 1) + 1L)));
            shared = false;
        } else if (shared) {
            values = values.clone();
            shared = false;
        }
        double[] v = values;
        int n = size;
        long c = this.count;
        double s = sum, mean = runningMean, squares = squaredDeviations, lo = min, hi = max;
        for (int i = 0; i < count; i++) {
            double x = (moments[i + 1] - moments[i]) / NANOS_PER_SECOND * 1000; // finite: a difference of longs
            c++;
            s += x;
            double d = x - mean;
            mean += d / c;
            squares += d * (x - mean);
            if (x < lo) lo = x;
            if (x > hi) hi = x;
            v[n++] = x;
        }
        size = n;
        this.count = c;
        sum = s;
        runningMean = mean;
        squaredDeviations = squares;
        min = lo;
        max = hi;
        sorted = false;
    }

    private void toHistogram() {
        histogram = new DoubleHistogram(SIGNIFICANT_DIGITS);
        for (int i = 0; i < size; i++) record(values[i]);
        values = null;
        size = 0;
    }

    /**
     * Durations, token counts and throughputs are never negative; a negative value (a clock anomaly) is counted at 0
     * in the histogram — its exact minimum is still kept and clamps the result.
     */
    private void record(double v) {
        histogram.recordValue(Math.max(v, 0));
    }

    long count() {
        return count;
    }

    /** True while every sample is kept raw, i.e. percentiles are exact observed values. */
    boolean exact() {
        return histogram == null;
    }

    /** Mean of the samples; null when there are none. */
    Double mean() {
        return count == 0 ? null : sum / count;
    }

    /** The 95 % t-interval of the mean ({@link ConfidenceIntervals#mean}); null with fewer than 2 samples. */
    Interval meanInterval() {
        return count < 2 ? null : ConfidenceIntervals.mean(count, sum / count, squaredDeviations / (count - 1));
    }

    /**
     * The 95 % distribution-free interval of the {@code p}-th percentile ({@link ConfidenceIntervals#quantileRanks}):
     * the samples of its two ranks; null when there are too few samples for one, and for p ≤ 0 or p ≥ 100.
     */
    Interval percentileInterval(double p) {
        ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(count, p / 100);
        return r == null ? null : new Interval(valueAtRank(r.lower()), valueAtRank(r.upper()));
    }

    /** evalscope's "higher nearest rank" percentile, see {@link Percentiles#nearestRankHigh}; NaN when empty. */
    double nearestRankHigh(double p) {
        return count == 0 ? Double.NaN : valueAtRank(Percentiles.nearestRankHighIndex(count, p));
    }

    /** numpy's linear percentile, see {@link Percentiles#linear}; NaN when empty. */
    double linear(double p) {
        if (count == 0) return Double.NaN;
        double h = Percentiles.linearPosition(count, p);
        long lo = (long) Math.floor(h);
        long hi = Math.min(lo + 1, count - 1);
        double a = valueAtRank(lo);
        double b = hi == lo ? a : valueAtRank(hi);
        return a + (h - lo) * (b - a);
    }

    /** The sample of 0-based rank {@code k} in ascending order (exact mode), or its bucket's midpoint (histogram). */
    double valueAtRank(long k) {
        if (k <= 0) return min;
        if (k >= count - 1) return max;
        if (histogram == null) {
            sort();
            return values[(int) k];
        }
        long seen = 0;
        for (DoubleHistogramIterationValue step : histogram.recordedValues()) {
            seen += step.getCountAddedInThisIterationStep();
            if (seen > k) {
                double mid = histogram.medianEquivalentValue(step.getValueIteratedTo());
                return Math.min(Math.max(mid, min), max);
            }
        }
        return max;
    }

    private void sort() {
        if (sorted) return;
        if (shared) { // a copy reads this order
            values = values.clone();
            shared = false;
        }
        Arrays.sort(values, 0, size);
        sorted = true;
    }

    /**
     * A copy that later samples of this one do not change, so percentiles can be computed outside the owner's lock.
     * Exact mode: sorts here (under the owner's lock; 4 M samples take well under a second) and shares the sorted
     * array, which neither side writes again without copying it.
     */
    Distribution copy() {
        Distribution c = new Distribution(exactLimit);
        c.count = count;
        c.sum = sum;
        c.runningMean = runningMean;
        c.squaredDeviations = squaredDeviations;
        c.min = min;
        c.max = max;
        if (histogram != null) {
            c.histogram = histogram.copy();
            c.values = null;
        } else {
            sort();
            shared = true;
            c.values = values;
            c.shared = true;
            c.size = size;
            c.sorted = true;
        }
        return c;
    }
}
