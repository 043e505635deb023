package io.unibench.engine;

import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.StartWaits;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The rate limiter in front of a target's request starts ({@link RunSpec.Limits#starts}: a scenario file's
 * {@code rate_limit}), one over all of the target's points, and what each point's starts waited on it.
 *
 * <p>The limiter protects the target from bursts of new connections. A level's ramp, the starts that open the
 * connections this level adds (its first {@code concurrency} starts after the ones the warm connections of the
 * previous levels take), always passes it. The later starts (steady state: a worker sending again on its warm
 * connection as soon as its reply ended) pass it only when the file sets {@code rate_limit}:
 * then it is the user's cap (a provider's request quota) and a level whose steady starts waited is flagged, since its
 * throughput is the limiter's, not the provider's. Without {@code rate_limit} nothing limits steady state: the default
 * of 2 × peak starts/s capped every closed loop faster than that (levels 2 and 4 of examples/multi-turn.yaml both
 * 7.97 req/s) and made a false knee.
 *
 * <p>Thread-safe: the level's workers call {@link #awaitStart}; {@link #beginLevel} and {@link #waits} run between
 * levels.
 */
final class StartGate {
    private final RateLimiter limiter;
    private final boolean rampOnly;
    private final AtomicLong starts = new AtomicLong();
    private final LongAdder rampWaited = new LongAdder();
    private final LongAdder rampWaitNanos = new LongAdder();
    private final LongAdder steadyWaited = new LongAdder();
    private final LongAdder steadyWaitNanos = new LongAdder();
    /** Connections the earlier levels opened: the provider's client keeps them. */
    private int warm;
    private volatile int rampFrom;
    private volatile int rampTo;

    StartGate(RateLimiter limiter, boolean rampOnly) {
        this.limiter = limiter;
        this.rampOnly = rampOnly;
    }

    /** The gate of {@code starts} for a shard: its share of the rate and of the burst (λ/N each, a burst of at least 1). */
    static StartGate of(RunSpec.Starts starts, StopSignal stop, Shard shard) {
        return new StartGate(new RateLimiter(shard.rate(starts.perSecond()), Math.max(1, shard.rate(starts.burst())),
                Clock.system(stop)), starts.rampOnly());
    }

    /** A level of {@code concurrency} workers begins: its starts past the warm connections, up to it, are its ramp. */
    void beginLevel(int concurrency) {
        rampFrom = Math.min(warm, concurrency);
        rampTo = concurrency;
        warm = Math.max(warm, concurrency);
        starts.set(0);
        rampWaited.reset();
        rampWaitNanos.reset();
        steadyWaited.reset();
        steadyWaitNanos.reset();
    }

    /** Blocks until the request may start; false when the run was stopped meanwhile. */
    boolean awaitStart() {
        long n = starts.getAndIncrement();
        boolean ramp = n >= rampFrom && n < rampTo;
        if (!ramp && rampOnly) return true; // on a warm connection: only the user's rate_limit holds it back
        long waited = limiter.acquire();
        if (waited < 0) return false;
        if (waited > 0) {
            (ramp ? rampWaited : steadyWaited).increment();
            (ramp ? rampWaitNanos : steadyWaitNanos).add(waited);
        }
        return true;
    }

    /** What the current level's starts waited so far. */
    StartWaits waits() {
        return new StartWaits(starts.get(), rampWaited.sum(), rampWaitNanos.sum() / 1e9,
                steadyWaited.sum(), steadyWaitNanos.sum() / 1e9);
    }
}
