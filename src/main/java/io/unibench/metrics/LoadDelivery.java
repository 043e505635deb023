package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

import java.util.Arrays;

/**
 * What a point's records say about the load it really put on the server, for its {@link PointVerdict}: the rate the
 * schedule offered and the rate requests were sent at (open loop), how late they were sent (dispatch lag), how many
 * were in flight on average, and the median latency of the point's first and second half with their 95 % intervals.
 * A sink beside the point's {@link RunMetrics}; it keeps three times and a flag per request.
 */
public final class LoadDelivery implements RecordSink {
    private final Object lock = new Object();
    private long[] scheduled = new long[256];
    private long[] start = new long[256];
    private long[] end = new long[256];
    private boolean[] ok = new boolean[256];
    private int n;

    @Override
    public void accept(RequestRecord r) {
        Timing t = r.timing();
        if (t.startNanos() == ABSENT) return; // never sent
        synchronized (lock) {
            if (n == start.length) {
                scheduled = Arrays.copyOf(scheduled, n * 2);
                start = Arrays.copyOf(start, n * 2);
                end = Arrays.copyOf(end, n * 2);
                ok = Arrays.copyOf(ok, n * 2);
            }
            scheduled[n] = t.scheduledNanos();
            start[n] = t.startNanos();
            end[n] = t.endNanos() == ABSENT ? t.startNanos() : t.endNanos();
            ok[n] = r.success() && t.endNanos() != ABSENT;
            n++;
        }
    }

    /**
     * The figures.
     *
     * @param sent             requests sent (with a start time)
     * @param open             the requests had a schedule (open loop, or {@code --rate}): offered and delivered rates
     *                         and dispatch lag are known
     * @param offeredRate      requests per second the schedule offered: (m − 1) over the span of the scheduled times;
     *                         null in a closed loop or with fewer than 2 scheduled requests
     * @param deliveredRate    requests per second sent: (n − 1) over the span of the start times; null below 2 sent
     * @param dispatchLagP99Ms p99 of (start − scheduled) in ms (nearest rank); null in a closed loop
     * @param meanInFlight     the time-average of the requests in flight over the steady window; null without one
     * @param windowSeconds    the steady window: from the {@code concurrency}-th start (closed loop: every worker busy;
     *                         open loop: the first start) to the last start (then the point drains); 0 without one
     * @param firstHalfMedian  95 % interval of the median latency (s) of the successful requests that started in the
     *                         first half (by start time); null with fewer than 6 of them
     * @param secondHalfMedian the same of the second half
     */
    public record Reading(long sent, boolean open, Double offeredRate, Double deliveredRate, Double dispatchLagP99Ms,
                          Double meanInFlight, double windowSeconds, Interval firstHalfMedian,
                          Interval secondHalfMedian) {}

    /** The figures of the records so far; {@code concurrency} is the point's configured one (its workers). */
    public Reading reading(int concurrency) {
        long[] s;
        long[] sch;
        long[] e;
        boolean[] good;
        int count;
        synchronized (lock) {
            count = n;
            s = Arrays.copyOf(start, count);
            sch = Arrays.copyOf(scheduled, count);
            e = Arrays.copyOf(end, count);
            good = Arrays.copyOf(ok, count);
        }
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Long.compare(s[a], s[b]));

        int scheduledCount = 0;
        long schedMin = Long.MAX_VALUE;
        long schedMax = Long.MIN_VALUE;
        long[] lags = new long[count];
        for (int i = 0; i < count; i++) {
            if (sch[i] == ABSENT) continue;
            schedMin = Math.min(schedMin, sch[i]);
            schedMax = Math.max(schedMax, sch[i]);
            lags[scheduledCount++] = Math.max(0, s[i] - sch[i]);
        }
        boolean open = scheduledCount > 0;
        Double offered = scheduledCount >= 2 && schedMax > schedMin
                ? (scheduledCount - 1) / ((schedMax - schedMin) / 1e9) : null;
        Double lagP99 = null;
        if (open) {
            long[] l = Arrays.copyOf(lags, scheduledCount);
            Arrays.sort(l);
            lagP99 = l[(int) Math.ceil(0.99 * scheduledCount) - 1] / 1e6;
        }
        Double delivered = null;
        if (count >= 2 && s[order[count - 1]] > s[order[0]]) {
            delivered = (count - 1) / ((s[order[count - 1]] - s[order[0]]) / 1e9);
        }

        Double inFlight = null;
        double windowSeconds = 0;
        if (count >= 2) {
            int firstBusy = open ? 0 : Math.min(Math.max(concurrency, 1), count) - 1;
            long from = s[order[firstBusy]];
            long to = s[order[count - 1]];
            if (to > from) {
                double busy = 0;
                for (int i = 0; i < count; i++) {
                    long a = Math.max(s[i], from);
                    long b = Math.min(e[i], to);
                    if (b > a) busy += b - a;
                }
                windowSeconds = (to - from) / 1e9;
                inFlight = busy / (to - from);
            }
        }

        int okCount = 0;
        double[] latencies = new double[count];
        for (int k = 0; k < count; k++) {
            int i = order[k];
            if (good[i]) latencies[okCount++] = (e[i] - s[i]) / 1e9;
        }
        int half = okCount / 2;
        Interval first = medianInterval(Arrays.copyOfRange(latencies, 0, half));
        Interval second = medianInterval(Arrays.copyOfRange(latencies, half, okCount));
        return new Reading(count, open, offered, delivered, lagP99, inFlight, windowSeconds, first, second);
    }

    private static Interval medianInterval(double[] values) {
        ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(values.length, 0.5);
        if (r == null) return null;
        Arrays.sort(values);
        return new Interval(values[(int) r.lower()], values[(int) r.upper()]);
    }
}
