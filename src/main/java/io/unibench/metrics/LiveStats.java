package io.unibench.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Cheap running figures for the progress line printed every N requests: no percentiles, nothing sorted.
 * Undefined values (no success yet) are NaN here; {@link #toMap()} turns them into nulls.
 *
 * @param total            requests finished so far, failures included
 * @param succeeded        successful requests
 * @param elapsedSeconds   max(end) − min(start) over the finished requests
 * @param requestsPerSecond successful requests / elapsed
 * @param avgLatencySeconds mean latency of successes
 * @param avgTtftMs        mean TTFT of streamed successes (all successes if none streamed)
 * @param outputTokensPerSecond completion tokens / elapsed
 * @param cancelled        requests the stop cancelled in flight: not failures
 */
public record LiveStats(
        long total,
        long succeeded,
        double elapsedSeconds,
        double requestsPerSecond,
        double avgLatencySeconds,
        double avgTtftMs,
        double outputTokensPerSecond,
        long cancelled) {

    public long failed() {
        return total - succeeded - cancelled;
    }

    /** For the JSON log line; keys as in {@code benchmark_summary.json}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(Summary.TEST_DURATION, Rounding.round(elapsedSeconds, 4));
        m.put(Summary.TOTAL_REQUESTS, total);
        m.put(Summary.SUCCESS_REQUESTS, succeeded);
        m.put(Summary.FAILED_REQUESTS, failed());
        if (cancelled > 0) m.put(Summary.CANCELLED_REQUESTS, cancelled);
        m.put(Summary.REQ_THROUGHPUT, Rounding.round(requestsPerSecond, 4));
        m.put(Summary.AVG_LATENCY, Rounding.round(avgLatencySeconds, 4));
        m.put(Summary.AVG_TTFT, Rounding.round(avgTtftMs, 2));
        m.put(Summary.OUTPUT_THROUGHPUT, Rounding.round(outputTokensPerSecond, 4));
        return m;
    }
}
