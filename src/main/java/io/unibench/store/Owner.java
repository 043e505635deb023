package io.unibench.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The process writing a run: how the next start tells a run abandoned by a killed process (same host, process
 * gone or replaced by another with the same pid) from one still being written.
 *
 * @param startedAt the process's start, epoch ms (0 when the OS does not say)
 */
public record Owner(String host, long pid, long startedAt) {
    public static Owner current() {
        ProcessHandle self = ProcessHandle.current();
        return new Owner(hostName(), self.pid(), startMillis(self));
    }

    /** True when this owner is a process of this host that is no longer running. */
    boolean deadOn(String thisHost) {
        if (!host.equals(thisHost)) return false;
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .map(p -> startedAt != 0 && startMillis(p) != 0 && Math.abs(startMillis(p) - startedAt) > 2000)
                .orElse(true);
    }

    private static long startMillis(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    static String hostName() {
        try {
            Path proc = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(proc)) return Files.readString(proc).strip();
        } catch (Exception ignored) {
            // fall through
        }
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) return env;
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
