package io.unibench.engine.selfcheck;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark process's own CPU use over an interval: if the client saturates its machine, it measures
 * itself, not the API (seed 001 §6.4). A run whose process used more than half of every core is flagged.
 */
public final class CpuMonitor {
    /** Above this share of all cores the client may be distorting its own timings. */
    public static final double SATURATION_WARNING = 0.5;

    private final long startCpuNanos;
    private final long startWallNanos;

    private CpuMonitor(long cpu, long wall) {
        startCpuNanos = cpu;
        startWallNanos = wall;
    }

    public static CpuMonitor start() {
        return new CpuMonitor(processCpuNanos(), System.nanoTime());
    }

    /** CPU seconds this process used since start (all threads, user + system); -1 if the JVM cannot tell. */
    public Usage stop() {
        long cpu = processCpuNanos();
        double wall = (System.nanoTime() - startWallNanos) / 1e9;
        int cores = Runtime.getRuntime().availableProcessors();
        if (cpu < 0 || startCpuNanos < 0) return new Usage(-1, wall, cores);
        return new Usage((cpu - startCpuNanos) / 1e9, wall, cores);
    }

    /**
     * @param cpuSeconds  process CPU seconds used, -1 when unknown
     * @param wallSeconds wall-clock seconds elapsed
     * @param cores       processors available to the JVM
     */
    public record Usage(double cpuSeconds, double wallSeconds, int cores) {
        /** Share of all cores used, 0..1; NaN when unknown. */
        public double utilisation() {
            if (cpuSeconds < 0 || wallSeconds <= 0) return Double.NaN;
            return cpuSeconds / (wallSeconds * cores);
        }

        public boolean saturated() {
            return utilisation() > SATURATION_WARNING;
        }
    }

    /**
     * Samples this process's CPU use every {@code period} on one daemon thread (one MXBean read per sample),
     * so a run reports its peak as well as its average: a short saturated phase hides in a long run's average.
     */
    public static Sampler sample(Duration period) {
        return new Sampler(period);
    }

    /** A running sampler; {@link #stop()} ends it and gives the figures. */
    public static final class Sampler {
        private final ScheduledExecutorService timer;
        private final long startCpu;
        private final long startWall;
        private final int cores = Runtime.getRuntime().availableProcessors();
        private long lastCpu;
        private long lastWall;
        private double maxShare = Double.NaN;
        private volatile double lastShare = Double.NaN;
        private int samples;
        private Usage result;

        private Sampler(Duration period) {
            startCpu = lastCpu = processCpuNanos();
            startWall = lastWall = System.nanoTime();
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "unibench-cpu-sampler");
                t.setDaemon(true);
                return t;
            });
            long p = period.toNanos();
            timer.scheduleAtFixedRate(this::tick, p, p, TimeUnit.NANOSECONDS);
        }

        private synchronized void tick() {
            long cpu = processCpuNanos();
            long wall = System.nanoTime();
            if (cpu >= 0 && lastCpu >= 0 && wall > lastWall) {
                double share = (cpu - lastCpu) / ((double) (wall - lastWall) * cores);
                maxShare = Double.isNaN(maxShare) ? share : Math.max(maxShare, share);
                lastShare = share;
                samples++;
            }
            lastCpu = cpu;
            lastWall = wall;
        }

        /** The share of all cores the process used in the last sampled period (0..1); NaN before the first. */
        public double lastShare() {
            return lastShare;
        }

        /** Stops sampling; the average covers the whole interval, the maximum the sampled periods. Idempotent. */
        public synchronized Samples stop() {
            if (result == null) {
                timer.shutdownNow();
                long cpu = processCpuNanos();
                double wall = (System.nanoTime() - startWall) / 1e9;
                result = cpu < 0 || startCpu < 0 ? new Usage(-1, wall, cores) : new Usage((cpu - startCpu) / 1e9, wall, cores);
            }
            double avg = result.utilisation();
            // a run shorter than one period has no sample: its average is the best peak we know
            double max = samples == 0 ? avg : Math.max(maxShare, avg);
            return new Samples(result, max, samples);
        }
    }

    /**
     * @param usage    the whole interval
     * @param maxShare highest share of all cores in one sampling period, 0..1 (NaN when unknown)
     * @param samples  periods sampled
     */
    public record Samples(Usage usage, double maxShare, int samples) {
        public double avgShare() {
            return usage.utilisation();
        }
    }

    private static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
        return -1;
    }
}
