package io.unibench.engine;

import java.util.random.RandomGenerator;

/**
 * Send times of an open-loop Poisson arrival process, on an absolute schedule (evalscope §2.3): exponential
 * gaps with mean 1/rate, rescaled so the last arrival is exactly at n/rate, anchored at the start. A request
 * that falls behind is sent at once and the schedule does not drift, so the achieved rate matches the asked one.
 */
public final class PoissonSchedule implements ArrivalSchedule {
    private final long[] offsetsNanos;

    public PoissonSchedule(int n, double rate, RandomGenerator rng) {
        if (rate <= 0) throw new IllegalArgumentException("rate must be > 0: " + rate);
        offsetsNanos = new long[n];
        if (n == 0) return;
        double[] cumulative = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += -Math.log(1.0 - rng.nextDouble()) / rate;
            cumulative[i] = sum;
        }
        double scale = (n / rate) / sum;
        for (int i = 0; i < n; i++) {
            offsetsNanos[i] = Math.round(cumulative[i] * scale * 1e9);
        }
    }

    /** Offset of arrival i from the schedule's start, in nanoseconds; non-decreasing in i. */
    @Override
    public long offsetNanos(int i) {
        return offsetsNanos[i];
    }

    @Override
    public int size() {
        return offsetsNanos.length;
    }
}
