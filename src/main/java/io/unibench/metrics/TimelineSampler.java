package io.unibench.metrics;

import static io.unibench.metrics.RequestRecord.ABSENT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The workload timeline (cumulative tokens after each success, in recording order) in bounded memory. Every
 * success is kept up to {@link #POINT_LIMIT} points; when full, every other point is dropped and from then on only
 * every 2nd (then 4th, 8th, …) success is kept, so the points stay evenly spread over the whole run. The latest
 * success is always the last point, so the run's totals and wall time (and the "overall" throughput) are exact;
 * the anchors of the 30 s and steady-state windows ({@link WorkloadThroughput}) can be up to
 * {@code sampledEvery − 1} successes earlier than with every point — a window of that many more requests.
 * Not thread-safe: {@link RunMetrics} uses it under its lock.
 */
final class TimelineSampler {
    /** Points kept at most: 4 MiB, and a {@code workload_timeline.json} of ~15 MB. */
    static final int POINT_LIMIT = 1 << 17;
    private static final double NANOS_PER_SECOND = 1e9;

    private final int limit;
    private double[] t = new double[64];
    private long[] completion = new long[64];
    private long[] newPrompt = new long[64];
    private long[] cachedPrompt = new long[64];
    private int size;
    private long stride = 1;
    private long successes;
    private long startNanos = ABSENT;
    private long cumCompletion;
    private long cumNewPrompt;
    private long cumCachedPrompt;
    private double lastT;

    TimelineSampler() {
        this(POINT_LIMIT);
    }

    /** {@code limit} must be even and ≥ 2 (tests use small limits). */
    TimelineSampler(int limit) {
        if (limit < 2 || limit % 2 != 0) throw new IllegalArgumentException("limit must be even and ≥ 2: " + limit);
        this.limit = limit;
    }

    void add(long requestStartNanos, long requestEndNanos, int completionTokens, int promptTokens, int cachedTokens) {
        if (startNanos == ABSENT) startNanos = requestStartNanos;
        long index = successes++;
        cumCompletion += completionTokens;
        cumNewPrompt += Math.max(promptTokens - cachedTokens, 0);
        cumCachedPrompt += cachedTokens;
        lastT = (requestEndNanos - startNanos) / NANOS_PER_SECOND;
        if (index % stride != 0) return;
        if (size == limit) {
            halve();
            if (index % stride != 0) return;
        }
        if (size == t.length) grow();
        t[size] = lastT;
        completion[size] = cumCompletion;
        newPrompt[size] = cumNewPrompt;
        cachedPrompt[size] = cumCachedPrompt;
        size++;
    }

    /** Keeps the points at even positions: successes 0, 2s, 4s, … for the old stride s. */
    private void halve() {
        int kept = 0;
        for (int i = 0; i < size; i += 2) {
            t[kept] = t[i];
            completion[kept] = completion[i];
            newPrompt[kept] = newPrompt[i];
            cachedPrompt[kept] = cachedPrompt[i];
            kept++;
        }
        size = kept;
        stride *= 2;
    }

    private void grow() {
        int n = Math.min(limit, size * 2);
        t = Arrays.copyOf(t, n);
        completion = Arrays.copyOf(completion, n);
        newPrompt = Arrays.copyOf(newPrompt, n);
        cachedPrompt = Arrays.copyOf(cachedPrompt, n);
    }

    WorkloadTimeline snapshot() {
        List<WorkloadTimeline.Point> points = new ArrayList<>(size + 1);
        for (int i = 0; i < size; i++) {
            points.add(new WorkloadTimeline.Point(t[i], completion[i], newPrompt[i], cachedPrompt[i]));
        }
        if (successes > 0 && (successes - 1) % stride != 0) { // the latest success was not kept: add it
            points.add(new WorkloadTimeline.Point(lastT, cumCompletion, cumNewPrompt, cumCachedPrompt));
        }
        Double start = startNanos == ABSENT ? null : startNanos / NANOS_PER_SECOND;
        return new WorkloadTimeline(start, points, successes, stride);
    }
}
