package io.unibench.engine;

import java.time.Duration;

/**
 * One point of a sweep: how many requests, how many at once, how fast.
 *
 * @param parallel    closed-loop concurrency: at most this many requests in flight
 * @param number      requests to send (the budget shared by all workers)
 * @param rate        open-loop Poisson arrival rate in requests/s, bounded by {@code parallel}; ≤ 0 = none
 * @param duration    soft cap: no request is started after it, in-flight ones finish; {@code null} = none
 * @param warmup      requests sent first at the same concurrency and excluded from every result
 */
public record LoadPlan(int parallel, int number, double rate, Duration duration, int warmup) {
    public LoadPlan {
        if (parallel < 1) throw new IllegalArgumentException("parallel must be ≥ 1: " + parallel);
        if (number < 0) throw new IllegalArgumentException("number must be ≥ 0: " + number);
        if (warmup < 0) throw new IllegalArgumentException("warmup must be ≥ 0: " + warmup);
    }

    public boolean paced() {
        return rate > 0;
    }

    /** evalscope's sub-directory name of this point. */
    public String label() {
        return "parallel_" + parallel + "_number_" + number;
    }
}
