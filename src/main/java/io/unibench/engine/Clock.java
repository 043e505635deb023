package io.unibench.engine;

/**
 * Monotonic time and a way to wait for it: what the engine (open loop, closed loop, multi-turn, rate limiter) reads
 * instead of {@link System#nanoTime()}, so tests drive time by hand and can assert exact waits. Production code uses
 * {@link #system}: one interface call on a final field, which the JIT inlines (a single implementation is loaded).
 */
public interface Clock {
    long nanoTime();

    /**
     * Waits until {@code deadlineNanos} (a {@link #nanoTime()} reading); false when the wait was cut short by a stop
     * (or an interrupt, whose flag is kept), true when the moment came.
     */
    boolean awaitUntil(long deadlineNanos);

    /** {@link System#nanoTime()}; waits end early when {@code stop} is raised. */
    static Clock system(StopSignal stop) {
        return new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public boolean awaitUntil(long deadlineNanos) {
                try {
                    return !stop.awaitUntil(deadlineNanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        };
    }
}
