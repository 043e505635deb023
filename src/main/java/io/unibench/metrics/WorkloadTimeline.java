package io.unibench.metrics;

import java.util.List;

/**
 * Cumulative token counts after successful requests, in the order they finished
 * ({@code workload_timeline.json}). Every success is a point up to {@link TimelineSampler#POINT_LIMIT}; longer runs
 * keep every {@code sampledEvery}-th success plus the latest one (see {@link TimelineSampler}).
 *
 * @param wallStartSeconds start of the first successful request recorded, in {@link System#nanoTime()} seconds
 *                         (process-relative, like evalscope's {@code perf_counter}); null when nothing succeeded
 * @param points           one per kept success, the latest success always last
 * @param successes        successful requests the timeline covers (= points when nothing was dropped)
 * @param sampledEvery     1 when every success is a point; else the stride of the kept points
 */
public record WorkloadTimeline(Double wallStartSeconds, List<Point> points, long successes, long sampledEvery) {

    public WorkloadTimeline {
        points = List.copyOf(points);
    }

    /** A timeline with every success as a point. */
    public WorkloadTimeline(Double wallStartSeconds, List<Point> points) {
        this(wallStartSeconds, points, points.size(), 1);
    }

    /**
     * @param t                seconds from {@code wallStart} to the end of this request
     * @param cumCompletion    completion tokens so far
     * @param cumNewPrompt     Σ max(prompt − cached, 0) so far: prompt tokens the server had to compute
     * @param cumCachedPrompt  Σ cached prompt tokens so far (0 where the server reported none)
     */
    public record Point(double t, long cumCompletion, long cumNewPrompt, long cumCachedPrompt) {}
}
