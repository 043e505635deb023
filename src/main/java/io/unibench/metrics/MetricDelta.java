package io.unibench.metrics;

import java.util.Locale;

/**
 * One metric of one sweep point compared between two runs (A and B): the delta, which way is better, and whether
 * the delta is inside the run-to-run spread of repeated runs.
 *
 * @param verdict  "better", "worse", "same" (equal values), or "" for neutral metrics and missing values
 * @param spread   the repeats' range, or null when fewer than two repeats had the metric
 * @param inSpread true when |delta| ≤ spread
 */
public record MetricDelta(String point, String metric, Double a, Double b, Double delta, Double deltaPercent,
                          Direction direction, String verdict, Double spread, int repeats, boolean inSpread) {
    /** Which way a metric is better. */
    public enum Direction { HIGHER_BETTER, LOWER_BETTER, NEUTRAL }

    /** "better", "worse", "same" (equal values), or "" for neutral metrics and missing values. */
    public static String verdict(Direction dir, Double delta) {
        if (delta == null || dir == Direction.NEUTRAL) return "";
        if (delta == 0) return "same";
        boolean up = delta > 0;
        return up == (dir == Direction.HIGHER_BETTER) ? "better" : "worse";
    }

    /** Which way is better, from the metric's name. */
    public static Direction direction(String metric) {
        String m = metric.toLowerCase(Locale.ROOT);
        if (m.contains("throughput") || m.contains("success rate") || m.contains("success requests")
                || m.contains("cache hit") || m.contains("decoded tok") || m.contains("accept rate")) {
            return Direction.HIGHER_BETTER;
        }
        if (m.contains("latency") || m.contains("ttft") || m.contains("tpot") || m.contains("itl")
                || m.contains("first chunk") || m.contains("queue delay") || m.contains("failed requests")
                || m.contains("test duration")) {
            return Direction.LOWER_BETTER;
        }
        return Direction.NEUTRAL;
    }
}
