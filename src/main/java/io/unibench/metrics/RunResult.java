package io.unibench.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything reported about one run: the snapshot {@link RunMetrics#result(RunInfo)} takes at its end.
 *
 * @param errors       error class → count, most frequent first (ties by name)
 * @param sampleErrors error class → the first message seen for it (may be absent for a class without message)
 */
public record RunResult(
        RunInfo info,
        Summary summary,
        List<PercentileRow> percentiles,
        WorkloadThroughput workload,
        WorkloadTimeline timeline,
        Map<String, Long> errors,
        Map<String, String> sampleErrors) {

    public RunResult {
        percentiles = List.copyOf(percentiles);
        errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
        sampleErrors = Collections.unmodifiableMap(new LinkedHashMap<>(sampleErrors));
    }

    /** A cell of the percentile table, e.g. {@code percentile("99%", PercentileRow.TTFT)}; null when absent. */
    public Double percentile(String label, String column) {
        for (PercentileRow row : percentiles) {
            if (row.label().equals(label)) return row.value(column);
        }
        return null;
    }
}
