package io.unibench.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

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

    private static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
        return -1;
    }
}
