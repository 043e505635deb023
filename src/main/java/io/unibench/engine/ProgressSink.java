package io.unibench.engine;

import io.unibench.metrics.LiveStats;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunMetrics;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A run's progress in a log (stderr not a terminal): one line every {@code --log-every-n-query} requests, so CI logs
 * stay readable and show what evalscope's flag promises. On a terminal the front end draws a live bar from
 * the run's events instead (the session runner is told: {@link SessionRunner#progressLines}).
 */
final class ProgressSink implements RecordSink {
    private final PrintWriter err;
    private final RunMetrics metrics;
    private final String label;
    private final int total;
    private final int every;
    private final AtomicLong done = new AtomicLong();
    /** Serialises the output; a lock, not a monitor: printing blocks, and would pin a virtual thread. */
    private final ReentrantLock printing = new ReentrantLock();

    ProgressSink(PrintWriter err, RunMetrics metrics, String label, int total, int every) {
        this.err = err;
        this.metrics = metrics;
        this.label = label;
        this.total = total;
        this.every = Math.max(1, every);
    }

    @Override
    public void accept(RequestRecord record) {
        long n = done.incrementAndGet();
        if (n % every != 0) return;
        printing.lock();
        try {
            err.println("[" + label + "] " + n + "/" + total + "  " + line(metrics.live()));
        } finally {
            printing.unlock();
        }
    }

    private static String line(LiveStats s) {
        return String.format(Locale.ROOT, "ok %d fail %d  %.2f req/s  %.1f tok/s  avg latency %.3f s  avg TTFT %.1f ms",
                s.succeeded(), s.failed(), s.requestsPerSecond(), s.outputTokensPerSecond(),
                s.avgLatencySeconds(), s.avgTtftMs());
    }
}
