package io.unibench.engine.selfcheck;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches for the machine itself running this process's CPUs slowly: every period a platform thread runs a fixed
 * compute chunk and measures the thread CPU time it took. The kernel charges a thread for the time it is on a CPU,
 * so a chunk that is preempted by other threads costs no more CPU time, but a chunk whose (virtual) CPU is run
 * slowly underneath the kernel — a hypervisor descheduling or throttling the VM's vCPUs — costs more, in proportion.
 *
 * <p>Why: on the 2-vCPU VM of bench/HISTORY.md the host runs both vCPUs at ~15% speed for 20–100 ms every ~1.5 s
 * (seen by a C loop with no Java and no network as well). Every thread of the benchmark, and the server on the same
 * host, is late then; the event-loop timer lag cannot tell that from the client's own queueing. This probe can,
 * and the self-check names it. Cost: one chunk (~10–50 µs) per period, a 0.1–0.5% of one core at 10 ms.
 */
public final class MachineSpeedProbe {
    /** A chunk that took more than this many times the fastest chunk ran on a slowed CPU. */
    static final double SLOW_FACTOR = 3.0;
    /** Chunks before any is judged: the first ones run interpreted, before the JIT compiled the chunk. */
    static final int WARMUP_SAMPLES = 50;
    private static final int CHUNK_ITERATIONS = 20_000;

    /** Figures of one run; {@code samples == 0} when the JVM cannot measure thread CPU time. */
    public record View(long samples, long slowSamples, double slowestSpeed) {
        public static final View NONE = new View(0, 0, Double.NaN);

        /** Share of judged samples taken on a slowed CPU, 0..1 (NaN without samples). */
        public double slowShare() {
            return samples == 0 ? Double.NaN : (double) slowSamples / samples;
        }
    }

    /** The judging, apart from the timing so tests can drive it: chunk costs in, slow samples counted. */
    static final class SpeedTally {
        private long seen;
        private long judged;
        private long slow;
        private long fastest = Long.MAX_VALUE;
        private double slowest = Double.NaN;

        void add(long chunkCpuNanos) {
            if (chunkCpuNanos <= 0) return; // below the clock's resolution: tells nothing
            seen++;
            fastest = Math.min(fastest, chunkCpuNanos);
            if (seen <= WARMUP_SAMPLES) return;
            judged++;
            if (chunkCpuNanos > SLOW_FACTOR * fastest) {
                slow++;
                double speed = (double) fastest / chunkCpuNanos;
                slowest = Double.isNaN(slowest) ? speed : Math.min(slowest, speed);
            }
        }

        View view() {
            return new View(judged, slow, slowest);
        }
    }

    private final long periodNanos;
    private final SpeedTally tally = new SpeedTally();
    private final Thread thread;
    private volatile boolean stopped;
    /** Keeps the chunk's result alive so the JIT cannot drop the loop. */
    @SuppressWarnings("unused")
    private volatile long sink;

    private MachineSpeedProbe(long periodNanos, ThreadMXBean threads) {
        this.periodNanos = periodNanos;
        this.thread = threads == null ? null
                : Thread.ofPlatform().daemon().name("unibench-machine-speed").start(() -> loop(threads));
    }

    /** Starts the probe; without thread CPU time in this JVM it records nothing and reports {@link View#NONE}. */
    public static MachineSpeedProbe start(Duration period) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean usable = threads.isCurrentThreadCpuTimeSupported();
        if (usable && !threads.isThreadCpuTimeEnabled()) {
            try {
                threads.setThreadCpuTimeEnabled(true);
            } catch (UnsupportedOperationException | SecurityException e) {
                usable = false;
            }
        }
        return new MachineSpeedProbe(period.toNanos(), usable ? threads : null);
    }

    private void loop(ThreadMXBean threads) {
        while (!stopped) { // bounded by stop(), which also unparks us
            long before = threads.getCurrentThreadCpuTime();
            sink = chunk(CHUNK_ITERATIONS);
            long cost = threads.getCurrentThreadCpuTime() - before;
            synchronized (tally) {
                tally.add(cost);
            }
            LockSupport.parkNanos(this, periodNanos);
        }
    }

    /** Fixed work: integer arithmetic on registers, no allocation, no memory traffic. */
    static long chunk(int iterations) {
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < iterations; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** Stops the thread and returns what it saw. Idempotent. */
    public View stop() {
        if (thread == null) return View.NONE;
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (tally) {
            return tally.view();
        }
    }
}
