package io.unibench.engine.selfcheck;

import io.netty.util.concurrent.EventExecutorGroup;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The self-check that runs alongside every benchmark run: the process's CPU use (sampled every 200 ms), the other
 * processes' CPU on the machine, and how late a timer fires on the client's event loops and on the virtual-thread
 * scheduler (every 10 ms). The run is judged over its <b>steady window</b>, the run minus its first
 * {@link #STARTUP} (class loading, JIT compilation, connection set-up): the client is the bottleneck when, there,
 * it used a large share of its cores <b>and</b> its timers fired late (seed 001 §6.4; {@link SelfCheckReport}).
 * A {@link MachineSpeedProbe} (every 10 ms) tells whether the machine itself ran the CPUs slowly meanwhile (a
 * hypervisor throttling the VM); that, and other processes keeping the machine busy, are notes of their own.
 *
 * <p>Start it right before a run and {@link #stop()} it right after. Costs: one MXBean read and one
 * {@code /proc/stat} read per 200 ms, one timer per event loop, one virtual-thread wake-up and one ~20 µs compute
 * chunk per 10 ms.
 */
public final class SelfCheck {
    public static final Duration CPU_PERIOD = Duration.ofMillis(200);
    public static final Duration LAG_PERIOD = Duration.ofMillis(10);
    /** The start of a run that is not judged: the JVM's JIT and the first connections' set-up happen there. */
    public static final Duration STARTUP = Duration.ofSeconds(1);

    /**
     * When the report says client-bound: both figures over their limits across the steady window, and a steady
     * window long enough to judge (a p99 of fewer than ~100 timer samples is the one worst sample).
     *
     * @param cpuShare          the process's average CPU over the steady window, as a share of the cores available
     *                          to it (0..1), above which its CPU counts as high
     * @param lagP99Millis      timer lag p99 over the steady window (the worse scheduler) above which it counts
     * @param minWindowSeconds  a steady window shorter than this is not judged (never client-bound)
     */
    public record Thresholds(double cpuShare, double lagP99Millis, double minWindowSeconds) {
        /**
         * 40 % of the available cores: a client starved on one core shared with one busy process gets about half
         * of it, so the bound must be under 50 %; the quick start uses 7–23 % of 2 cores with its simulator in the
         * process. 5 ms of lag: ten times a quiet machine's p99 (0.5–2.5 ms here). 1 s of steady window.
         */
        public static final Thresholds DEFAULT = new Thresholds(0.40, 5.0, 1.0);

        public Thresholds(double cpuShare, double lagP99Millis) {
            this(cpuShare, lagP99Millis, DEFAULT.minWindowSeconds);
        }
    }

    private final Thresholds thresholds;
    private final CpuMonitor.Sampler cpu;
    private final LagProbe eventLoops;
    private final LagProbe virtualThreads;
    private final MachineSpeedProbe machine;
    private final ReentrantLock stopping = new ReentrantLock();
    private SelfCheckReport report;

    private SelfCheck(Thresholds thresholds, Readings readings, Duration cpuPeriod, Duration startup,
                      LagProbe eventLoops, LagProbe virtualThreads, MachineSpeedProbe machine) {
        this.thresholds = thresholds;
        this.eventLoops = eventLoops;
        this.virtualThreads = virtualThreads;
        this.machine = machine;
        this.cpu = CpuMonitor.sample(readings, cpuPeriod, startup, () -> {
            if (eventLoops != null) eventLoops.markSteady();
            virtualThreads.markSteady();
        });
    }

    /** On a sampler and probes the caller drives (the tests: injected readings, fixed lags); no machine probe. */
    SelfCheck(Thresholds thresholds, CpuMonitor.Sampler cpu, LagProbe eventLoops, LagProbe virtualThreads) {
        this.thresholds = thresholds;
        this.eventLoops = eventLoops;
        this.virtualThreads = virtualThreads;
        this.machine = null;
        this.cpu = cpu;
    }

    /** Starts with the default thresholds and periods; {@code clientLoops} may be null (no event-loop probe). */
    public static SelfCheck start(EventExecutorGroup clientLoops) {
        return start(clientLoops, Thresholds.DEFAULT, CPU_PERIOD, LAG_PERIOD, STARTUP);
    }

    public static SelfCheck start(EventExecutorGroup clientLoops, Thresholds thresholds, Duration cpuPeriod,
                                  Duration lagPeriod, Duration startup) {
        return new SelfCheck(thresholds, Readings.SYSTEM, cpuPeriod, startup,
                clientLoops == null ? null : LagProbe.onEventLoops(clientLoops, lagPeriod),
                LagProbe.onVirtualThreads(lagPeriod), MachineSpeedProbe.start(lagPeriod));
    }

    /**
     * The process's CPU in the last sampling period as percent of one core (150 = one and a half cores), and a
     * warning when it is above the threshold; for the live view, while the run goes on. NaN before the first period.
     */
    public double cpuPercentOfOneCoreNow() {
        return cpu.lastShare() * Runtime.getRuntime().availableProcessors() * 100;
    }

    /**
     * The client's event-loop timer lag p99 so far in milliseconds, for the live view (HdrHistogram, 3 significant
     * digits, as in the report); NaN without event loops (a dry run) or before the first timer fired.
     */
    public double loopLagP99MillisNow() {
        return eventLoops == null ? Double.NaN : eventLoops.now().p99Millis();
    }

    /**
     * A warning for the live view: the report's client-bound rule ({@link SelfCheckReport#bottleneck()}) on the steady
     * window so far — CPU used or waited for, timer lag p99 of the worse scheduler, a window long enough to judge —
     * so the live view never warns where the report would not; null when fine or still starting.
     */
    public String warningNow() {
        return liveWarning(cpu.soFar(), eventLoops == null ? null : eventLoops.steady(), virtualThreads.steady(),
                thresholds);
    }

    /** The live view's warning on figures so far (the one rule, {@link SelfCheckReport#bottleneck()}); null when fine. */
    static String liveWarning(CpuMonitor.Samples soFar, LagProbe.LagHistogramView loop, LagProbe.LagHistogramView vt,
                              Thresholds thresholds) {
        if (soFar.steady() == null) return null; // start-up: not judged
        SelfCheckReport r = report(soFar, loop, vt, null, thresholds);
        if (!r.bottleneck()) return null;
        String line = r.warningLine();
        return line.startsWith("Warning: ") ? line.substring("Warning: ".length()) : line;
    }

    /**
     * Stops every sampler and judges the figures. Idempotent. Under a lock, not a monitor: stopping joins the
     * samplers' threads, which would pin a virtual thread's carrier before JDK 24.
     */
    public SelfCheckReport stop() {
        stopping.lock();
        try {
            if (report == null) {
                CpuMonitor.Samples c = cpu.stop();
                LagProbe.LagHistogramView loop = eventLoops == null ? null : window(c, eventLoops);
                LagProbe.LagHistogramView vt = window(c, virtualThreads);
                MachineSpeedProbe.View speed = machine == null ? null : machine.stop();
                report = report(c, loop, vt, speed, thresholds);
            }
            return report;
        } finally {
            stopping.unlock();
        }
    }

    /** The report of a run's figures: the steady window's, or the whole run's (not judged) without one. */
    static SelfCheckReport report(CpuMonitor.Samples c, LagProbe.LagHistogramView loop, LagProbe.LagHistogramView vt,
                                  MachineSpeedProbe.View speed, Thresholds thresholds) {
        CpuMonitor.Usage u = c.judged();
        return new SelfCheckReport(u.utilisation(), c.maxShare(), u.cpuSeconds(), u.cores(), loop, vt, speed,
                c.steady() == null ? 0 : c.steady().wallSeconds(), c.othersShare(), c.machineCpus(), c.waitShare(), thresholds);
    }

    /** The probe's lags over the steady window; the whole run's when the run ended within its start-up. */
    private static LagProbe.LagHistogramView window(CpuMonitor.Samples c, LagProbe probe) {
        LagProbe.LagHistogramView whole = probe.stop();
        return c.steady() == null ? whole : probe.steady();
    }
}
