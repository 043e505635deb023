package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.RunInfo;

/**
 * One sweep point of a stored run. The JSON documents are null until the point finished (or was recovered).
 *
 * @param summary     {@code benchmark_summary.json}'s object
 * @param percentiles {@code benchmark_percentile.json}'s list of rows
 * @param workload    {@code workload_throughput.json}'s object
 * @param errors      {@code {"counts": {class: n}, "samples": {class: message}}}
 * @param details     what the web pages show beside the summaries (all null for points stored before schema 7)
 */
public record StoredPoint(int index, String label, int concurrency, double rate, int number, long startedAt,
                          JsonNode summary, JsonNode percentiles, JsonNode workload, JsonNode errors,
                          Details details) {
    /**
     * @param traces        {@code trace_summary.json}'s object (multi-turn runs), else null
     * @param turnPositions {@code turn_position_summary.json}'s object (multi-turn runs), else null
     * @param phases        the connection/request phases table's data, else null
     * @param timeline      {@code workload_timeline.json}'s object down-sampled to at most
     *                      {@link ResultJson#TIMELINE_POINTS} points, else null
     */
    public record Details(JsonNode traces, JsonNode turnPositions, JsonNode phases, JsonNode timeline) {
        public static final Details NONE = new Details(null, null, null, null);
    }

    public StoredPoint {
        if (details == null) details = Details.NONE;
    }

    public RunInfo info() {
        return new RunInfo(label, concurrency, rate, number);
    }
}
