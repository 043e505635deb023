package io.unibench.engine;

import io.unibench.metrics.ConfidenceIntervals;
import io.unibench.metrics.Percentiles;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code --target-precision PCT}: a point ends once the 95 % interval ({@link ConfidenceIntervals#quantileRanks}, the
 * reports' distribution-free order statistics) of its TTFT p95 and of its latency p95, over its successful requests,
 * each has a half-width within PCT % of the value (TTFT alone is not judged when no request had one). The point is
 * bounded by its plan as ever ({@code --number}, {@code --duration}).
 *
 * <p>Cheap on the hot path: a record appends two doubles under a lock; the check (two sorts of copies) runs only when
 * the successes since the last one reach {@code max(every, n / 10)}, so a point of n requests sorts O(log n) times.
 * Once reached it throws {@link Reached} from {@link #accept} once: the dispatchers' way of ending a phase (nothing new
 * is claimed or sent, what is in flight ends and is recorded), which the session runner tells from a failure.
 */
final class PrecisionTarget implements RecordSink {
    /** The fewest successes between two checks. */
    static final int EVERY = 20;

    /** The point reached its precision; {@link #getMessage()} says with what. */
    static final class Reached extends RuntimeException {
        Reached(String message) {
            super(message, null, false, false);
        }
    }

    private final double percent;
    private final ReentrantLock lock = new ReentrantLock();
    private double[] ttft = new double[256]; // guarded by lock
    private double[] latency = new double[256]; // guarded by lock
    private int ttftCount; // guarded by lock
    private int latencyCount; // guarded by lock
    private int nextCheck = EVERY; // guarded by lock
    private boolean reached; // guarded by lock

    PrecisionTarget(double percent) {
        this.percent = percent;
    }

    @Override
    public void accept(RequestRecord r) {
        if (!r.success()) return;
        String line = null;
        lock.lock();
        try {
            if (reached) return;
            double l = r.latencySeconds();
            if (Double.isFinite(l)) {
                if (latencyCount == latency.length) latency = Arrays.copyOf(latency, latencyCount * 2);
                latency[latencyCount++] = l;
            }
            double t = r.ttftSeconds();
            if (Double.isFinite(t)) {
                if (ttftCount == ttft.length) ttft = Arrays.copyOf(ttft, ttftCount * 2);
                ttft[ttftCount++] = t;
            }
            if (latencyCount < nextCheck) return;
            nextCheck = latencyCount + Math.max(EVERY, latencyCount / 10);
            line = check();
            reached = line != null;
        } finally {
            lock.unlock();
        }
        if (line != null) throw new Reached(line);
    }

    /** The line saying the precision is reached, or null when it is not (yet). Called with the lock held. */
    private String check() {
        double latencyHalf = relativeHalfWidth(latency, latencyCount);
        if (!(latencyHalf <= percent)) return null;
        double ttftHalf = ttftCount == 0 ? Double.NaN : relativeHalfWidth(ttft, ttftCount);
        if (ttftCount > 0 && !(ttftHalf <= percent)) return null;
        return String.format(Locale.ROOT, "target precision %s%% reached after %d successful requests: "
                + "%slatency p95 ±%.1f%%", strip(percent), latencyCount,
                ttftCount == 0 ? "" : String.format(Locale.ROOT, "TTFT p95 ±%.1f%%, ", ttftHalf), latencyHalf);
    }

    /** The p95's 95 % interval half-width in percent of the p95; NaN when there are too few samples for one. */
    static double relativeHalfWidth(double[] values, int n) {
        ConfidenceIntervals.Ranks ranks = ConfidenceIntervals.quantileRanks(n, 0.95);
        if (ranks == null) return Double.NaN;
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        double p95 = sorted[(int) Percentiles.nearestRankHighIndex(n, 95)];
        double half = (sorted[(int) ranks.upper()] - sorted[(int) ranks.lower()]) / 2;
        return p95 > 0 ? 100 * half / p95 : Double.NaN;
    }

    private static String strip(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
