package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Requests at one turn position of a multi-turn run (turn 1, 2, 3, … of their conversations): how latency and the
 * prefix cache behave as context grows. TTFT percentiles use the per-request method
 * ({@link Percentiles#nearestRankHigh}); cache hit is Σ cached / Σ prompt over the position's successes.
 *
 * @param turn            1-based turn position
 * @param requests        requests sent at this position, failures included
 * @param succeeded       successful ones
 * @param avgInputTokens  mean prompt tokens of the successes; null when none
 * @param avgTtftMs       mean TTFT (ms) of the successes; null when none
 * @param p50TtftMs       TTFT percentiles (ms); null when none
 * @param p90TtftMs       "
 * @param p99TtftMs       "
 * @param cacheHitPercent 100·Σcached/Σprompt; null when no success carried a cached-token figure
 */
public record TurnPositionRow(int turn, long requests, long succeeded, Double avgInputTokens, Double avgTtftMs,
                             Double p50TtftMs, Double p90TtftMs, Double p99TtftMs, Double cacheHitPercent) {

    /** {@code turn_position_summary.json} as a map (also what the run history stores). */
    public static Map<String, Object> toMaps(List<TurnPositionRow> positions) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TurnPositionRow p : positions) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("turn", p.turn());
            rm.put("requests", p.requests());
            rm.put("succeeded", p.succeeded());
            rm.put("avg_input_tokens", p.avgInputTokens());
            rm.put("avg_ttft_ms", p.avgTtftMs());
            rm.put("p50_ttft_ms", p.p50TtftMs());
            rm.put("p90_ttft_ms", p.p90TtftMs());
            rm.put("p99_ttft_ms", p.p99TtftMs());
            rm.put("cache_hit_percent", p.cacheHitPercent());
            rows.add(rm);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", rows);
        return m;
    }
}
