package io.unibench.output;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.ServerVsClient;
import io.unibench.metrics.StrictJson;
import io.unibench.metrics.TurnPositionRow;
import io.unibench.OutputFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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

    public static void write(Path runDir, RunResult r) {
        write(runDir, r, Map.of());
    }

    /**
     * As {@link #write(Path, RunResult)}, with {@code extraSummaryKeys} appended to {@code benchmark_summary.json}
     * after evalscope's keys (additions, never renames; e.g. the client self-check figures).
     */
    public static void write(Path runDir, RunResult r, Map<String, Object> extraSummaryKeys) {
        try {
            Files.createDirectories(runDir);
        } catch (IOException e) {
            throw new OutputFailedException(runDir, e);
        }
        Map<String, Object> summary = new LinkedHashMap<>(r.summary().toMap());
        summary.putAll(serverVsClientKeys(r.serverVsClient()));
        summary.putAll(r.goodputKeys());
        extraSummaryKeys.forEach(summary::putIfAbsent);
        writeJson(runDir.resolve(SUMMARY), summary);
        writeJson(runDir.resolve(PERCENTILE), PercentileRow.toMaps(r.percentiles()));
        if (r.workload() != null && r.workload().nSamples() > 0) {
            writeJson(runDir.resolve(WORKLOAD_THROUGHPUT), r.workload().toMap());
            writeJson(runDir.resolve(WORKLOAD_TIMELINE), r.timeline().toMap());
        }
        if (r.traces() != null) {
            writeJson(runDir.resolve(TRACE_SUMMARY), r.traces().toMap());
            writeJson(runDir.resolve(TURN_POSITION_SUMMARY), TurnPositionRow.toMaps(r.turnPositions()));
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

    /**
     * {@code value} as pretty, strict JSON (no NaN) in {@code file}: the format of every file here. Written whole
     * or not at all; a failure is an {@link OutputFailedException} naming the file.
     */
    public static void writeJson(Path file, Object value) {
        byte[] bytes;
        try {
            bytes = Json.PRETTY.writeValueAsBytes(StrictJson.strict(value));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("maps, lists, numbers and strings always serialise", e);
        }
        OutputFailedException.writeWhole(file, bytes);
    }
}
