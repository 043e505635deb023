package io.unibench.metrics;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.DoubleHistogramIterationValue;

/**
 * The samples of one metric of a run (every TTFT, every inter-chunk interval, …) in memory that stops growing.
 *
 * <p>Up to {@link #EXACT_LIMIT} samples (8,388,608: every per-request column of a run of several million requests)
 * the raw values are kept in one primitive {@code double[]} (8 bytes a sample, at most 64 MiB a column; it grows by
 * half when full) and every percentile is an observed value, exactly as {@link Percentiles} defines it: the value of
 * each rank is the one a full sort would put there, found by partitioning the array only around the ranks read. The
 * next sample moves all of them into an HdrHistogram {@link DoubleHistogram} with {@value #SIGNIFICANT_DIGITS}
 * significant digits and the raw array is dropped: from then on memory is fixed (≈ 3 MiB for values spanning 7
 * decades) whatever the run's length, and a percentile is the midpoint of the histogram bucket holding the sample of
 * that rank, clamped to the exact minimum and maximum. With
 * 4 significant digits a bucket is at most 1/10,000 of its values wide, so the reported value is within
 * {@value #MAX_RELATIVE_ERROR_TEXT} of the exact one (0.006% measured on log-uniform data; 5 µs on a 50 ms ITL).
 * Count, sum (hence the mean), minimum and maximum stay exact in both modes. {@link #exact()} says which mode a
 * distribution is in, so reports can say so.
 *
 * <p>Why a cap rather than always exact: a 1,000,000-request run of 256-chunk replies has 255 M inter-chunk
 * intervals — 2 GB of doubles to keep and sort for one column. Per-request columns reach the cap only past 8.4 M
 * requests; the inter-chunk intervals past 8.4 M chunks (≈ 33,000 replies of 256 chunks).
 *
 * <p>{@link #copy()} (the report's snapshot) selects the report's ranks in place and shares the array with the copy
 * instead of duplicating it, so a report never needs twice a column's memory; the owner copies it again before its next
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
    /**
     * What is known of {@link #values}' order (null: nothing). Each key starts a segment that ends where the next
     * begins (or at {@link #size}); every value of a segment is at most every value of the segments after it (in
     * {@link Double#compare}'s order, −0.0 before 0.0), and a segment mapped to true is sorted: its ranks are read
     * in place. Only a private array is reordered; a copy gets its own map.
     */
    private TreeMap<Integer, Boolean> segments;
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
        segments = null;
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
        segments = null;
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
        if (histogram == null) return select((int) k);
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

    /** Segments at most this long are sorted whole rather than partitioned further. */
    private static final int SORT_BELOW = 1 << 10;

    /**
     * The value of rank {@code k}: the value {@code Arrays.sort} would put at {@code k} (bit for bit: −0.0 before
     * 0.0), found by partitioning only the segments that hold it — each pass keeps the values between two that a
     * sorted sample says bracket k closely — and remembered in {@link #segments}, so the few ranks a report reads
     * cost a few passes over the array instead of a sort. A shared array is copied before it is reordered.
     */
    private double select(int k) {
        if (segments == null) {
            segments = new TreeMap<>();
            segments.put(0, false);
        }
        Map.Entry<Integer, Boolean> at = segments.floorEntry(k);
        if (at.getValue()) return values[k];
        if (shared) { // a copy reads this order
            values = values.clone();
            shared = false;
        }
        double[] a = values;
        int lo = at.getKey();
        Integer next = segments.higherKey(k);
        int hi = next == null ? size : next;
        long budget = 4L * (hi - lo); // passes of an unlucky sample: past four times the segment, sort instead
        for (;;) {
            if (hi - lo <= SORT_BELOW || budget < 0) { // small, or a pathological order: sort what is left
                Arrays.sort(a, lo, hi);
                segments.put(lo, true);
                return a[k];
            }
            budget -= hi - lo;
            double[] bracket = bracket(a, lo, hi, k);
            double low = bracket[0], high = bracket[1];
            if (Double.doubleToRawLongBits(low) != Double.doubleToRawLongBits(high)) {
                int lt = lo, i = lo, gt = hi; // [lo, lt) before low, [lt, i) from low to high, [gt, hi) after high
                while (i < gt) {
                    double x = a[i];
                    if (before(x, low)) {
                        a[i++] = a[lt];
                        a[lt++] = x;
                    } else if (before(high, x)) {
                        a[i] = a[--gt];
                        a[gt] = x;
                    } else i++;
                }
                if (lt > lo || gt < hi) { // progress: k's part is the next segment
                    if (lt > lo) segments.put(lo, false);
                    if (gt > lt) segments.put(lt, false);
                    if (gt < hi) segments.put(gt, false);
                    if (k < lt) hi = lt;
                    else if (k >= gt) lo = gt;
                    else {
                        lo = lt;
                        hi = gt;
                    }
                    continue;
                }
            }
            double p = low; // one value, or every value from low to high: split around low
            long pBits = Double.doubleToRawLongBits(p);
            int lt = lo, i = lo, gt = hi; // [lo, lt) < p, [lt, i) == p, [gt, hi) > p
            while (i < gt) {
                double x = a[i];
                boolean less;
                if (x < p) less = true;
                else if (x > p) less = false;
                else if (Double.doubleToRawLongBits(x) == pBits) { // equal, −0.0 and 0.0 told apart
                    i++;
                    continue;
                } else less = Double.doubleToRawLongBits(x) < pBits; // ±0: −0.0 first, as Arrays.sort
                if (less) {
                    a[i++] = a[lt];
                    a[lt++] = x;
                } else {
                    a[i] = a[--gt];
                    a[gt] = x;
                }
            }
            if (lt > lo) segments.put(lo, false);
            segments.put(lt, true); // every value equal to p: sorted
            if (gt < hi) segments.put(gt, false);
            if (k < lt) hi = lt;
            else if (k >= gt) lo = gt;
            else return a[k];
        }
    }

    /**
     * Two values of {@code a[lo, hi)} that likely bracket its rank {@code k} closely: from a sorted evenly spaced
     * sample, the ones about two standard deviations of the sample's rank either side of k's place, so one pass
     * keeps only the values between them (a few per cent of the segment) around k.
     */
    private static double[] bracket(double[] a, int lo, int hi, int k) {
        int size = hi - lo >= 1 << 16 ? 1023 : 63;
        double[] sample = new double[size];
        long m = hi - lo;
        for (int i = 0; i < size; i++) sample[i] = a[lo + (int) (i * (m - 1) / (size - 1))];
        Arrays.sort(sample);
        double f = (k - lo + 0.5) / m;
        int at = (int) (f * size);
        int margin = (int) Math.ceil(2 * Math.sqrt(size * f * (1 - f))) + 1;
        return new double[] {sample[Math.max(0, at - margin)], sample[Math.min(size - 1, at + margin)]};
    }

    /** {@code x} comes before {@code y} in {@link Double#compare}'s order (no NaN here): −0.0 before 0.0. */
    private static boolean before(double x, double y) {
        return x < y || x == y && Double.doubleToRawLongBits(x) < Double.doubleToRawLongBits(y);
    }

    /** The 0-based ranks the reports read ({@link PercentileRow#POINTS} and their intervals), selected in advance. */
    private void selectReportRanks() {
        long[] ranks = new long[3 * PercentileRow.POINTS.length];
        int n = 0;
        for (double p : PercentileRow.POINTS) {
            ranks[n++] = Percentiles.nearestRankHighIndex(count, p);
            ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(count, p / 100);
            if (r != null) {
                ranks[n++] = r.lower();
                ranks[n++] = r.upper();
            }
        }
        Arrays.sort(ranks, 0, n);
        selectMiddleFirst(ranks, 0, n);
    }

    /** Selects {@code ranks[from, to)} (ascending) middle first, so each later one starts in a smaller segment. */
    private void selectMiddleFirst(long[] ranks, int from, int to) {
        if (from >= to) return;
        int mid = (from + to) >>> 1;
        valueAtRank(ranks[mid]);
        selectMiddleFirst(ranks, from, mid);
        selectMiddleFirst(ranks, mid + 1, to);
    }

    /**
     * A copy that later samples of this one do not change, so percentiles can be computed outside the owner's lock.
     * Exact mode: selects the ranks the reports read here (under the owner's lock; {@link #select}) and shares the
     * array and what is known of its order; neither side reorders or writes it again without copying it.
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
            selectReportRanks();
            shared = true;
            c.values = values;
            c.shared = true;
            c.size = size;
            c.segments = segments == null ? null : new TreeMap<>(segments);
        }
        return c;
    }
}
