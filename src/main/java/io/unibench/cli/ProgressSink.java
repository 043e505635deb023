package io.unibench.cli;

import io.unibench.metrics.LiveStats;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunMetrics;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Shows a run's progress on stderr: a bar redrawn in place when stderr is a terminal (at most ten times a
 * second), otherwise one line every {@code --log-every-n-query} requests, so CI logs stay readable.
 */
final class ProgressSink implements RecordSink {
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final RunMetrics metrics;
    private final String label;
    private final int total;
    private final boolean terminal;
    private final int every;
    private final AtomicLong done = new AtomicLong();
    /** Serialises the terminal output; a lock, not a monitor: printing blocks, and would pin a virtual thread. */
    private final ReentrantLock printing = new ReentrantLock();
    private long lastDraw;

    ProgressSink(PrintWriter err, RunMetrics metrics, String label, int total, boolean terminal, int every) {
        this.err = err;
        this.metrics = metrics;
        this.label = label;
        this.total = total;
        this.terminal = terminal;
        this.every = Math.max(1, every);
    }

    @Override
    public void accept(RequestRecord record) {
        long n = done.incrementAndGet();
        if (terminal) {
            long now = System.nanoTime();
            printing.lock();
            try {
                if (n < total && now - lastDraw < REDRAW_NANOS) return;
                lastDraw = now;
                err.print("\r" + bar(n) + "  " + line(metrics.live()));
                err.flush();
            } finally {
                printing.unlock();
            }
        } else if (n % every == 0) {
            printing.lock();
            try {
                err.println("[" + label + "] " + n + "/" + total + "  " + line(metrics.live()));
            } finally {
                printing.unlock();
            }
        }
    }

    @Override
    public void close() {
        if (terminal) {
            printing.lock();
            try {
                err.println();
            } finally {
                printing.unlock();
            }
        }
    }

    private String bar(long n) {
        int width = 30;
        int filled = total == 0 ? width : (int) Math.min(width, n * width / total);
        return "[" + label + "] " + "█".repeat(filled) + "░".repeat(width - filled) + " " + n + "/" + total;
    }

    private static String line(LiveStats s) {
        return String.format(Locale.ROOT, "ok %d fail %d  %.2f req/s  %.1f tok/s  avg latency %.3f s  avg TTFT %.1f ms",
                s.succeeded(), s.failed(), s.requestsPerSecond(), s.outputTokensPerSecond(),
                s.avgLatencySeconds(), s.avgTtftMs());
    }

    /** True when stderr is an interactive terminal (JDK 22+ tells exactly; JDK 21 by console presence). */
    static boolean stderrIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) return false;
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }
}
