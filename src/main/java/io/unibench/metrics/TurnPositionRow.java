package io.unibench.metrics;

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
                             Double p50TtftMs, Double p90TtftMs, Double p99TtftMs, Double cacheHitPercent) {}
