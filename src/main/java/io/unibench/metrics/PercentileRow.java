package io.unibench.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of {@code benchmark_percentile.json}: a percentile label and one value per column, in column order.
 * A column with no samples has a {@code null} value (evalscope writes NaN there).
 *
 * @param label  {@code "min"}, {@code "1%"}, … {@code "99%"}, {@code "max"}
 * @param values    column name → value rounded to {@link #decimals(String)} decimals, or null; insertion-ordered,
 *                  unmodifiable
 * @param intervals column name → the value's 95 % confidence interval ({@link ConfidenceIntervals}), rounded like
 *                  the value, or null when the column has too few samples for one (and for min and max); written
 *                  after the values as {@code "<column> 95% CI": [low, high]} or {@code null}; empty for rows made
 *                  without intervals
 */
public record PercentileRow(String label, Map<String, Double> values, Map<String, Interval> intervals) {

    /** The percentile points of evalscope's table, in row order. */
    public static final double[] POINTS = {0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100};
    /** The row labels, matching {@link #POINTS}. */
    public static final List<String> LABELS =
            List.of("min", "1%", "5%", "10%", "25%", "50%", "75%", "90%", "95%", "99%", "max");

    /** Key of the label in each JSON row object. */
    public static final String PERCENTILES = "Percentiles";

    // evalscope's columns, verbatim and in its order.
    public static final String LATENCY = "Latency (s)";
    public static final String TTFT = "TTFT (ms)";
    public static final String ITL = "ITL (ms)";
    public static final String TPOT = "TPOT (ms)";
    public static final String INPUT_TOKENS = "Input tokens";
    public static final String OUTPUT_TOKENS = "Output tokens";
    public static final String OUTPUT_THROUGHPUT = "Output (tok/s)";
    public static final String TOTAL_THROUGHPUT = "Total (tok/s)";
    public static final String DECODE_THROUGHPUT = "Decode (tok/s)";
    /** Embedding and rerank runs only: input tokens / latency of each request. */
    public static final String INPUT_THROUGHPUT = "Input (tok/s)";

    // Our additions.
    /** Time to the first SSE data event of any kind: what evalscope calls TTFT. */
    public static final String FIRST_CHUNK = "First Chunk (ms)";
    /** Each inter-chunk interval divided by its request's tokens per chunk. */
    public static final String ITL_PER_TOKEN = "ITL per Token (ms)";
    /**
     * Present only when some reply reasoned (see {@link Summary#AVG_TTFCT}): time to the first content (answer)
     * token, and the answer part's TPOT.
     */
    public static final String TTFCT = "TTFCT (ms)";
    public static final String ANSWER_TPOT = "Answer TPOT (ms)";
    /** Present only for scheduled (--rate) runs: actual send − scheduled send. */
    public static final String QUEUE_DELAY = "Queue Delay (ms)";
    public static final String LATENCY_INCL_QUEUE = "Latency incl. Queue (s)";
    public static final String TTFT_INCL_QUEUE = "TTFT incl. Queue (ms)";

    /**
     * Decimals kept for a column: 2 as in evalscope, except 4 for the columns in seconds, where evalscope's 2
     * decimals would quantise latencies to 10 ms (more digits of the same value break no reader).
     */
    public static int decimals(String column) {
        return column.equals(LATENCY) || column.equals(LATENCY_INCL_QUEUE) ? 4 : 2;
    }

    public PercentileRow {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        intervals = intervals == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(intervals));
    }

    /** A row without intervals. */
    public PercentileRow(String label, Map<String, Double> values) {
        this(label, values, null);
    }

    /** The 95 % interval of a column's value, or null when it has none. */
    public Interval interval(String column) {
        return intervals.get(column);
    }

    /** The value of a column, or null when the column is absent or had no samples. */
    public Double value(String column) {
        return values.get(column);
    }

    /** {@code benchmark_percentile.json}'s rows as maps (also what the run history stores). */
    public static List<Map<String, Object>> toMaps(List<PercentileRow> rows) {
        List<Map<String, Object>> out = new ArrayList<>(rows.size());
        for (PercentileRow row : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(PERCENTILES, row.label());
            m.putAll(row.values());
            for (String column : row.intervals().keySet()) {
                Interval i = row.intervals().get(column);
                m.put(column + ConfidenceIntervals.KEY_SUFFIX, i == null ? null : i.toList());
            }
            out.add(m);
        }
        return out;
    }
}
