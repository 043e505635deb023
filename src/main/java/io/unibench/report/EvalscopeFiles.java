package io.unibench.report;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Rounding;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.WorkloadThroughput;
import io.unibench.metrics.WorkloadTimeline;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a run's result files with evalscope's names and keys, so scripts written for {@code evalscope perf}
 * keep working. Pretty-printed UTF-8, strict JSON: a value that is undefined is {@code null}, never NaN.
 * <ul>
 *   <li>{@code benchmark_summary.json}: {@link io.unibench.metrics.Summary#toMap()};</li>
 *   <li>{@code benchmark_percentile.json}: list of row objects {@code {"Percentiles": "min", "Latency (s)": …}};</li>
 *   <li>{@code workload_throughput.json} and {@code workload_timeline.json}: only when at least one request
 *       succeeded, as evalscope does.</li>
 * </ul>
 */
public final class EvalscopeFiles {
    public static final String SUMMARY = "benchmark_summary.json";
    public static final String PERCENTILE = "benchmark_percentile.json";
    public static final String WORKLOAD_THROUGHPUT = "workload_throughput.json";
    public static final String WORKLOAD_TIMELINE = "workload_timeline.json";

    private EvalscopeFiles() {}

    public static void write(Path runDir, RunResult r) throws IOException {
        write(runDir, r, Map.of());
    }

    /**
     * As {@link #write(Path, RunResult)}, with {@code extraSummaryKeys} appended to {@code benchmark_summary.json}
     * after evalscope's keys (additions, never renames; e.g. the client self-check figures).
     */
    public static void write(Path runDir, RunResult r, Map<String, Object> extraSummaryKeys) throws IOException {
        Files.createDirectories(runDir);
        Map<String, Object> summary = new LinkedHashMap<>(r.summary().toMap());
        extraSummaryKeys.forEach(summary::putIfAbsent);
        writeJson(runDir.resolve(SUMMARY), summary);
        writeJson(runDir.resolve(PERCENTILE), percentileRows(r.percentiles()));
        if (r.workload() != null && r.workload().nSamples() > 0) {
            writeJson(runDir.resolve(WORKLOAD_THROUGHPUT), workload(r.workload()));
            writeJson(runDir.resolve(WORKLOAD_TIMELINE), timeline(r.timeline()));
        }
    }

    static List<Map<String, Object>> percentileRows(List<PercentileRow> rows) {
        List<Map<String, Object>> out = new ArrayList<>(rows.size());
        for (PercentileRow row : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(PercentileRow.PERCENTILES, row.label());
            m.putAll(row.values());
            out.add(m);
        }
        return out;
    }

    static Map<String, Object> workload(WorkloadThroughput w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n_samples", w.nSamples());
        m.put("wall_time_s", w.wallTimeSeconds());
        m.put("last_window_s", w.lastWindowSeconds());
        m.put("warmup_frac", w.warmupFraction());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (WorkloadThroughput.Row row : w.rows()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("metric", row.metric());
            rm.put("overall", row.overall());
            rm.put("last_window", row.lastWindow());
            rm.put("steady_state", row.steadyState());
            rows.add(rm);
        }
        m.put("rows", rows);
        return m;
    }

    static Map<String, Object> timeline(WorkloadTimeline t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wall_start", t.wallStartSeconds());
        List<Map<String, Object>> points = new ArrayList<>(t.points().size());
        for (WorkloadTimeline.Point p : t.points()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("t", Rounding.round(p.t(), 6));
            pm.put("cum_completion", p.cumCompletion());
            pm.put("cum_new_prompt", p.cumNewPrompt());
            pm.put("cum_cached_prompt", p.cumCachedPrompt());
            points.add(pm);
        }
        m.put("points", points);
        return m;
    }

    private static void writeJson(Path file, Object value) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            Json.PRETTY.writeValue(out, Json.strict(value));
        }
    }
}
