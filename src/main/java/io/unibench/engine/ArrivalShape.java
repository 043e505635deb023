package io.unibench.engine;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.util.Arrays;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * How the arrivals of a paced phase are spaced: the one thing the open loop asks, once per phase, for its absolute
 * schedule. Poisson is evalscope's (and the default); gamma gaps, a rate ramp and recorded timestamps are vLLM's
 * {@code --burstiness}, its {@code --ramp-up-*} and a trace's own times.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({@JsonSubTypes.Type(value = ArrivalShape.Poisson.class, name = "poisson"),
        @JsonSubTypes.Type(value = ArrivalShape.Gamma.class, name = "gamma"),
        @JsonSubTypes.Type(value = ArrivalShape.RampUp.class, name = "ramp"),
        @JsonSubTypes.Type(value = ArrivalShape.Recorded.class, name = "recorded")})
public sealed interface ArrivalShape {
    /**
     * The schedule of requests {@code first .. first+count-1} of the run.
     *
     * @param rate the plan's rate in requests/s (unused by shapes that carry their own rates or times)
     * @param rng  the phase's seeded randomness
     */
    ArrivalSchedule schedule(long first, int count, double rate, RandomGenerator rng);

    /** Poisson arrivals rescaled to end at n/rate: {@link PoissonSchedule}. */
    ArrivalShape POISSON = new Poisson();

    /** Poisson arrivals rescaled to end at n/rate (evalscope's). A value, so a spec that holds it compares and serialises. */
    record Poisson() implements ArrivalShape {
        @Override
        public ArrivalSchedule schedule(long first, int count, double rate, RandomGenerator rng) {
            return new PoissonSchedule(count, rate, rng);
        }
    }

    /**
     * Gamma-distributed gaps of shape {@code burstiness} and mean 1/rate (vLLM's {@code --burstiness}): 1 is Poisson
     * (the very same schedule), below 1 burstier, above 1 more even; infinity gives constant gaps. As vLLM and
     * evalscope do, the gaps are rescaled so the last arrival is exactly at n/rate.
     */
    static ArrivalShape gamma(double burstiness) {
        return new Gamma(burstiness);
    }

    /** {@link #gamma}'s shape, kept as the burstiness given (1 included: the files say it was asked for). */
    record Gamma(double burstiness) implements ArrivalShape {
        public Gamma {
            if (!(burstiness > 0)) throw new IllegalArgumentException("burstiness must be > 0: " + burstiness);
        }

        @Override
        public ArrivalSchedule schedule(long first, int count, double rate, RandomGenerator rng) {
            if (burstiness == 1) return POISSON.schedule(first, count, rate, rng);
            double[] gaps = new double[count];
            for (int i = 0; i < count; i++) {
                gaps[i] = Double.isInfinite(burstiness) ? 1 / rate : gammaVariate(burstiness, rng) / (rate * burstiness);
            }
            return Offsets.rescaled(gaps, count / rate);
        }
    }

    /**
     * vLLM's ramp: the rate of request i (of the phase's n) is {@code start + (end − start)·p} (linear) or {@code
     * start·(end/start)^p} (exponential), p = i / max(n − 1, 1); request i's gap before it is gamma of shape {@code
     * burstiness} with mean 1/rate_i. Not rescaled (as vLLM: the ramp, not a total, fixes the times).
     */
    static ArrivalShape ramp(Ramp ramp, double burstiness) {
        return new RampUp(ramp, burstiness);
    }

    /** {@link #ramp}'s shape. */
    record RampUp(Ramp ramp, double burstiness) implements ArrivalShape {
        public RampUp {
            if (!(burstiness > 0)) throw new IllegalArgumentException("burstiness must be > 0: " + burstiness);
        }

        @Override
        public ArrivalSchedule schedule(long first, int count, double rate, RandomGenerator rng) {
            double[] gaps = new double[count];
            for (int i = 0; i < count; i++) {
                double r = ramp.rateAt(i, count);
                gaps[i] = burstiness == 1 ? -Math.log(1.0 - rng.nextDouble()) / r
                        : Double.isInfinite(burstiness) ? 1 / r : gammaVariate(burstiness, rng) / (r * burstiness);
            }
            return Offsets.rescaled(gaps, Double.NaN);
        }
    }

    /**
     * Recorded send times (a trace's timestamps, already divided by its speed-up), in nanoseconds from the trace's
     * start, one per request of the run: the phase of requests first.. starts at request first's time.
     */
    static ArrivalShape recorded(long[] offsetsNanos) {
        return new Recorded(offsetsNanos, false, 1);
    }

    /** {@link #recorded(long[])} of a trace replayed {@code speedup} times faster (the times already divided). */
    static ArrivalShape recorded(long[] offsetsNanos, double speedup) {
        return new Recorded(offsetsNanos, false, speedup);
    }

