package io.unibench.engine.selfcheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@link SelfCheck} saw during one run, and whether the client may have been the bottleneck.
 *
 * @param cpuAvgShare      process CPU over the run as a share of all cores, 0..1 (NaN when unknown)
 * @param cpuMaxShare      highest share in one sampling period, 0..1 (NaN when unknown)
 * @param cpuSeconds       process CPU seconds during the run, -1 when unknown
 * @param cores            processors available to the JVM
 * @param eventLoopLag     timer lag on the client's event loops, null when not probed
 * @param virtualThreadLag timer lag on the virtual-thread scheduler, null when not probed
 * @param machineSpeed     how often the machine ran this process's CPUs slowly (hypervisor), null when not probed
 * @param thresholds       when to warn
 */
public record SelfCheckReport(double cpuAvgShare, double cpuMaxShare, double cpuSeconds, int cores,
                              LagProbe.LagHistogramView eventLoopLag, LagProbe.LagHistogramView virtualThreadLag,
                              MachineSpeedProbe.View machineSpeed, SelfCheck.Thresholds thresholds) {

    public static final String WARNING = "the client may be the bottleneck — lower concurrency or use a larger machine";
    /**
     * Share of the run with slowed CPUs above which the report names the machine: below it, a few slow samples are
     * noise (an interrupt storm, a hyperthread sibling); the VM of bench/README.md shows 3–12%.
     */
    public static final double MACHINE_SLOW_NOTE_SHARE = 0.01;

    /** Without a machine-speed probe. */
    public SelfCheckReport(double cpuAvgShare, double cpuMaxShare, double cpuSeconds, int cores,
                           LagProbe.LagHistogramView eventLoopLag, LagProbe.LagHistogramView virtualThreadLag,
                           SelfCheck.Thresholds thresholds) {
        this(cpuAvgShare, cpuMaxShare, cpuSeconds, cores, eventLoopLag, virtualThreadLag, null, thresholds);
    }

    /** Share of the run (0..1) in which the machine ran the CPUs at under a third of their speed; NaN if unknown. */
    public double machineSlowShare() {
        return machineSpeed == null ? Double.NaN : machineSpeed.slowShare();
    }

    /** True when the machine slowed the CPUs for a noticeable share of the run (not this process's doing). */
    public boolean machineSlowed() {
        return machineSlowShare() >= MACHINE_SLOW_NOTE_SHARE; // false for NaN
    }

    /** The worse of the two schedulers' lag p99 in ms; NaN when neither has a sample. */
    public double lagP99Millis() {
        return worst(p99(eventLoopLag), p99(virtualThreadLag));
    }

    public double lagMaxMillis() {
        return worst(eventLoopLag == null ? Double.NaN : eventLoopLag.maxMillis(),
                virtualThreadLag == null ? Double.NaN : virtualThreadLag.maxMillis());
    }

    public boolean cpuHigh() {
        return cpuAvgShare > thresholds.cpuShare(); // false for NaN
    }

    public boolean lagHigh() {
        return lagP99Millis() > thresholds.lagP99Millis(); // false for NaN
    }

    public boolean bottleneck() {
        return cpuHigh() || lagHigh();
    }

    /** "Warning: the client may be the bottleneck — ... (why)", or null when all is well. */
    public String warningLine() {
        if (!bottleneck()) return null;
        List<String> why = new ArrayList<>();
        if (cpuHigh()) {
            why.add(String.format(Locale.ROOT, "client CPU avg %.0f%% of %d cores > %.0f%%",
                    cpuAvgShare * 100, cores, thresholds.cpuShare() * 100));
        }
        if (lagHigh()) {
            why.add(String.format(Locale.ROOT, "timing lag p99 %.1f ms > %.1f ms",
                    lagP99Millis(), thresholds.lagP99Millis()));
        }
        String line = "Warning: " + WARNING + " (" + String.join("; ", why) + ")";
        return machineSlowed() ? line + "; " + machineNote() : line;
    }

    /**
     * "the machine ran the CPUs at ≤ 15% speed for 7.2% of the run (its host or hypervisor, not this process): part of
     * the lag and of the latency tail is the machine's", or null when it did not.
     */
    public String machineNote() {
        if (!machineSlowed()) return null;
        return String.format(Locale.ROOT, "the machine ran the CPUs at ≤ %.0f%% speed for %.1f%% of the run (its host or "
                        + "hypervisor, not this process): part of the lag and of the latency tail is the machine's",
                machineSpeed.slowestSpeed() * 100, machineSlowShare() * 100);
    }

    /** "23% / 61% of 2 cores (0.8 CPU-s)". */
    public String describeCpu() {
        if (Double.isNaN(cpuAvgShare)) return "unknown (the JVM does not report process CPU)";
        return String.format(Locale.ROOT, "%.0f%% / %.0f%% of %d cores (%.2f CPU-s)",
                cpuAvgShare * 100, cpuMaxShare * 100, cores, cpuSeconds);
    }

    /** "0.9 ms (event loop 0.9 ms, virtual threads 0.2 ms; max 3.1 ms)". */
    public String describeLag() {
        if (Double.isNaN(lagP99Millis())) return "unknown (no timer sample: the run was shorter than one period)";
        String lag = String.format(Locale.ROOT, "%.2f ms (event loop %s, virtual threads %s; max %.2f ms)",
                lagP99Millis(), ms(p99(eventLoopLag)), ms(p99(virtualThreadLag)), lagMaxMillis());
        return machineSlowed() ? lag + String.format(Locale.ROOT, "; machine CPUs slowed %.1f%% of the run",
                machineSlowShare() * 100) : lag;
    }

    /** New keys for {@code benchmark_summary.json} (evalscope has none of them; NaN becomes null there). */
    public Map<String, Object> summaryKeys() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Client CPU Avg (%)", round(cpuAvgShare * 100));
        m.put("Client CPU Max (%)", round(cpuMaxShare * 100));
        m.put("Client CPU (s)", cpuSeconds < 0 ? null : round(cpuSeconds));
        m.put("Client Cores", (long) cores);
        m.put("Timing Lag P99 (ms)", round(lagP99Millis()));
        m.put("Timing Lag Max (ms)", round(lagMaxMillis()));
        m.put("Event Loop Lag P99 (ms)", round(p99(eventLoopLag)));
        m.put("Virtual Thread Lag P99 (ms)", round(p99(virtualThreadLag)));
        m.put("Machine CPU Slowed (%)", round(machineSlowShare() * 100));
        m.put("Client Bottleneck Warning", bottleneck());
        return m;
    }

    private static double p99(LagProbe.LagHistogramView v) {
        return v == null || v.samples() == 0 ? Double.NaN : v.p99Millis();
    }

    private static double worst(double a, double b) {
        if (Double.isNaN(a)) return b;
        if (Double.isNaN(b)) return a;
        return Math.max(a, b);
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f ms", v);
    }

    private static Double round(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 100) / 100.0;
    }
}
