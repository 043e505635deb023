package io.unibench.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.spec.RunSpec;
import io.unibench.scenario.BenchConfig;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The service's runs: first in, first out, at most {@code maxConcurrent} at a time (two benchmarks sharing one
 * client machine falsify each other). Each run executes on a virtual thread of its own through the
 * {@link RunLauncher}; its stored row goes queued → running → finished | failed | cancelled | interrupted, and its
 * live events fan out through its {@link EventHub}, which exists from the moment it is queued (a page opened on a
 * queued run waits on it).
 *
 * <p>One lock guards the queue; no store or launcher call happens under it.
 */
final class RunQueue implements AutoCloseable {
    /** How long {@link #close()} lets running runs write their reports after asking them to stop. */
    static final Duration STOP_WAIT = Duration.ofSeconds(30);

    /**
     * A run the service holds: waiting or running.
     *
     * @param started called once the run has left the queue and started (a schedule's round is then running)
     * @param ended   counted down once the run's end is stored, or when it leaves a stopping service's queue
     */
    record Entry(String runId, BenchConfig config, RunSpec spec, JsonNode document, EventHub events,
                 Cancellation cancel, Runnable started, CountDownLatch ended) {}

    /** Where a run stands in the queue: its place (1 = next) and why it waits. */
    record Waiting(int position, String reason) {}

    private final RunStore store;
    private final StoreLocation location;
    private final RunLauncher launcher;
    private final int maxConcurrent;
    private final PrintWriter log;
    private final Owner owner = Owner.current();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
    private final Map<String, Entry> running = new LinkedHashMap<>();
    /** Every run this service started: one of them stored active but held no more lost its executor. */
    private final java.util.Set<String> started = new java.util.HashSet<>();
    private boolean closed;

    RunQueue(RunStore store, StoreLocation location, RunLauncher launcher, int maxConcurrent, PrintWriter log) {
        if (maxConcurrent < 1) throw new BadInputException("--max-concurrent-runs " + maxConcurrent + ": at least 1");
        this.store = store;
        this.location = location;
        this.launcher = launcher;
        this.maxConcurrent = maxConcurrent;
        this.log = log;
    }

    /** Queues a stored {@code queued} run; it starts as soon as a slot is free. */
    void submit(String runId, BenchConfig config, JsonNode document) {
        submit(runId, config, document, () -> { });
    }

    /** Queues a stored {@code queued} run of a run spec; it starts as soon as a slot is free. */
    void submit(String runId, RunSpec spec, JsonNode document) {
        submit(new Entry(runId, null, spec, document, new EventHub(), new Cancellation(), () -> { },
                new CountDownLatch(1)));
    }

    /** Queues a stored {@code queued} run, calling {@code started} when it starts; returns its entry. */
    Entry submit(String runId, BenchConfig config, JsonNode document, Runnable started) {
        return submit(new Entry(runId, config, null, document, new EventHub(), new Cancellation(), started,
                new CountDownLatch(1)));
    }

    private Entry submit(Entry e) {
        lock.lock();
        try {
            if (closed) throw new ApiError(503, "the service is stopping; no run is queued");
            waiting.addLast(e);
        } finally {
            lock.unlock();
        }
        dispatch();
        return e;
    }

