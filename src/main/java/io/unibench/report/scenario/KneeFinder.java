package io.unibench.report.scenario;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;

import java.util.List;
import java.util.Locale;

/**
 * Names the knee of a concurrency ramp: the first level after which more concurrency stops paying — the next level
 * raises successful requests per second by less than {@code min_gain_percent} — or the first level whose p95 latency
 * passes {@code latency_p95_ms}. Whichever comes first in level order. Levels run with fewer than two points, or
 * that never bend, have no knee.
 */
public final class KneeFinder {

    /** @param concurrency the knee level; @param reason one line for the report */
    public record Knee(int concurrency, String reason) {}

    /**
     * The file's {@code knee} rule.
     *
     * @param minGainPercent throughput growth (%) from a level to the next below which the first is the knee
     * @param latencyP95Ms   a level whose p95 latency passes this bound is the knee; {@code null} = no bound
     */
    public record Rule(double minGainPercent, Double latencyP95Ms) {}

    private KneeFinder() {}

    public static Knee find(List<ScenarioResults.Level> levels, Rule rule) {
        for (int i = 0; i < levels.size(); i++) {
            ScenarioResults.Level l = levels.get(i);
            Double p95 = p95LatencyMs(l.result());
            if (rule.latencyP95Ms() != null && p95 != null && p95 > rule.latencyP95Ms()) {
                return new Knee(l.concurrency(), String.format(Locale.ROOT, "p95 latency %.0f ms passes the %.0f ms bound",
                        p95, rule.latencyP95Ms()));
            }
            if (i + 1 < levels.size()) {
                ScenarioResults.Level next = levels.get(i + 1);
                String flat = flat(l.concurrency(), l.result().summary().throughput().reqThroughput(), next.concurrency(),
                        next.result().summary().throughput().reqThroughput(), rule.minGainPercent());
                if (flat != null) {
                    return new Knee(l.concurrency(), flat + (l.starts().capped() || next.starts().capped()
                            ? "; rate-limited: the limiter's knee, not the provider's" : ""));
                }
            }
        }
        return null;
    }

    /**
     * Why more concurrency stopped paying between two levels (the next raises successful requests per second by less
     * than {@code minGainPercent}), or null when it still pays (or the levels cannot tell).
     */
    public static String flat(int concurrency, double reqPerSecond, int nextConcurrency, double nextReqPerSecond,
                              double minGainPercent) {
        if (!(reqPerSecond > 0) || !(nextReqPerSecond >= 0) || nextConcurrency <= concurrency) return null;
        double gain = 100 * (nextReqPerSecond - reqPerSecond) / reqPerSecond;
        if (gain >= minGainPercent) return null;
        return String.format(Locale.ROOT, "throughput %+.1f%% from concurrency %d to %d (below %.0f%%)", gain,
                concurrency, nextConcurrency, minGainPercent);
    }

    static Double p95LatencyMs(RunResult r) {
        Double s = r.percentile("95%", PercentileRow.LATENCY);
        return s == null ? null : s * 1000;
    }
}
