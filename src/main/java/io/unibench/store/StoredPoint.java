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
 */
public record StoredPoint(int index, String label, int concurrency, double rate, int number, long startedAt,
                          JsonNode summary, JsonNode percentiles, JsonNode workload, JsonNode errors) {
    public RunInfo info() {
        return new RunInfo(label, concurrency, rate, number);
    }
}
