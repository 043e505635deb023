package io.unibench.engine.selfcheck;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the self-check's CPU figures come from: this process's CPU time, the whole machine's busy CPU time (every
 * process), the clock. Injected so the client-bound rule is tested on exact figures (a fake in the tests), not on
 * whatever else the test machine runs.
 */
public interface Readings {
    /** CPU nanoseconds this process used since it started (all threads, user + system); -1 when unknown. */
    long processCpuNanos();

    /** Processors available to this process (its affinity: {@code taskset -c 0} gives 1). */
    int cores();

    /** CPU nanoseconds every process on the machine used since boot, and the machine's CPU count; null when unknown. */
    MachineCpu machineCpu();

    /** A monotonic clock in nanoseconds. */
    long nanoTime();

    /**
     * For each of this process's threads, the nanoseconds it has waited on a run queue (runnable, not running: the
     * CPU was busy with others) since it started; null when unknown. A starved client waits; an idle one does not.
     */
    Map<String, Long> threadWaitNanos();

    /**
     * @param busyNanos CPU time all processes used (user, nice, system, irq, softirq, steal excluded), since boot
     * @param cpus      the machine's CPUs (every one, whatever this process's affinity)
     */
    record MachineCpu(long busyNanos, int cpus) {}

    /** The JVM's process CPU, {@code /proc/stat} for the machine (Linux; elsewhere the machine is unknown). */
    Readings SYSTEM = new Readings() {
        @Override
        public long processCpuNanos() {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
            return -1;
        }

        @Override
        public int cores() {
            return Runtime.getRuntime().availableProcessors();
        }

        @Override
        public MachineCpu machineCpu() {
            try {
                return procStat(Files.readAllLines(Path.of("/proc/stat")));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Map<String, Long> threadWaitNanos() {
            Map<String, Long> waits = new HashMap<>();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path t : tasks) {
                    try {
                        String[] f = Files.readString(t.resolve("schedstat")).trim().split("\\s+");
                        waits.put(t.getFileName().toString(), Long.parseLong(f[1]));
                    } catch (IOException | RuntimeException gone) {
                        // the thread ended meanwhile: its wait is not counted
                    }
                }
            } catch (IOException | RuntimeException e) {
                return null;
            }
            return waits.isEmpty() ? null : waits;
        }
    };

    /**
     * The machine's busy CPU time from {@code /proc/stat}: the first line's user + nice + system + irq + softirq
     * jiffies (idle, iowait and a hypervisor's steal are not work done here; guest time is already in user), at the
     * kernel's USER_HZ of 100; the CPUs are its {@code cpuN} lines. Null when the text is not that format.
     */
    static MachineCpu procStat(List<String> lines) {
        if (lines.isEmpty() || !lines.get(0).startsWith("cpu ")) return null;
        String[] f = lines.get(0).trim().split("\\s+");
        if (f.length < 8) return null;
        long jiffies = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                + Long.parseLong(f[7]);
        int cpus = 0;
        for (String l : lines) if (l.startsWith("cpu") && l.length() > 3 && Character.isDigit(l.charAt(3))) cpus++;
        return cpus == 0 ? null : new MachineCpu(jiffies * 10_000_000L, cpus);
    }
}