    /** The run's entry while it is queued or running, else null. */
    Entry active(String runId) {
        lock.lock();
        try {
            Entry r = running.get(runId);
            if (r != null) return r;
            for (Entry e : waiting) if (e.runId().equals(runId)) return e;
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Why a queued run waits, or null when it is not waiting. */
    Waiting waiting(String runId) {
        lock.lock();
        try {
            int position = 0;
            for (Entry e : waiting) {
                position++;
                if (!e.runId().equals(runId)) continue;
                String ahead = position == 1 ? "" : "; " + (position - 1) + " queued ahead of it";
                return new Waiting(position, "waiting for a free slot: " + running.size() + " of " + maxConcurrent
                        + " run" + (maxConcurrent == 1 ? "" : "s") + " at a time running (--max-concurrent-runs "
                        + maxConcurrent + "): " + String.join(", ", running.keySet()) + ahead);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Cancels a queued run (it never starts: stored {@code cancelled}) or a running one (its runner stops; the
     * report of what ran is kept). False when the service holds no such run (finished, or unknown).
     */
    boolean cancel(String runId) throws SQLException {
        Entry queued = null;
        Entry started;
        lock.lock();
        try {
            started = running.get(runId);
            if (started == null) {
                for (Entry e : waiting) if (e.runId().equals(runId)) queued = e;
                if (queued != null) waiting.remove(queued);
            }
        } finally {
            lock.unlock();
        }
        if (started != null) {
            started.cancel().cancel(Cancellation.Cause.REQUEST);
            return true;
        }
        if (queued == null) return orphaned(runId);
        queued.cancel().cancel(Cancellation.Cause.REQUEST);
        store.endActive(runId, RunRow.CANCELLED, "cancelled before it started", System.currentTimeMillis());
        queued.events().publish(new RunFinished(RunStatus.STOPPED, "cancelled before it started"));
        queued.events().close();
        queued.ended().countDown();
        return true;
    }

    /**
     * A run this service started whose executor is gone while the store still says it is active (its end could
     * not be stored): ended {@code cancelled} now, so it can be deleted. False for any other run.
     */
    private boolean orphaned(String runId) throws SQLException {
        lock.lock();
        try {
            if (!this.started.contains(runId) || running.containsKey(runId)) return false;
        } finally {
            lock.unlock();
        }
        return store.endActive(runId, RunRow.CANCELLED, "cancelled by request; its executor had ended without "
                + "storing the run's end", System.currentTimeMillis());
    }

    private void dispatch() {
        List<Entry> start = new ArrayList<>();
        lock.lock();
        try {
            while (!closed && running.size() < maxConcurrent && !waiting.isEmpty()) {
                Entry e = waiting.pollFirst();
                running.put(e.runId(), e);
                started.add(e.runId());
                start.add(e);
            }
        } finally {
            lock.unlock();
        }
        for (Entry e : start) Thread.ofVirtual().name("unibench-run-" + e.runId()).start(() -> execute(e));
    }

    private void execute(Entry e) {
        try {
            RunFinished ran = launch(e);
            Cancellation.Cause cause = e.cancel().cause();
            // a stop makes the probe or a level fail too: who stopped the run decides what it was
            RunFinished end = cause == Cancellation.Cause.REQUEST ? new RunFinished(RunStatus.STOPPED, "cancelled by request")
                    : cause == Cancellation.Cause.SHUTDOWN ? new RunFinished(RunStatus.STOPPED, "the service stopped")
                    : ran;
            String status = switch (end.status()) {
                case FINISHED -> RunRow.FINISHED;
                case FAILED -> RunRow.FAILED;
                case STOPPED -> cause == Cancellation.Cause.REQUEST ? RunRow.CANCELLED : RunRow.INTERRUPTED;
            };
            String reason = end.reason();
            long now = System.currentTimeMillis();
            // the queued run's end is the queue's (its recorder leaves it); a run cancelled meanwhile has ended
            if (!store.endActive(e.runId(), status, reason, now)) store.setStatus(e.runId(), status, reason);
            if (cause != null) endLinked(e.runId(), status, reason);
            e.events().publish(end);
        } catch (Throwable ex) { // even an Error: the run's slot and watchers are released below
            log.println("unibench serve: run " + e.runId() + ": cannot store its end: "
                    + StoreLocation.mask(String.valueOf(ex)));
        } finally {
            e.events().close();
            lock.lock();
            try {
                running.remove(e.runId());
                idle.signalAll();
            } finally {
                lock.unlock();
            }
            e.ended().countDown();
            dispatch();
        }
    }

    /**
     * The other providers' runs of a stopped service run end as it did: their recorders stored them
     * {@code interrupted}; a cancel makes them {@code cancelled}, with the run's reason.
     */
    private void endLinked(String runId, String status, String reason) throws SQLException {
        for (RunRow linked : store.linkedRuns(runId)) {
            if (linked.status().equals(RunRow.INTERRUPTED)) store.setStatus(linked.runId(), status, reason);
        }
    }

    /** Starts the stored run and hands it to the launcher; a failure of its own becomes the run's end. */
    private RunFinished launch(Entry e) throws SQLException {
        RunStart start;
        if (e.spec() != null) {
            var t = e.spec().targets().getFirst();
            start = new RunStart(e.spec().name(), List.of(), t.model(), t.historyUrl(),
                    e.document(), Map.of());
        } else {
            BenchConfig.Provider p = e.config().providers().getFirst();
            start = new RunStart(e.config().name(), List.of(), p.model(), p.historyUrl(), e.document(), Map.of());
        }
        if (!store.startQueued(e.runId(), start, owner, System.currentTimeMillis())) {
            return new RunFinished(RunStatus.STOPPED, "cancelled before it started");
        }
        try {
            e.started().run();
            return launcher.run(new RunLauncher.Launch(e.runId(), e.config(), e.spec(), location, e.events(),
                    e.cancel()));
        } catch (BadInputException ex) {
            return failed(ex.getMessage());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        } catch (Exception ex) {
            log.println("unibench serve: run " + e.runId() + ": " + StoreLocation.mask(String.valueOf(ex)));
            return failed("internal error (logged by the service): " + ex.getClass().getSimpleName());
        } catch (Throwable ex) { // OutOfMemoryError, StackOverflowError …: the run ends failed, saying so, at once
            log.println("unibench serve: run " + e.runId() + ": its executor died: " + StoreLocation.mask(String.valueOf(ex)));
            return failed("the run's executor died: " + ex.getClass().getSimpleName()
                    + (ex.getMessage() == null ? "" : ": " + ex.getMessage().lines().findFirst().orElse(""))
                    + (ex instanceof OutOfMemoryError ? " (the service's heap is too small for this run: lower its "
                    + "concurrency or requests, or give the service more memory)" : ""));
        }
    }

    private static RunFinished failed(String reason) {
        return new RunFinished(RunStatus.FAILED, StoreLocation.mask(reason));
    }

    /**
     * Stops taking runs, asks running ones to stop (they end {@code interrupted}, their reports written) and waits
     * for them up to {@link #STOP_WAIT}. Queued runs stay queued in the store: the next start of the service runs
     * them ({@link RunStore#adoptQueued}).
     */
    @Override
    public void close() {
        List<Entry> stop;
        lock.lock();
        try {
            closed = true;
            stop = List.copyOf(running.values());
            waiting.forEach(e -> {
                e.events().close();
                e.ended().countDown(); // it stays queued in the store; whoever waits on it stops waiting
            });
            waiting.clear();
        } finally {
            lock.unlock();
        }
        stop.forEach(e -> e.cancel().cancel(Cancellation.Cause.SHUTDOWN));
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        lock.lock();
        try {
            long left;
            while (!running.isEmpty() && (left = deadline - System.nanoTime()) > 0) idle.awaitNanos(left);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }
}
