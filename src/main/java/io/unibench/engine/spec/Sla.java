package io.unibench.engine.spec;

import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.sla.SlaParams;

import java.time.Duration;

/**
 * The SLA auto-tune's search as a generator of points: which variable it tunes, between which bounds, from where, how
 * often each value runs, and the plan of a probe at a value ({@link #plan}). The search itself is
 * {@code engine.sla.SlaTuner}'s; it chooses each value from the results so far.
 *
 * @param variable      {@code parallel} (the concurrency) or {@code rate} (req/s, at most {@code fixedParallel} in flight)
 * @param params        the criteria
 * @param start         the first value tried
 * @param runs          runs per value, averaged
 * @param fixedParallel the concurrency bound of a rate probe
 * @param multiplier    requests of a probe at value v: max(1, round(v × multiplier))
 * @param warmup        evalscope's warm-up rule (≥ 1 a count, 0 < x < 1 a share of the probe's requests)
 * @param duration      a probe's time cap; null = none
 * @param openLoop      rate probes are open loop (no concurrency bound)
 * @param arrivals      how a paced probe's arrivals are spaced
 * @param pause         the pause before each probe after the first
 * @param target        the target probed
 * @param workload      the workload probed
 */
public record Sla(Variable variable, SlaParams params, int start, int lower, int upper, int runs, int fixedParallel,
                  double multiplier, double warmup, Duration duration, boolean openLoop, ArrivalShape arrivals,
                  Duration pause, int target, int workload) {
    public enum Variable { parallel, rate }

    public Sla {
        if (arrivals == null) arrivals = ArrivalShape.POISSON;
        if (pause == null) pause = Duration.ZERO;
    }

    /** This search over target {@code target} × workload {@code workload}. */
    public Sla at(int target, int workload) {
        return new Sla(variable, params, start, lower, upper, runs, fixedParallel, multiplier, warmup, duration,
                openLoop, arrivals, pause, target, workload);
    }

    /** Requests of a probe at {@code value}. */
    public int number(int value) {
        return (int) Math.max(1, Math.round(value * multiplier));
    }

    /** The plan of a probe at {@code value}. */
    public LoadPlan plan(int value) {
        int number = number(value);
        int warm = warmupCount(warmup, number);
        LoadPlan plan = variable == Variable.parallel ? new LoadPlan(value, number, -1, duration, warm)
                : openLoop ? LoadPlan.openLoop(number, value, duration, warm)
                : new LoadPlan(fixedParallel, number, value, duration, warm);
        return plan.paced() ? plan.withArrivals(arrivals) : plan;
    }

    /** The most requests in flight any probe may have (the connection pool's size). */
    public int peakConcurrency() {
        return variable == Variable.parallel ? upper : fixedParallel;
    }

    /** evalscope's warm-up rule: ≥ 1 a count, 0 < x < 1 a share of {@code number} (at least 1). */
    public static int warmupCount(double warmup, int number) {
        if (warmup <= 0) return 0;
        if (warmup >= 1) return (int) warmup;
        return Math.max(1, (int) (warmup * number));
    }
}
