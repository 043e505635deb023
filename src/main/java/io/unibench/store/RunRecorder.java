package io.unibench.store;

import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records one benchmark run into a {@link RunStore}, called by {@code perf} at four points: {@link #start},
 * {@link #pointSink} (a {@link RecordSink} per sweep point), {@link #pointFinished} and {@link #close}.
 *
 * <p>Requests are queued by the sink (cheap, on the request completion path) and written by one background
 * thread in batches, one transaction each, at least every {@link #COMMIT_INTERVAL_MILLIS} (or sooner when
 * {@link #BATCH_SIZE} are waiting), so a {@code kill -9} loses at most the last interval. A store failure never
 * stops the benchmark: it is reported once on stderr, recording stops, and the file outputs remain.
 */
public final class RunRecorder implements AutoCloseable {
    /** Upper bound between commits of waiting requests (the issue asks for at least every second). */
    public static final long COMMIT_INTERVAL_MILLIS = 500;
    static final int BATCH_SIZE = 2000;
    /** While nothing arrives (pauses between sweep points), the run still shows it is alive. */
    private static final long HEARTBEAT_MILLIS = 5000;

    private final RunStore store;
    private final PrintWriter err;
    private final Owner owner = Owner.current();
    private String runId;
    private int points;
    private int finishedPoints;
    private boolean adopted; // the run's end is its owner's (adopt)
    private volatile boolean failed;
    /**
     * Guards the run's rows and counters. A lock, not {@code synchronized}: the holder does JDBC I/O, and a virtual
     * thread blocked inside a monitor pins its carrier thread before JDK 24 (JEP 491).
     */
    private final ReentrantLock state = new ReentrantLock();

    private RunRecorder(RunStore store, PrintWriter err) {
        this.store = store;
        this.err = err;
    }

    /** A recorder that stores nothing ({@code --no-db}). */
    public static RunRecorder disabled() {
        return new RunRecorder(null, null);
    }

    /**
     * Opens the store (creating and migrating it), marks runs abandoned by killed processes as interrupted, and
     * returns a recorder writing there.
     */
    public static RunRecorder open(StoreLocation location, PrintWriter err) throws SQLException {
        RunStore store = RunStore.open(location);
        List<String> recovered = store.recoverAbandoned(Owner.current(), System.currentTimeMillis());
        for (String id : recovered) {
            err.println("Run history: run " + id + " was left running by a process that is gone; marked interrupted "
                    + "(its stored requests still give `unibench runs report " + id + "`)");
        }
        return new RunRecorder(store, err);
    }

    public boolean enabled() {
        return store != null;
    }

    /** The stored run's id, or null (disabled, not started, or the store failed at the start). */
    public String runId() {
        return runId;
    }

    /** Creates the run row ({@code running}). */
    public String start(RunStart start) {
        state.lock();
        try {
            if (store == null || failed) return null;
            try {
                runId = store.createRun(start, owner, System.currentTimeMillis());
                err.println("Run history: run " + runId + " in " + store.location().display());
            } catch (SQLException | RuntimeException e) {
                fail(e);
            }
            return runId;
        } finally {
            state.unlock();
        }
    }

    /**
     * Records into a run the service already created and started ({@link RunStore#startQueued}) instead of creating
     * one: {@code unibench serve}'s queued runs keep the id they were given when queued, and their name, tags and
     * configuration; the row gets where the run really goes (an embedded simulator's port) and its environment. Its
     * end is the service's (the whole service run's, which may go on with other providers): {@link #finish} leaves
     * its status alone.
     */
    public RunRecorder adopt(String existingRunId, String url, Map<String, Object> environment) {
        state.lock();
        try {
            if (store == null || failed) return this;
            try {
                store.setTarget(existingRunId, url, environment);
                runId = existingRunId;
                adopted = true;
            } catch (SQLException | RuntimeException e) {
                fail(e);
            }
            return this;
        } finally {
            state.unlock();
        }
    }

    /**
     * Adds the next sweep point and returns the sink that stores its requests; close it after the point's last
     * record (it commits what is left and stops its writer).
     *
     * @param startNanos the point's start ({@link System#nanoTime()}), the origin of every stored moment
     */
    public RecordSink pointSink(RunInfo info, long startNanos) {
        state.lock();
        try {
            int index = points++;
            if (store == null || failed || runId == null) return record -> { };
            try {
                store.addPoint(runId, index, info, System.currentTimeMillis());
            } catch (SQLException | RuntimeException e) {
                fail(e);
                return record -> { };
            }
            return new BatchingSink(index, startNanos);
        } finally {
            state.unlock();
        }
    }

    /** Stores the point's computed summaries. */
    public void pointFinished(RunResult result, Map<String, Object> extraSummaryKeys) {
        state.lock();
        try {
            int index = finishedPoints++;
            if (store == null || failed || runId == null) return;
            try {
                store.savePointResult(runId, index, result, extraSummaryKeys);
            } catch (SQLException | RuntimeException e) {
                fail(e);
            }
        } finally {
            state.unlock();
        }
    }

    /** Stores the server metrics of the point {@link #pointSink} added last (before or after its summaries). */
    public void pointServerMetrics(String json) {
        state.lock();
        try {
            if (store == null || failed || runId == null || points == 0) return;
            try {
                store.savePointServerMetrics(runId, points - 1, json);
            } catch (SQLException | RuntimeException e) {
                fail(e);
            }
        } finally {
            state.unlock();
        }
    }

    /**
     * Ends the run: {@code interrupted} when stopped, else {@code finished} when every started point finished,
     * else {@code failed} (an adopted run's status is left to its owner); and closes the store.
     */
    public void finish(boolean interrupted) {
        end(interrupted ? RunRow.INTERRUPTED : null);
    }

    /**
     * Ends the run as {@code failed}: a failure ended it (a bug, an output that could not be written, the run's
     * report included), whatever its points did; and closes the store.
     */
    public void finishFailed() {
        end(RunRow.FAILED);
    }

    /** {@code status}: the run's end, or null to judge it by its points. */
    private void end(String status) {
        state.lock();
        try {
            if (store == null) return;
            try {
                if (runId != null && !failed && !adopted) {
                    if (status == null) status = finishedPoints == points && points > 0 ? RunRow.FINISHED : RunRow.FAILED;
                    store.finishRun(runId, status, System.currentTimeMillis());
                }
            } catch (SQLException | RuntimeException e) {
                fail(e);
            } finally {
                try {
                    store.close();
                } catch (SQLException ignored) {
                    // nothing left to lose: every batch was committed or reported
                }
            }
        } finally {
            state.unlock();
        }
    }

    @Override
    public void close() {
        finish(false);
    }

    private void fail(Exception e) {
        if (failed) return;
        failed = true;
        err.println("Warning: run history: " + StoreLocation.mask(String.valueOf(e.getMessage()))
                + "; this run is not stored (the files are written as usual)");
    }

    /** Queues records; one writer thread per point commits them in batches. */
    private final class BatchingSink implements RecordSink {
        private final int point;
        private final long base;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition ready = lock.newCondition();
        private List<RequestRecord> pending = new ArrayList<>();
        private boolean closed;
        private final Thread writer;

        BatchingSink(int point, long base) {
            this.point = point;
            this.base = base;
            this.writer = Thread.ofPlatform().daemon().name("unibench-store-writer").start(this::writeLoop);
        }

        @Override
        public void accept(RequestRecord record) {
            lock.lock();
            try {
                if (closed) return;
                pending.add(record);
                if (pending.size() >= BATCH_SIZE) ready.signal();
            } finally {
                lock.unlock();
            }
        }

        private void writeLoop() {
            long lastHeartbeat = System.currentTimeMillis();
            while (true) {
                List<RequestRecord> batch;
                boolean last;
                lock.lock();
                try {
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMMIT_INTERVAL_MILLIS);
                    while (!closed && pending.size() < BATCH_SIZE) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) break;
                        ready.awaitNanos(left);
                    }
                    batch = pending;
                    pending = new ArrayList<>();
                    last = closed;
                } catch (InterruptedException e) {
                    return;
                } finally {
                    lock.unlock();
                }
                long now = System.currentTimeMillis();
                if (!failed) {
                    try {
                        if (!batch.isEmpty()) {
                            store.insertRequests(runId, point, base, batch, now);
                            lastHeartbeat = now;
                        } else if (now - lastHeartbeat >= HEARTBEAT_MILLIS) {
                            store.heartbeat(runId, now);
                            lastHeartbeat = now;
                        }
                    } catch (SQLException | RuntimeException e) {
                        failLocked(e);
                    }
                }
                if (last) return;
            }
        }

        private void failLocked(Exception e) {
            state.lock();
            try {
                fail(e);
            } finally {
                state.unlock();
            }
        }

        @Override
        public void close() {
            lock.lock();
            try {
                closed = true;
                ready.signal();
            } finally {
                lock.unlock();
            }
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
