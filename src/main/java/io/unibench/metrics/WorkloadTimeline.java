package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /** {@code workload_timeline.json} as a map (also what the run history stores). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wall_start", wallStartSeconds);
        List<Map<String, Object>> out = new ArrayList<>(points.size());
        for (Point p : points) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("t", Rounding.round(p.t(), 6));
            pm.put("cum_completion", p.cumCompletion());
            pm.put("cum_new_prompt", p.cumNewPrompt());
            pm.put("cum_cached_prompt", p.cumCachedPrompt());
            out.add(pm);
        }
        m.put("points", out);
        if (sampledEvery > 1) { // a long run: every N-th success plus the latest (ours; absent otherwise)
            m.put("sampled_every", sampledEvery);
            m.put("n_successes", successes);
        }
        return m;
    }
}
