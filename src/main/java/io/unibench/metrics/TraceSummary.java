package io.unibench.metrics;

import java.util.List;

/**
 * Per-trace (per-conversation) statistics of a multi-turn run ({@code trace_summary.json}, evalscope §5.3).
 * Each metric is computed once per trace from its successful turns, then summarised across traces with mean, min
 * and numpy-style linear-interpolation percentiles ({@link Percentiles#linear}; the per-request tables use nearest
 * rank instead, as evalscope does). A trace where a metric is undefined (no turn with 2+ streamed tokens for Decode
 * TPS, a one-turn trace for Eligible Cache Hit Rate) is left out of that metric only.
 *
 * @param nTraces         traces with at least one successful turn (evalscope's {@code n_traces}; partial traces of
 *                        abandoned conversations included, as evalscope does)
 * @param completedTraces conversations whose last turn succeeded
 * @param abandonedTraces conversations abandoned after a failed turn
 * @param rows            the six metrics, in evalscope's order
 */
public record TraceSummary(long nTraces, long completedTraces, long abandonedTraces, List<Row> rows) {
    public static final String LATENCY = "Latency (s)";
    public static final String FIRST_TURN_TTFT = "First-Turn TTFT (s)";
    public static final String TTFAT = "TTFAT (s)";
    public static final String DECODE_TPS = "Decode TPS";
    public static final String CACHE_HIT_RATE = "Cache Hit Rate (%)";
    public static final String ELIGIBLE_CACHE_HIT_RATE = "Eligible Cache Hit Rate (%)";
    public static final List<String> METRICS =
            List.of(LATENCY, FIRST_TURN_TTFT, TTFAT, DECODE_TPS, CACHE_HIT_RATE, ELIGIBLE_CACHE_HIT_RATE);

    public TraceSummary {
        rows = List.copyOf(rows);
    }

    /** One metric across traces; every value null when no trace defines it. Rounded to 4 decimals. */
    public record Row(String metric, long n, Double mean, Double min, Double p50, Double p90, Double p95, Double p99,
                      Double max) {}

    public Row row(String metric) {
        for (Row r : rows) if (r.metric().equals(metric)) return r;
        return null;
    }
}
