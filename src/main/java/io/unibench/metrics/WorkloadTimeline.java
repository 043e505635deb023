package io.unibench.metrics;

import java.util.List;

/**
 * Cumulative token counts after every successful request, in the order the requests were recorded
 * ({@code workload_timeline.json}).
 *
 * @param wallStartSeconds start of the first successful request recorded, in {@link System#nanoTime()} seconds
 *                         (process-relative, like evalscope's {@code perf_counter}); null when nothing succeeded
 * @param points           one per successful request
 */
public record WorkloadTimeline(Double wallStartSeconds, List<Point> points) {

    public WorkloadTimeline {
        points = List.copyOf(points);
    }

    /**
     * @param t                seconds from {@code wallStart} to the end of this request
     * @param cumCompletion    completion tokens so far
     * @param cumNewPrompt     Σ max(prompt − cached, 0) so far: prompt tokens the server had to compute
     * @param cumCachedPrompt  Σ cached prompt tokens so far (0 where the server reported none)
     */
    public record Point(double t, long cumCompletion, long cumNewPrompt, long cumCachedPrompt) {}
}
