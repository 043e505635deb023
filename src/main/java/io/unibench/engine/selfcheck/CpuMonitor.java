package io.unibench.engine.selfcheck;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark process's own CPU use, and the other processes' on the same machine, over a run: if the client
 * saturates its cores, it measures itself, not the API (seed 001 §6.4). The figures that judge a run cover its
 * <b>steady window</b>: the run minus its start-up ({@link SelfCheck#STARTUP}), whose class loading, JIT compilation
 * and connection set-up are not the client's steady cost.
 */
public final class CpuMonitor {
    private CpuMonitor() {}

    /**
     * @param cpuSeconds  process CPU seconds used, -1 when unknown
     * @param wallSeconds wall-clock seconds elapsed
     * @param cores       processors available to the process
     */
    public record Usage(double cpuSeconds, double wallSeconds, int cores) {
        /** Share of the available cores used, 0..1; NaN when unknown. */
        public double utilisation() {
            if (cpuSeconds < 0 || wallSeconds <= 0) return Double.NaN;
            return cpuSeconds / (wallSeconds * cores);
        }
    }

    /**
     * Samples the CPU every {@code period} on one daemon thread (one MXBean read and one {@code /proc/stat} read per
     * sample), so a run reports its peak as well as its average; once {@code startup} has passed it marks the start
     * of the steady window and runs {@code onSteady} (the lag probes start their steady histograms then).
     */
    public static Sampler sample(Readings readings, Duration period, Duration startup, Runnable onSteady) {
        Sampler s = new Sampler(readings, startup, onSteady);
        s.startTimer(period);
        return s;
    }

    /** A running sampler; {@link #stop()} ends it and gives the figures. */
    public static final class Sampler {
        private final Readings readings;
        private final long startupNanos;
        private final Runnable onSteady;
        private final int cores;
        private final long startCpu;
        private final long startWall;
        private ScheduledExecutorService timer;
        private long lastCpu;
        private long lastWall;
        private volatile double lastShare = Double.NaN;
        // the steady window: its first readings, its highest sampled share, its sample count
        private boolean steady;
        private long steadyCpu;
        private long steadyWall;
        private Readings.MachineCpu steadyMachine;
        private java.util.Map<String, Long> steadyWaits;
        private double steadyMax = Double.NaN;
        private int samples;
        private Samples result;

        /** Without a timer: {@link #tick()} is called by the caller (the tests, with fake readings). */
        Sampler(Readings readings, Duration startup, Runnable onSteady) {
            this.readings = readings;
            this.startupNanos = startup.toNanos();
            this.onSteady = onSteady;
            this.cores = readings.cores();
            startCpu = lastCpu = readings.processCpuNanos();
            startWall = lastWall = readings.nanoTime();
        }

        private void startTimer(Duration period) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "unibench-cpu-sampler");
                t.setDaemon(true);
                return t;
            });
            long p = period.toNanos();
            timer.scheduleAtFixedRate(this::tick, p, p, TimeUnit.NANOSECONDS);
        }

        /** One sample: the share of the last period, and the steady window's start once the start-up has passed. */
        synchronized void tick() {
            if (result != null) return;
            long cpu = readings.processCpuNanos();
            long wall = readings.nanoTime();
            double share = Double.NaN;
            if (cpu >= 0 && lastCpu >= 0 && wall > lastWall) {
                share = (cpu - lastCpu) / ((double) (wall - lastWall) * cores);
                lastShare = share;
            }
            lastCpu = cpu;
            lastWall = wall;
            if (!steady) {
                if (wall - startWall < startupNanos) return;
                steady = true; // this period is start-up's; the window starts at its end
                steadyCpu = cpu;
                steadyWall = wall;
                steadyMachine = readings.machineCpu();
                steadyWaits = readings.threadWaitNanos();
                if (onSteady != null) onSteady.run();
                return;
            }
            if (!Double.isNaN(share)) {
                steadyMax = Double.isNaN(steadyMax) ? share : Math.max(steadyMax, share);
                samples++;
            }
        }

        /** The share of the available cores the process used in the last sampled period (0..1); NaN before the first. */
        public double lastShare() {
            return lastShare;
        }

        /** Stops sampling and gives the whole run's and the steady window's figures. Idempotent. */
        public synchronized Samples stop() {
            if (result != null) return result;
            if (timer != null) timer.shutdownNow();
            result = figures();
            return result;
        }

        /** The figures so far, sampling going on (the live view's judgement); the final ones once stopped. */
        public synchronized Samples soFar() {
            return result != null ? result : figures();
        }

        private Samples figures() {
            long cpu = readings.processCpuNanos();
            long wall = readings.nanoTime();
            Usage whole = usage(startCpu, cpu, (wall - startWall) / 1e9);
            Usage window = null;
            double others = Double.NaN;
            double waits = Double.NaN;
            int machineCpus = 0;
            if (steady) {
                double seconds = (wall - steadyWall) / 1e9;
                window = usage(steadyCpu, cpu, seconds);
                Readings.MachineCpu m = readings.machineCpu();
                if (m != null && steadyMachine != null && seconds > 0 && window.cpuSeconds() >= 0) {
                    machineCpus = m.cpus();
                    double busy = (m.busyNanos() - steadyMachine.busyNanos()) / 1e9;
                    // jiffies are 10 ms: the difference can dip under 0 on an idle machine
                    others = Math.max(0, busy - window.cpuSeconds()) / (seconds * m.cpus());
                }
                java.util.Map<String, Long> w = readings.threadWaitNanos();
                if (w != null && steadyWaits != null && seconds > 0) {
                    long waited = 0; // a thread started in the window counts from its start; one that ended is lost
                    for (var e : w.entrySet()) waited += Math.max(0, e.getValue() - steadyWaits.getOrDefault(e.getKey(), 0L));
                    waits = waited / 1e9 / (seconds * cores);
                }
            }
            double max = window == null || samples == 0 ? (window == null ? whole : window).utilisation()
                    : Math.max(steadyMax, window.utilisation());
            return new Samples(whole, window, max, others, machineCpus, waits);
        }

        private Usage usage(long fromCpu, long toCpu, double seconds) {
            return fromCpu < 0 || toCpu < 0 ? new Usage(-1, seconds, cores)
                    : new Usage((toCpu - fromCpu) / 1e9, seconds, cores);
        }
    }

    /**
     * @param whole       the whole run, start-up included
     * @param steady      the steady window, null when the run ended within its start-up
     * @param maxShare    highest share of the available cores in one sampling period of the steady window (of the
     *                    whole run without one), 0..1, NaN when unknown
     * @param othersShare the other processes' CPU over the steady window, as a share of all the machine's CPUs
     *                    (0..1), NaN when unknown
     * @param machineCpus the machine's CPUs, 0 when unknown
     * @param waitShare   the process's threads' run-queue wait over the steady window (summed over its threads), as
     *                    a share of its available cores' time (0..; NaN when unknown)
     */
    public record Samples(Usage whole, Usage steady, double maxShare, double othersShare, int machineCpus,
                          double waitShare) {
        /** The usage that judges the run: the steady window's, the whole run's without one. */
        public Usage judged() {
            return steady != null ? steady : whole;
        }
    }
}
