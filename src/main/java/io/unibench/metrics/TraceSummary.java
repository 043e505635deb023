package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-trace (per-conversation) statistics of a multi-turn run ({@code trace_summary.json}, evalscope §5.3).
 * Each metric is computed once per trace from its successful turns, then summarised across traces with mean, min
 * and numpy-style linear-interpolation percentiles ({@link Percentiles#linear}; the per-request tables use nearest
 * rank instead, as evalscope does). A trace where a metric is undefined (no turn with 2+ streamed tokens for Decode
 * TPS, a one-turn trace for Eligible Cache Hit Rate) is left out of that metric only.
 *
 * @param nTraces         conversations that sent at least one turn, = completed + abandoned ({@code n_traces}; evalscope
 *                        counts only those with a successful turn, which left a conversation whose first turn failed
 *                        abandoned but uncounted). The rows come from the ones with a successful turn: see each
 *                        row's {@code n}
 * @param completedTraces conversations whose last turn succeeded
 * @param abandonedTraces the others: a turn failed (or was cancelled), or the run stopped before their last turn
 * @param rows            evalscope's six metrics in its order, then ours ({@link #EXTRA_METRICS})
 * @param tracesPerSecond completed traces / the run's wall time; null when undefined
 */
public record TraceSummary(long nTraces, long completedTraces, long abandonedTraces, List<Row> rows,
                           Double tracesPerSecond) {
    public static final String LATENCY = "Latency (s)";
    public static final String FIRST_TURN_TTFT = "First-Turn TTFT (s)";
    public static final String TTFAT = "TTFAT (s)";
    public static final String DECODE_TPS = "Decode TPS";
    public static final String CACHE_HIT_RATE = "Cache Hit Rate (%)";
    public static final String ELIGIBLE_CACHE_HIT_RATE = "Eligible Cache Hit Rate (%)";
    public static final List<String> METRICS =
            List.of(LATENCY, FIRST_TURN_TTFT, TTFAT, DECODE_TPS, CACHE_HIT_RATE, ELIGIBLE_CACHE_HIT_RATE);
    /** Turns a trace sent successfully. */
    public static final String TURNS = "Turns/Trace";
    /** Σ completion tokens of a trace. */
    public static final String OUTPUT_TOKENS_PER_TRACE = "Output Tokens/Trace";
    /** A trace's completion tokens / its turns. */
    public static final String OUTPUT_TOKENS_PER_TURN = "Output Tokens/Turn";
    /** Σ of a trace's turn latencies: time spent waiting on the model. */
    public static final String MODEL_TIME = "Model Time (s)";
    /** Trace latency − model time: idle between turns (tool calls, think time, client). */
    public static final String IDLE_TIME = "Idle Time (s)";
    /** Idle time / trace latency. */
    public static final String IDLE_SHARE = "Idle Share (%)";
    public static final List<String> EXTRA_METRICS =
            List.of(TURNS, OUTPUT_TOKENS_PER_TRACE, OUTPUT_TOKENS_PER_TURN, MODEL_TIME, IDLE_TIME, IDLE_SHARE);

    public TraceSummary {
        rows = List.copyOf(rows);
    }

    /** Without a throughput figure. */
    public TraceSummary(long nTraces, long completedTraces, long abandonedTraces, List<Row> rows) {
        this(nTraces, completedTraces, abandonedTraces, rows, null);
    }

    /** One metric across traces; every value null when no trace defines it. Rounded to 4 decimals. */
    public record Row(String metric, long n, Double mean, Double min, Double p50, Double p90, Double p95, Double p99,
                      Double max) {}

    public Row row(String metric) {
        for (Row r : rows) if (r.metric().equals(metric)) return r;
        return null;
    }

    /** {@code trace_summary.json} as a map (also what the run history stores). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n_traces", nTraces);
        m.put("n_completed_traces", completedTraces);
        m.put("n_abandoned_traces", abandonedTraces);
        m.put("traces_per_second", tracesPerSecond());
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row row : rows) {
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
            out.add(rm);
        }
        m.put("rows", out);
        return m;
    }
}
