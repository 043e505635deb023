package io.unibench.engine.selfcheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@link SelfCheck} saw during one run, and whether the client was the bottleneck.
 *
 * <p><b>Client-bound</b> ({@link #bottleneck()}) needs, over the steady window (the run minus its start-up), both
 * the CPU the process used or waited for ({@link #demandShare()}) above {@link SelfCheck.Thresholds#cpuShare()} of
 * the cores available to it <b>and</b> the timer lag p99 above {@link SelfCheck.Thresholds#lagP99Millis()}: a
 * client that is the limit wants the CPU and is late.
 * Lag alone is not enough: on a shared or virtual machine other processes and the hypervisor delay an idle client's
 * timers now and then (the lag rule alone warned in 19 of 31 runs at 2–4 % client CPU); CPU alone is not either (a
 * busy client whose timers are on time still stamps chunks on time). Other processes' CPU is a note of its own
 * ({@link #busyNote()}), as is a machine running the CPUs slowly ({@link #machineNote()}).
 *
 * @param cpuAvgShare      process CPU over the steady window as a share of its available cores, 0..1 (NaN unknown)
 * @param cpuMaxShare      highest share in one sampling period of the steady window, 0..1 (NaN when unknown)
 * @param cpuSeconds       process CPU seconds in the steady window, -1 when unknown
 * @param cores            processors available to the process
 * @param eventLoopLag     timer lag on the client's event loops over the steady window, null when not probed
 * @param virtualThreadLag timer lag on the virtual-thread scheduler over the steady window, null when not probed
 * @param machineSpeed     how often the machine ran this process's CPUs slowly (hypervisor), null when not probed
 * @param windowSeconds    the steady window's length; 0 when the run ended within its start-up (then the figures
 *                         are the whole run's and are not judged); NaN when the figures were given as the window
 * @param othersShare      other processes' CPU over the steady window as a share of the machine's CPUs, NaN unknown
 * @param machineCpus      the machine's CPUs, 0 when unknown
 * @param waitShare        the process's threads' run-queue wait over the steady window (runnable while other
 *                         processes had the CPU) as a share of its available cores' time, NaN when unknown
 * @param thresholds       when to say client-bound
 */
public record SelfCheckReport(double cpuAvgShare, double cpuMaxShare, double cpuSeconds, int cores,
                              LagProbe.LagHistogramView eventLoopLag, LagProbe.LagHistogramView virtualThreadLag,
                              MachineSpeedProbe.View machineSpeed, double windowSeconds, double othersShare,
                              int machineCpus, double waitShare, SelfCheck.Thresholds thresholds) {

    public static final String WARNING = "the client may be the bottleneck — lower concurrency or use a larger machine";
    /**
     * Share of the run with slowed CPUs above which the report names the machine: below it, a few slow samples are
     * noise (an interrupt storm, a hyperthread sibling); the VM of bench/HISTORY.md shows 3–12%.
     */
    public static final double MACHINE_SLOW_NOTE_SHARE = 0.01;
    /** Other processes' share of the machine's CPUs from which the report says the machine was busy. */
    public static final double BUSY_NOTE_SHARE = 0.25;

    /** Figures given as the steady window, without a machine-speed probe or other processes' CPU. */
    public SelfCheckReport(double cpuAvgShare, double cpuMaxShare, double cpuSeconds, int cores,
                           LagProbe.LagHistogramView eventLoopLag, LagProbe.LagHistogramView virtualThreadLag,
                           SelfCheck.Thresholds thresholds) {
        this(cpuAvgShare, cpuMaxShare, cpuSeconds, cores, eventLoopLag, virtualThreadLag, null, thresholds);
    }

    /** Figures given as the steady window, without other processes' CPU. */
    public SelfCheckReport(double cpuAvgShare, double cpuMaxShare, double cpuSeconds, int cores,
                           LagProbe.LagHistogramView eventLoopLag, LagProbe.LagHistogramView virtualThreadLag,
                           MachineSpeedProbe.View machineSpeed, SelfCheck.Thresholds thresholds) {
        this(cpuAvgShare, cpuMaxShare, cpuSeconds, cores, eventLoopLag, virtualThreadLag, machineSpeed, Double.NaN,
                Double.NaN, 0, Double.NaN, thresholds);
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

    /** False when the run ended within its start-up or its steady window is shorter than the thresholds'. */
    public boolean judged() {
        return !(windowSeconds < thresholds.minWindowSeconds()); // NaN: the figures are the window
    }

    /**
     * The CPU the client wanted over the steady window, as a share of its available cores: what it used plus what
     * its threads waited for on a run queue (a client starved by other processes on its cores uses little and waits
     * much: {@code taskset -c 0} beside a burner used 31 % of its core). The CPU used alone when the wait is unknown.
     */
    public double demandShare() {
        return Double.isNaN(waitShare) ? cpuAvgShare : cpuAvgShare + waitShare;
    }

    /** True when the CPU the client used or waited for is above {@link SelfCheck.Thresholds#cpuShare()}. */
    public boolean demandHigh() {
        return demandShare() > thresholds.cpuShare(); // false for NaN
    }

    /** Client-bound: over the steady window, CPU used or waited for high and timer lag high (class comment). */
    public boolean bottleneck() {
        return judged() && demandHigh() && lagHigh();
    }

    /** True when other processes used at least {@link #BUSY_NOTE_SHARE} of the machine's CPUs in the window. */
    public boolean machineBusy() {
        return othersShare >= BUSY_NOTE_SHARE; // false for NaN
    }

    /** "the machine was busy: other processes used 48% of its 2 CPUs (not this client)", or null when it was not. */
    public String busyNote() {
        if (!machineBusy()) return null;
        return String.format(Locale.ROOT, "the machine was busy: other processes used %.0f%% of its %d CPUs (not "
                + "this client)", othersShare * 100, machineCpus);
    }

    /** The machine's notes (busy, CPUs slowed), "; "-joined, whatever the verdict; null when there is none. */
    public String notes() {
        List<String> n = new ArrayList<>();
        if (machineBusy()) n.add(busyNote());
        if (machineSlowed()) n.add(machineNote());
        return n.isEmpty() ? null : String.join("; ", n);
    }

    /**
     * "Warning: the client may be the bottleneck — ... (client CPU avg 91% of 2 cores > 40%; timing lag p99 21.0 ms
     * > 5.0 ms; over the steady 12.3 s)" and the machine's notes, or null when the client was not the bottleneck.
     */
    public String warningLine() {
        if (!bottleneck()) return null;
        String line = "Warning: " + WARNING + " (" + boundBy() + ")";
        return notes() == null ? line : line + "; " + notes();
    }

    /**
     * The figures that made the client the bottleneck, for the verdict's {@code client-bound} reason: "client CPU avg
     * 91% of 2 cores > 40%; timing lag p99 21.0 ms > 5.0 ms; over the steady 12.3 s"; null when it was not.
     */
    public String boundBy() {
        if (!bottleneck()) return null;
        String cpu = cpuHigh() || Double.isNaN(waitShare)
                ? String.format(Locale.ROOT, "client CPU avg %.0f%% of %d cores > %.0f%%", cpuAvgShare * 100, cores,
                        thresholds.cpuShare() * 100)
                : String.format(Locale.ROOT, "client CPU avg %.0f%% + waiting for CPU %.0f%% of %d cores > %.0f%% "
                        + "(starved)", cpuAvgShare * 100, waitShare * 100, cores, thresholds.cpuShare() * 100);
        String why = String.format(Locale.ROOT, "%s; timing lag p99 %.1f ms > %.1f ms", cpu, lagP99Millis(),
                thresholds.lagP99Millis());
        if (!Double.isNaN(windowSeconds)) why += String.format(Locale.ROOT, "; over the steady %.1f s", windowSeconds);
        return why;
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

    /**
     * "23% / 61% of 2 cores (0.8 CPU-s, steady 4.1 s)", with "; other processes 48% of 2 CPUs" when known; a run that
     * ended within its start-up says "(whole run, too short to judge)".
     */
    public String describeCpu() {
        if (Double.isNaN(cpuAvgShare)) return "unknown (the JVM does not report process CPU)";
        String window = Double.isNaN(windowSeconds) ? ""
                : !judged() ? ", too short to judge"
                : String.format(Locale.ROOT, ", steady %.1f s", windowSeconds);
        String cpu = String.format(Locale.ROOT, "%.0f%% / %.0f%% of %d cores (%.2f CPU-s%s)",
                cpuAvgShare * 100, cpuMaxShare * 100, cores, cpuSeconds, window);
        return Double.isNaN(othersShare) ? cpu : cpu + String.format(Locale.ROOT, "; other processes %.0f%% of %d CPUs",
                othersShare * 100, machineCpus);
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
        m.put("Self-Check Window (s)", round(windowSeconds));
        m.put("Other Processes CPU (%)", round(othersShare * 100));
        m.put("Client CPU Wait (%)", round(waitShare * 100));
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
