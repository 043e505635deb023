package io.unibench.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.OutputFailedException;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.sla.SlaTuner;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code --enable-progress-tracker}: evalscope's {@code progress.json} in the results folder,
 * {@code {status, pipeline: "perf", total_count, processed_count, percent, updated_at}}, rewritten at most once a
 * second while records arrive and once at the end (status {@code running}, then {@code completed},
 * {@code interrupted} or {@code failed}; the end is written after the run's report, {@code performance_summary.txt}). Each write replaces the file whole, so a reader never sees half of one.
 * With {@code --sla-auto-tune} the number of probes is not known in advance (the search picks each from the results so
 * far), so no percentage is made up: {@code percent} is null, {@code total_count} counts the requests of the probes
 * started so far, and {@code sla_auto_tune} says which probe runs and what the probes have decided (the value that
 * holds, the one that fails, the bounds).
 * Thread-safe: records arrive from several (virtual) threads; one write at a time, under a {@link ReentrantLock}
 * rather than a monitor, because on Java 21 a virtual thread blocked in file I/O inside {@code synchronized} pins
 * its carrier thread.
 */
final class ProgressFile implements RecordSink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final Path file;
    private final boolean search;
    private volatile long total; // a search's grows with each probe it starts
    private volatile SlaTuner.Progress probe; // the search's latest probe, null before the first (or for a sweep)
    private volatile int probeRuns;
    private final AtomicLong processed = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private long lastWrite = Long.MIN_VALUE; // guarded by lock
    /**
     * The first write's failure (a file in the way, a full disk), thrown by the first record, as {@code requests.jsonl}
     * throws its own: the run then ends after the point's partial report, exit 5. Null once thrown or when none.
     */
    private final java.util.concurrent.atomic.AtomicReference<OutputFailedException> pending =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** @param total the sweep's requests; null for an SLA auto-tune (its probes are told by {@link #probe}) */
    ProgressFile(Path dir, Long total) {
        this.file = dir.resolve("progress.json");
        this.search = total == null;
        this.total = search ? 0 : total;
        try {
            write("running", System.nanoTime());
        } catch (OutputFailedException e) {
            pending.set(e); // nothing is measured yet: the first record ends the run with its report
        }
    }

    /** A search's probe run starts, of {@code requests} requests. */
    void probe(SlaTuner.Progress p, int requests) {
        lock.lock();
        try {
            probe = p;
            probeRuns++;
            total += requests;
            write("running", System.nanoTime());
        } catch (OutputFailedException e) {
            pending.compareAndSet(null, e); // a probe starts: its first record ends the run with the report
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void accept(RequestRecord record) {
        processed.incrementAndGet();
        OutputFailedException failed = pending.getAndSet(null); // thrown once: the run ends on it
        if (failed != null) throw failed;
        long now = System.nanoTime();
        // a thread already writing will count this record, or the next write (at the latest finish's) will
        if (!lock.tryLock()) return;
        try {
            if (now - lastWrite >= EVERY_NANOS) write("running", now);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The final state, written whatever the throttle: {@code completed}, {@code interrupted} (stopped: Ctrl-C, a
     * cancel, a budget), or {@code failed} (a bug, an output that could not be written, the report's included).
     */
    void finish(RunStatus status) {
        lock.lock();
        try {
            write(switch (status) {
                case FINISHED -> "completed";
                case STOPPED -> "interrupted";
                case FAILED -> "failed";
            }, System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    private ObjectNode searchState(String status) {
        ObjectNode s = JSON.createObjectNode();
        SlaTuner.Progress at = probe;
        s.put("probe_runs_started", probeRuns);
        if (at == null) return s;
        s.put("variable", at.variable());
        s.put("lower_bound", at.lower());
        s.put("upper_bound", at.upper());
        boolean running = status.equals("running");
        if (running) {
            s.put("values_done", at.valuesDone());
            s.put("current_value", at.value());
            s.put("current_run", at.run());
            if (at.group() != null) {
                if (at.held() != null) s.put("held", at.held());
                if (at.failed() != null) s.put("failed", at.failed());
            }
        }
        s.put("state", running ? at.describe() : "search " + status + " after " + probeRuns + " probe run(s)"
                + (status.equals("completed") ? "; the answer is in sla_summary.json" : ""));
        return s;
    }

    /** Called with {@code lock} held (or from the constructor, before any other thread has the object). */
    private void write(String status, long now) {
        lastWrite = now;
        long done = processed.get();
        ObjectNode p = JSON.createObjectNode();
        p.put("status", status);
        p.put("pipeline", "perf");
        p.put("total_count", total);
        p.put("processed_count", done);
        if (search) p.putNull("percent");
        else p.put("percent", total == 0 ? 100.0 : Math.round(1000.0 * done / total) / 10.0);
        p.put("updated_at", Instant.now().toString());
        if (search) p.set("sla_auto_tune", searchState(status));
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(p);
        } catch (IOException e) {
            throw new IllegalStateException("a tree of numbers and strings always serialises", e);
        }
        OutputFailedException.writeWhole(file, bytes); // whole, so a reader never sees half of it

    }
}
