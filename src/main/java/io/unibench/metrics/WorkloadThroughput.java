package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Token throughput of the whole workload over three windows ({@code workload_throughput.json}), as evalscope
 * (after trie) computes it from the {@link WorkloadTimeline}. Rates between an anchor point A and the last point L
 * are Δtokens / Δt; a window of no width gives zeros.
 * <ul>
 *   <li>Overall: A = origin (t = 0, all counts 0).</li>
 *   <li>Last window (30 s): when the timeline spans ≤ 30 s, same as Overall; else A = latest point with
 *       t ≤ wall − 30 (the first point when none).</li>
 *   <li>Steady state (drop the first 20%): A = latest point with t ≤ 0.2·wall (first point when none);
 *       Overall when A is the last point.</li>
 * </ul>
 * wall = t of the last point.
 *
 * @param nSamples         successful requests the timeline covers
 * @param wallTimeSeconds  t of the last point, rounded to 4 decimals
 * @param lastWindowSeconds 30.0
 * @param warmupFraction   0.2
 * @param rows             Total Prompt, New Prompt, Cached Prompt, Completion tok/s
 * @see #withoutCachedTokens()
 */
public record WorkloadThroughput(
        long nSamples, double wallTimeSeconds, double lastWindowSeconds, double warmupFraction, List<Row> rows) {

    public static final double LAST_WINDOW_SECONDS = 30.0;
    public static final double WARMUP_FRACTION = 0.2;
    public static final String NEW_PROMPT = "New Prompt tok/s";
    public static final String CACHED_PROMPT = "Cached Prompt tok/s";
    public static final List<String> METRICS =
            List.of("Total Prompt tok/s", NEW_PROMPT, CACHED_PROMPT, "Completion tok/s");

    public WorkloadThroughput {
        rows = List.copyOf(rows);
    }

    /** {@code workload_throughput.json} as a map (also what the run history stores). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n_samples", nSamples);
        m.put("wall_time_s", wallTimeSeconds);
        m.put("last_window_s", lastWindowSeconds);
        m.put("warmup_frac", warmupFraction);
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("metric", row.metric());
            rm.put("overall", row.overall());
            rm.put("last_window", row.lastWindow());
            rm.put("steady_state", row.steadyState());
            out.add(rm);
        }
        m.put("rows", out);
        return m;
    }

    /**
     * One metric across the three windows, tok/s, unrounded (evalscope writes them unrounded); all three null when
     * the metric was not measured ({@link #withoutCachedTokens()}), never for a run we measured.
     */
    public record Row(String metric, Double overall, Double lastWindow, Double steadyState) {
        public boolean measured() {
            return overall != null;
        }
    }

    /**
     * These figures for a source that did not measure cached prompt tokens (an imported run: its counts have none):
     * the cached and new prompt rows absent (null, written as null), never 0 cached and all of the prompt new; the
     * total prompt and completion rows unchanged.
     */
    public WorkloadThroughput withoutCachedTokens() {
        List<Row> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            boolean split = r.metric().equals(NEW_PROMPT) || r.metric().equals(CACHED_PROMPT);
            out.add(split ? new Row(r.metric(), null, null, null) : r);
        }
        return new WorkloadThroughput(nSamples, wallTimeSeconds, lastWindowSeconds, warmupFraction, out);
    }

    /** Computes the three windows from a timeline, with evalscope's defaults (30 s, 20%). */
    public static WorkloadThroughput of(WorkloadTimeline timeline) {
        return of(timeline, LAST_WINDOW_SECONDS, WARMUP_FRACTION);
    }

    public static WorkloadThroughput of(WorkloadTimeline timeline, double lastWindowSeconds, double warmupFraction) {
        List<WorkloadTimeline.Point> points = timeline.points();
        WorkloadTimeline.Point origin = new WorkloadTimeline.Point(0, 0, 0, 0);
        double wall = points.isEmpty() ? 0 : Math.max(points.getLast().t(), 0);

        double[] overall = rates(points, origin);
        double[] last;
        if (points.isEmpty() || lastWindowSeconds <= 0) {
            last = new double[4];
        } else if (wall <= lastWindowSeconds) {
            last = overall;
        } else {
            last = rates(points, anchor(points, wall - lastWindowSeconds));
        }
        double[] steady;
        if (points.isEmpty()) {
            steady = new double[4];
        } else if (wall <= 0 || warmupFraction <= 0) {
            steady = overall;
        } else {
            WorkloadTimeline.Point a = anchor(points, wall * warmupFraction);
            steady = a == points.getLast() ? overall : rates(points, a);
        }
        List<Row> rows = new java.util.ArrayList<>(4);
        for (int i = 0; i < 4; i++) rows.add(new Row(METRICS.get(i), overall[i], last[i], steady[i]));
        double wallRounded = Rounding.round(wall, 4);
        return new WorkloadThroughput(timeline.successes(), wallRounded, lastWindowSeconds, warmupFraction, rows);
    }

    /** [total prompt, new prompt, cached prompt, completion] tok/s from {@code a} to the last point. */
    private static double[] rates(List<WorkloadTimeline.Point> points, WorkloadTimeline.Point a) {
        if (points.isEmpty()) return new double[4];
        WorkloadTimeline.Point l = points.getLast();
        double dt = l.t() - a.t();
        if (dt <= 0) return new double[4];
        double dNew = l.cumNewPrompt() - a.cumNewPrompt();
        double dCached = l.cumCachedPrompt() - a.cumCachedPrompt();
        double dCompletion = l.cumCompletion() - a.cumCompletion();
        return new double[] {(dNew + dCached) / dt, dNew / dt, dCached / dt, dCompletion / dt};
    }

    /** Latest point with t ≤ target scanning forward until the first point past it; the first point if none. */
    private static WorkloadTimeline.Point anchor(List<WorkloadTimeline.Point> points, double target) {
        WorkloadTimeline.Point chosen = points.getFirst();
        if (target <= chosen.t()) return chosen;
        for (WorkloadTimeline.Point p : points) {
            if (p.t() <= target) chosen = p;
            else break;
        }
        return chosen;
    }

    public Row row(String metric) {
        return rows.stream().filter(r -> r.metric().equals(metric)).findFirst().orElse(null);
    }
}
