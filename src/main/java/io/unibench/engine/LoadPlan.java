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
 * @param openLoop    evalscope's {@code --open-loop}: paced with no concurrency bound ({@code parallel} is then
 *                    the whole budget, so the bound never binds); labelled {@code rate_R_number_N}
 * @param arrivals    how a paced plan's arrivals are spaced ({@link ArrivalShape#POISSON} unless a burstiness, a
 *                    ramp or a trace says otherwise)
 */
public record LoadPlan(int parallel, int number, double rate, Duration duration, int warmup, boolean openLoop,
                       ArrivalShape arrivals) {
    public LoadPlan(int parallel, int number, double rate, Duration duration, int warmup) {
        this(parallel, number, rate, duration, warmup, false);
    }

    public LoadPlan(int parallel, int number, double rate, Duration duration, int warmup, boolean openLoop) {
        this(parallel, number, rate, duration, warmup, openLoop, ArrivalShape.POISSON);
    }

    /** This plan with its arrivals spaced by {@code shape}. */
    public LoadPlan withArrivals(ArrivalShape shape) {
        return new LoadPlan(parallel, number, rate, duration, warmup, openLoop, shape);
    }

    /** An open-loop point: {@code number + warmup} slots, so no request ever waits for one. */
    public static LoadPlan openLoop(int number, double rate, Duration duration, int warmup) {
        return new LoadPlan(Math.max(1, number + warmup), number, rate, duration, warmup, true);
    }

    public LoadPlan {
        if (arrivals == null) arrivals = ArrivalShape.POISSON;
        if (openLoop && !(rate > 0)) throw new IllegalArgumentException("an open loop needs a rate > 0: " + rate);
        if (parallel < 1) throw new IllegalArgumentException("parallel must be ≥ 1: " + parallel);
        if (number < 0) throw new IllegalArgumentException("number must be ≥ 0: " + number);
        if (warmup < 0) throw new IllegalArgumentException("warmup must be ≥ 0: " + warmup);
    }

    public boolean paced() {
        return rate > 0;
    }

    /** Concurrency as reports show it: −1 (INF) for the open loop. */
    public int concurrency() {
        return openLoop ? -1 : parallel;
    }

    /** evalscope's sub-directory name of this point. */
    public String label() {
        return openLoop ? "rate_" + rate + "_number_" + number : "parallel_" + parallel + "_number_" + number;
    }
}
