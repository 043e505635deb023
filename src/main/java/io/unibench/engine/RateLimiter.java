package io.unibench.engine;

/**
 * A global cap on request starts: a token bucket of {@code burst} tokens refilled at {@code perSecond}. Each start
 * takes one token; with none left it waits for the next. In any window of T seconds at most
 * {@code burst + perSecond·T} requests start; with the default burst of 1 the starts are evenly spaced, 1/rate apart.
 *
 * <p>Reservation style: a caller reserves the next start moment under the lock and waits outside it, so callers are
 * served in arrival order and waiting never holds the lock. Time comes from an injectable {@link Clock}, so tests
 * drive it without sleeping.
 */
public final class RateLimiter {

    private final double intervalNanos;
    private final double toleranceNanos;
    private final Clock clock;
    /** Generic cell rate algorithm: the "theoretical arrival time" after every reservation so far. */
    private double tat;
    private boolean started;

    public RateLimiter(double perSecond, double burst, Clock clock) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) throw new IllegalArgumentException("rate must be > 0: " + perSecond);
        if (!(burst >= 1)) throw new IllegalArgumentException("burst must be >= 1: " + burst);
        this.intervalNanos = 1e9 / perSecond;
        this.toleranceNanos = (burst - 1) * intervalNanos; // a full bucket lets burst starts happen at once
        this.clock = clock;
    }

    /** Reserves a start moment and waits for it: the nanoseconds waited (0: none), or -1 when the wait was cut short. */
    public long acquire() {
        long at = reserve();
        long wait = at - clock.nanoTime();
        if (wait <= 0) return 0;
        return clock.awaitUntil(at) ? wait : -1;
    }

    /** Reserves the next start moment without waiting (a {@link Clock#nanoTime()} reading). */
    public synchronized long reserve() {
        double now = clock.nanoTime();
        if (!started) {
            started = true;
            tat = now;
        }
        double startAt = Math.max(now, tat - toleranceNanos);
        tat = Math.max(tat, startAt) + intervalNanos;
        return (long) Math.ceil(startAt);
    }
}