    /**
     * Recorded send times kept from the trace's start, whatever the phase's first request: a shard's dealt rows
     * ({@link Shard#dealt}), which do not begin at the trace's start, so the shards' rows interleave as the trace's.
     */
    static ArrivalShape recordedFromStart(long[] offsetsNanos) {
        return new Recorded(offsetsNanos, true, 1);
    }

    /**
     * Recorded times ({@link #recorded}, {@link #recordedFromStart}).
     *
     * @param speedup how much faster than recorded the times already are (reported, not applied again)
     */
    record Recorded(long[] offsetsNanos, boolean fromStart, double speedup) implements ArrivalShape {
        public Recorded {
            offsetsNanos = offsetsNanos.clone();
        }

        @Override
        public long[] offsetsNanos() {
            return offsetsNanos.clone();
        }

        @Override
        public ArrivalSchedule schedule(long first, int count, double rate, RandomGenerator rng) {
            long[] times = offsetsNanos;
            if (first + count > times.length) {
                throw new IllegalArgumentException("the trace has " + times.length + " requests, not " + (first + count));
            }
            long base = fromStart ? 0 : times[(int) first];
            long[] offsets = new long[count];
            for (int i = 0; i < count; i++) offsets[i] = Math.max(0, times[(int) first + i] - base);
            for (int i = 1; i < count; i++) offsets[i] = Math.max(offsets[i], offsets[i - 1]);
            return new Offsets(offsets);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Recorded r && fromStart == r.fromStart && Double.compare(speedup, r.speedup) == 0
                    && Arrays.equals(offsetsNanos, r.offsetsNanos);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(offsetsNanos) * 31 + Boolean.hashCode(fromStart) * 7 + Double.hashCode(speedup);
        }

        @Override
        public String toString() {
            return "Recorded[" + offsetsNanos.length + " times, fromStart=" + fromStart + ", speedup=" + speedup + "]";
        }
    }

    /** The rate ramp of vLLM's {@code --ramp-up-strategy linear|exponential}, in requests/s. */
    record Ramp(Strategy strategy, double startRps, double endRps) {
        public enum Strategy { linear, exponential }

        public Ramp {
            if (!(startRps > 0) || !(endRps > 0) || Double.isInfinite(startRps) || Double.isInfinite(endRps)) {
                throw new IllegalArgumentException("ramp rates must be finite and > 0: " + startRps + ", " + endRps);
            }
        }

        /** The rate of request i of n. */
        public double rateAt(int i, int n) {
            double p = i / (double) Math.max(n - 1, 1);
            return strategy == Strategy.linear ? startRps + (endRps - startRps) * p
                    : startRps * Math.pow(endRps / startRps, p);
        }

        public String describe() {
            return String.format(Locale.ROOT, "%s %s → %s req/s", strategy, plain(startRps), plain(endRps));
        }

        private static String plain(double v) {
            return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
        }
    }

    /**
     * A gamma(shape, 1) variate: Marsaglia and Tsang's method (2000), with the boost u^(1/shape) for shape < 1.
     * Mean shape, variance shape.
     */
    static double gammaVariate(double shape, RandomGenerator rng) {
        if (shape < 1) {
            return gammaVariate(shape + 1, rng) * Math.pow(1.0 - rng.nextDouble(), 1 / shape);
        }
        double d = shape - 1.0 / 3, c = 1 / Math.sqrt(9 * d);
        while (true) {
            double x = rng.nextGaussian();
            double v = 1 + c * x;
            if (v <= 0) continue;
            v = v * v * v;
            double u = 1.0 - rng.nextDouble(); // (0, 1]
            if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
        }
    }

    /** A schedule of fixed offsets. */
    final class Offsets implements ArrivalSchedule {
        private final long[] offsetsNanos;

        private Offsets(long[] offsetsNanos) {
            this.offsetsNanos = offsetsNanos;
        }

        /** Cumulative gaps (seconds), scaled so the last arrival is at {@code totalSeconds} unless that is NaN. */
        static Offsets rescaled(double[] gapsSeconds, double totalSeconds) {
            long[] offsets = new long[gapsSeconds.length];
            double sum = Arrays.stream(gapsSeconds).sum();
            double scale = Double.isNaN(totalSeconds) || !(sum > 0) ? 1 : totalSeconds / sum;
            double t = 0;
            for (int i = 0; i < gapsSeconds.length; i++) {
                t += gapsSeconds[i];
                offsets[i] = Math.round(t * scale * 1e9);
            }
            return new Offsets(offsets);
        }

        @Override
        public long offsetNanos(int i) {
            return offsetsNanos[i];
        }

        @Override
        public int size() {
            return offsetsNanos.length;
        }
    }
}
