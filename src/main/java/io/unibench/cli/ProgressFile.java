package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --enable-progress-tracker}: evalscope's {@code progress.json} in the results folder,
 * {@code {status, pipeline: "perf", total_count, processed_count, percent, updated_at}}, rewritten at most once a
 * second while records arrive and once at the end (status {@code running}, then {@code completed} or
 * {@code interrupted}). Each write replaces the file whole, so a reader never sees half of one.
 * Thread-safe: records arrive from several threads; one write at a time.
 */
final class ProgressFile implements RecordSink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final Path file;
    private final long total;
    private final AtomicLong processed = new AtomicLong();
    private long lastWrite = Long.MIN_VALUE;

    ProgressFile(Path dir, long total) {
        this.file = dir.resolve("progress.json");
        this.total = total;
        write("running", System.nanoTime());
    }

    @Override
    public void accept(RequestRecord record) {
        processed.incrementAndGet();
        long now = System.nanoTime();
        synchronized (this) {
            if (now - lastWrite >= EVERY_NANOS) write("running", now);
        }
    }

    /** The final state, written whatever the throttle. */
    synchronized void finish(boolean interrupted) {
        write(interrupted ? "interrupted" : "completed", System.nanoTime());
    }

    private synchronized void write(String status, long now) {
        lastWrite = now;
        long done = processed.get();
        ObjectNode p = JSON.createObjectNode();
        p.put("status", status);
        p.put("pipeline", "perf");
        p.put("total_count", total);
        p.put("processed_count", done);
        p.put("percent", total == 0 ? 100.0 : Math.round(1000.0 * done / total) / 10.0);
        p.put("updated_at", Instant.now().toString());
        Path tmp = file.resolveSibling("progress.json.tmp");
        try {
            Files.write(tmp, JSON.writeValueAsBytes(p));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw BadInputException.io("--enable-progress-tracker", file, e);
        }
    }
}
