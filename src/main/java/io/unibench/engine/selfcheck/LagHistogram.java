package io.unibench.engine.selfcheck;

import org.HdrHistogram.Histogram;

/**
 * Scheduling delays in microseconds, kept by an HdrHistogram with 3 significant digits: exact to the microsecond
 * below 2.048 ms, then under 0.1% error, in memory that grows with the largest delay, not with the run's length.
 * The true maximum is kept beside it, so a quantile or the max never reports more than was seen (HdrHistogram
 * reports its bucket's upper end).
 *
 * <p>Not thread-safe: each probe records from one thread and hands a {@link #copy()} over when it stops.
 */
final class LagHistogram {
    private final Histogram micros = new Histogram(3);
    private long maxMicros;

    void recordNanos(long nanos) {
        long us = Math.max(0, nanos / 1_000);
        micros.recordValue(us);
        if (us > maxMicros) maxMicros = us;
    }

    void add(LagHistogram other) {
        micros.add(other.micros);
        maxMicros = Math.max(maxMicros, other.maxMicros);
    }

    LagHistogram copy() {
        LagHistogram c = new LagHistogram();
        c.add(this);
        return c;
    }

    long count() {
        return micros.getTotalCount();
    }

    double maxMillis() {
        return count() == 0 ? Double.NaN : maxMicros / 1_000.0;
    }

    /** The q-quantile (0..1) in milliseconds, the upper end of its bucket (never under-reports); NaN when empty. */
    double quantileMillis(double q) {
        if (count() == 0) return Double.NaN;
        return Math.min(micros.getValueAtPercentile(q * 100), maxMicros) / 1_000.0;
    }
}
