package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The workload timeline (cumulative tokens after each success, in finish order) in bounded memory. Records reach the
 * sinks about in finish order, from several threads; a success that ends before points already kept is put in its
 * place (while every success is a point), so the live timeline is the one rebuilt from the store in finish order,
 * whatever order the threads happened to record in. Every
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
    private long[] end = new long[64];
    private long[] completion = new long[64];
    private long[] newPrompt = new long[64];
    private long[] cachedPrompt = new long[64];
    private int size;
    private long stride = 1;
    private long successes;
    /** Start of the earliest-ending success: the timeline's origin (evalscope's first fed item). */
    private long startNanos = ABSENT;
    private long firstEnd;
    private long lastEnd = Long.MIN_VALUE;
    private long cumCompletion;
    private long cumNewPrompt;
    private long cumCachedPrompt;

    TimelineSampler() {
        this(POINT_LIMIT);
    }

    /** {@code limit} must be even and ≥ 2 (tests use small limits). */
    TimelineSampler(int limit) {
        if (limit < 2 || limit % 2 != 0) throw new IllegalArgumentException("limit must be even and ≥ 2: " + limit);
        this.limit = limit;
    }

    void add(long requestStartNanos, long requestEndNanos, int completionTokens, int promptTokens, int cachedTokens) {
        if (startNanos == ABSENT || requestEndNanos < firstEnd) {
            startNanos = requestStartNanos;
            firstEnd = requestEndNanos;
        }
        long index = successes++;
        int newPromptTokens = Math.max(promptTokens - cachedTokens, 0);
        cumCompletion += completionTokens;
        cumNewPrompt += newPromptTokens;
        cumCachedPrompt += cachedTokens;
        lastEnd = Math.max(lastEnd, requestEndNanos);
        if (index % stride != 0) return;
        if (size == limit) {
            halve();
            if (index % stride != 0) return;
        }
        if (size == end.length) grow();
        if (stride > 1) { // sampled: the points are every stride-th success as recorded, within its tolerance
            put(size++, requestEndNanos, cumCompletion, cumNewPrompt, cumCachedPrompt);
            return;
        }
        int at = size;
        while (at > 0 && end[at - 1] > requestEndNanos) at--;
        for (int i = size; i > at; i--) { // the later points move up one and now include this success
            put(i, end[i - 1], completion[i - 1] + completionTokens, newPrompt[i - 1] + newPromptTokens,
                    cachedPrompt[i - 1] + cachedTokens);
        }
        put(at, requestEndNanos, (at > 0 ? completion[at - 1] : 0) + completionTokens,
                (at > 0 ? newPrompt[at - 1] : 0) + newPromptTokens, (at > 0 ? cachedPrompt[at - 1] : 0) + cachedTokens);
        size++;
    }

    private void put(int i, long endNanos, long cumCompletionTokens, long cumNew, long cumCached) {
        end[i] = endNanos;
        completion[i] = cumCompletionTokens;
        newPrompt[i] = cumNew;
        cachedPrompt[i] = cumCached;
    }

    /** Keeps the points at even positions: successes 0, 2s, 4s, … for the old stride s. */
    private void halve() {
        int kept = 0;
        for (int i = 0; i < size; i += 2) {
            end[kept] = end[i];
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
        end = Arrays.copyOf(end, n);
        completion = Arrays.copyOf(completion, n);
        newPrompt = Arrays.copyOf(newPrompt, n);
        cachedPrompt = Arrays.copyOf(cachedPrompt, n);
    }

    WorkloadTimeline snapshot() {
        List<WorkloadTimeline.Point> points = new ArrayList<>(size + 1);
        for (int i = 0; i < size; i++) {
            points.add(new WorkloadTimeline.Point(seconds(end[i]), completion[i], newPrompt[i], cachedPrompt[i]));
        }
        if (successes > 0 && (successes - 1) % stride != 0) { // the latest success was not kept: add it
            points.add(new WorkloadTimeline.Point(seconds(lastEnd), cumCompletion, cumNewPrompt, cumCachedPrompt));
        }
        Double start = startNanos == ABSENT ? null : startNanos / NANOS_PER_SECOND;
        return new WorkloadTimeline(start, points, successes, stride);
    }

    private double seconds(long endNanos) {
        return (endNanos - startNanos) / NANOS_PER_SECOND;
    }
}
