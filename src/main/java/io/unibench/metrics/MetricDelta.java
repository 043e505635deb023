package io.unibench.metrics;

import java.util.Locale;

/**
 * One metric of one load level compared between a baseline run (A) and a candidate (B): the delta B − A, which way
 * is better, and the verdict {@link SampleComparison} reached from the requests' distributions.
 *
 * @param deltaInterval the 95 % confidence interval of the delta, or null for a figure that has one value per run
 *                      (throughput, counts) or too few requests
 * @param verdict       one of {@link #BETTER}, {@link #WORSE}, {@link #SAME}, {@link #UNCLEAR}, {@link #TOO_FEW}, or
 *                      "" when no interval decides (one figure per run, a neutral metric, a missing value)
 * @param nA            the samples behind A's figure (successful requests with the metric), or null for a figure
 *                      that has one value per run
 * @param nB            the same for B
 * @param why           a short reason when the verdict is {@link #TOO_FEW}, else null
 */
public record MetricDelta(String point, String metric, Double a, Double b, Double delta, Double deltaPercent,
                          Direction direction, String verdict, Interval deltaInterval, Long nA, Long nB, String why) {
    /** Which way a metric is better. */
    public enum Direction { HIGHER_BETTER, LOWER_BETTER, NEUTRAL }

    public static final String BETTER = "better";
    public static final String WORSE = "worse";
    /** The interval of the delta lies within ± the minimum effect: no difference that matters. */
    public static final String SAME = "same";
    /** The interval is too wide to tell: neither a difference beyond the minimum effect nor equivalence. */
    public static final String UNCLEAR = "unclear";
    /** A side has too few samples for the percentile's interval. */
    public static final String TOO_FEW = "too few requests";

    /** The delta's interval as a percentage of A, or null. */
    public Interval deltaIntervalPercent() {
        if (deltaInterval == null || a == null || a == 0) return null;
        return deltaInterval.scaled(100 / Math.abs(a));
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
