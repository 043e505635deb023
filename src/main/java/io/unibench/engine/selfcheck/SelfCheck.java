package io.unibench.engine.selfcheck;

import io.netty.util.concurrent.EventExecutorGroup;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The self-check that runs alongside every benchmark run: the process's CPU use (sampled every 200 ms) and how
 * late a timer fires on the client's event loops and on the virtual-thread scheduler (every 10 ms). If either is
 * high, the run's latencies include the client's own queueing (seed 001 §6.4) and the report says so. A
 * {@link MachineSpeedProbe} (every 10 ms) tells whether the machine itself ran the CPUs slowly meanwhile (a
 * hypervisor throttling the VM), so the report can say that part of the lag is the machine's.
 *
 * <p>Start it right before a run and {@link #stop()} it right after. Costs: one MXBean read per 200 ms, one timer
 * per event loop, one virtual-thread wake-up and one ~20 µs compute chunk per 10 ms.
 */
public final class SelfCheck {
    public static final Duration CPU_PERIOD = Duration.ofMillis(200);
    public static final Duration LAG_PERIOD = Duration.ofMillis(10);

    /**
     * When the report warns.
     *
     * @param cpuShare     average process CPU, as a share of all available cores (0..1), above which it warns
     * @param lagP99Millis timer lag p99 (either scheduler) above which it warns
     */
    public record Thresholds(double cpuShare, double lagP99Millis) {
        /** Issue 7: half of the cores, 5 ms. */
        public static final Thresholds DEFAULT = new Thresholds(CpuMonitor.SATURATION_WARNING, 5.0);
    }

    private final Thresholds thresholds;
    private final CpuMonitor.Sampler cpu;
    private final LagProbe eventLoops;
    private final LagProbe virtualThreads;
    private final MachineSpeedProbe machine;
    private final ReentrantLock stopping = new ReentrantLock();
    private SelfCheckReport report;

    private SelfCheck(Thresholds thresholds, CpuMonitor.Sampler cpu, LagProbe eventLoops, LagProbe virtualThreads,
                      MachineSpeedProbe machine) {
        this.thresholds = thresholds;
        this.cpu = cpu;
        this.eventLoops = eventLoops;
        this.virtualThreads = virtualThreads;
        this.machine = machine;
    }

    /** Starts with the default thresholds and periods; {@code clientLoops} may be null (no event-loop probe). */
    public static SelfCheck start(EventExecutorGroup clientLoops) {
        return start(clientLoops, Thresholds.DEFAULT, CPU_PERIOD, LAG_PERIOD);
    }

    public static SelfCheck start(EventExecutorGroup clientLoops, Thresholds thresholds, Duration cpuPeriod,
                                  Duration lagPeriod) {
        return new SelfCheck(thresholds, CpuMonitor.sample(cpuPeriod),
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

    /** A warning for the live view when the last period's CPU is above the threshold; null when fine. */
    public String warningNow() {
        double share = cpu.lastShare();
        if (!(share > thresholds.cpuShare())) return null;
        return String.format(java.util.Locale.ROOT, "client CPU at %.0f%% of all cores: the client may be the "
                + "bottleneck", share * 100);
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
                LagProbe.LagHistogramView loop = eventLoops == null ? null : eventLoops.stop();
                LagProbe.LagHistogramView vt = virtualThreads.stop();
                MachineSpeedProbe.View speed = machine.stop();
                report = new SelfCheckReport(c.avgShare(), c.maxShare(), c.usage().cpuSeconds(), c.usage().cores(),
                        loop, vt, speed, thresholds);
            }
            return report;
        } finally {
            stopping.unlock();
        }
    }
}
