package io.unibench.report;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Rounding;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.ServerVsClient;
import io.unibench.metrics.StrictJson;
import io.unibench.metrics.TraceSummary;
import io.unibench.metrics.TurnPositionRow;
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
 *       succeeded, as evalscope does; past {@code TimelineSampler.POINT_LIMIT} successes the timeline keeps every
 *       N-th success plus the latest and says so with {@code sampled_every} and {@code n_successes};</li>
 *   <li>{@code trace_summary.json} (multi-turn): {@code {"n_traces", "rows": [{"metric", "mean", "min", "p50", "p90",
 *       "p95", "p99", "max"}]}} as evalscope, plus {@code n_completed_traces}, {@code n_abandoned_traces} and each
 *       row's {@code n};</li>
 *   <li>{@code turn_position_summary.json} (multi-turn, ours): one row per turn position.</li>
 * </ul>
 */
public final class EvalscopeFiles {
    public static final String SUMMARY = "benchmark_summary.json";
    public static final String PERCENTILE = "benchmark_percentile.json";
    public static final String WORKLOAD_THROUGHPUT = "workload_throughput.json";
    public static final String WORKLOAD_TIMELINE = "workload_timeline.json";
    public static final String TRACE_SUMMARY = "trace_summary.json";
    /** Ours: requests by turn position (multi-turn). */
    public static final String TURN_POSITION_SUMMARY = "turn_position_summary.json";
    /** Summary key (ours): successful requests whose server sent its own timings. */
    public static final String SERVER_TIMINGS_REQUESTS = "Server Timings Requests";

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
        summary.putAll(serverVsClientKeys(r.serverVsClient()));
        extraSummaryKeys.forEach(summary::putIfAbsent);
        writeJson(runDir.resolve(SUMMARY), summary);
        writeJson(runDir.resolve(PERCENTILE), PercentileRow.toMaps(r.percentiles()));
        if (r.workload() != null && r.workload().nSamples() > 0) {
            writeJson(runDir.resolve(WORKLOAD_THROUGHPUT), r.workload().toMap());
            writeJson(runDir.resolve(WORKLOAD_TIMELINE), timeline(r.timeline()));
        }
        if (r.traces() != null) {
            writeJson(runDir.resolve(TRACE_SUMMARY), traces(r.traces()));
            writeJson(runDir.resolve(TURN_POSITION_SUMMARY), turnPositions(r.turnPositions()));
        }
    }

    /**
     * Ours, when a server sent its own timings (llama.cpp): {@code Server Timings Requests}, then per figure of
     * {@link ServerVsClient} {@code "Avg <metric> (ms)"} and {@code "P50/P90/P99 <metric> (ms)"}.
     */
    static Map<String, Object> serverVsClientKeys(ServerVsClient c) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (c == null) return m;
        m.put(SERVER_TIMINGS_REQUESTS, c.requests());
        for (ServerVsClient.Row row : c.rows()) {
            m.put("Avg " + row.metric() + " (ms)", row.mean());
            m.put("P50 " + row.metric() + " (ms)", row.p50());
            m.put("P90 " + row.metric() + " (ms)", row.p90());
            m.put("P99 " + row.metric() + " (ms)", row.p99());
        }
        return m;
    }

    static Map<String, Object> traces(TraceSummary t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n_traces", t.nTraces());
        m.put("n_completed_traces", t.completedTraces());
        m.put("n_abandoned_traces", t.abandonedTraces());
        m.put("traces_per_second", t.tracesPerSecond());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TraceSummary.Row row : t.rows()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("metric", row.metric());
            rm.put("mean", row.mean());
            rm.put("min", row.min());
            rm.put("p50", row.p50());
            rm.put("p90", row.p90());
            rm.put("p95", row.p95());
            rm.put("p99", row.p99());
            rm.put("max", row.max());
            rm.put("n", row.n());
            rows.add(rm);
        }
        m.put("rows", rows);
        return m;
    }

    static Map<String, Object> turnPositions(List<TurnPositionRow> positions) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TurnPositionRow p : positions) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("turn", p.turn());
            rm.put("requests", p.requests());
            rm.put("succeeded", p.succeeded());
            rm.put("avg_input_tokens", p.avgInputTokens());
            rm.put("avg_ttft_ms", p.avgTtftMs());
            rm.put("p50_ttft_ms", p.p50TtftMs());
            rm.put("p90_ttft_ms", p.p90TtftMs());
            rm.put("p99_ttft_ms", p.p99TtftMs());
            rm.put("cache_hit_percent", p.cacheHitPercent());
            rows.add(rm);
        }
        Map<String, Object> m = new LinkedHashMap<>();
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
        if (t.sampledEvery() > 1) { // a long run: every N-th success plus the latest (ours; absent otherwise)
            m.put("sampled_every", t.sampledEvery());
            m.put("n_successes", t.successes());
        }
        return m;
    }

    private static void writeJson(Path file, Object value) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            Json.PRETTY.writeValue(out, StrictJson.strict(value));
        }
    }
}
