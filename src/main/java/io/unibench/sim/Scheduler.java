package io.unibench.sim;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs an {@link EngineCore} in real time on one dedicated platform thread: plan a step, sleep until it ends, wait
 * until the event loops have written the previous step's tokens, apply the step, repeat; park when idle.
 *
 * <p>Steps follow an absolute clock: a step starts when the previous one was due to end, not when the thread woke
 * (parking is late by tens of microseconds; carrying that into every step would make the simulated ITL drift
 * above its setting). If the thread falls more than {@link #MAX_LAG_NANOS} behind (a stalled machine), the clock
 * restarts from now rather than bursting steps to catch up.
 */
final class Scheduler implements AutoCloseable {
    static final long MAX_LAG_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * Steps the engine may run ahead of the event loops before it waits for them. Steps of a millisecond or more
     * always find the loops done (no wait, exact cadence). With zero latency, running up to 4 steps ahead lets one
     * delivery carry several tokens of a stream in one socket write: measured in bench/sim, 5,000 streams went from
     * ~57k to ~110k tokens/s and from ~14 to ~4.3 us of simulator CPU per token. The engine's counters then lead the
     * sockets by at most 4 tokens per stream.
     */
    static final int MAX_STEPS_AHEAD = 4;
    /** Bound of the wait for deliveries: a wedged event loop must not stop the engine for good. */
    private static final long DELIVERY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final EngineCore core;
    private final Outbox.Inflight inflight;
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean stopped;

    Scheduler(EngineCore core, Outbox.Inflight inflight, String name) {
        this.core = core;
        this.inflight = inflight;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Any thread: something arrived or was cancelled; wake the engine if it idles. */
    void signal() {
        if (sleeping) LockSupport.unpark(thread);
    }

    private void run() {
        long prevEnd = Long.MIN_VALUE;
        long wakeTarget = Long.MAX_VALUE;
        int ahead = 0;
        while (!stopped) {
            long now = System.nanoTime();
            long due = prevEnd != Long.MIN_VALUE ? prevEnd : Math.min(now, wakeTarget);
            long start = now - due <= MAX_LAG_NANOS ? due : now;
            long duration = core.plan(start);
            if (duration < 0) {
                wakeTarget = core.nextWakeNanos();
                prevEnd = Long.MIN_VALUE; // idle: the next step starts when its work is due
                sleeping = true;
                try {
                    if (!core.hasNews() && !stopped) {
                        long wait = wakeTarget == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : wakeTarget - System.nanoTime();
                        if (wait > 0) LockSupport.parkNanos(this, wait);
                    }
                } finally {
                    sleeping = false;
                }
                if (core.hasNews()) wakeTarget = Long.MAX_VALUE;
                continue;
            }
            wakeTarget = Long.MAX_VALUE;
            long end = start + duration;
            for (long left; (left = end - System.nanoTime()) > 0 && !stopped; ) LockSupport.parkNanos(this, left);
            if (++ahead >= MAX_STEPS_AHEAD || inflight.get() == 0) {
                inflight.awaitZero(System.nanoTime() + DELIVERY_WAIT_NANOS);
                ahead = 0;
            }
            core.complete(end);
            prevEnd = end;
        }
        core.shutdown();
    }

    @Override public void close() {
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
