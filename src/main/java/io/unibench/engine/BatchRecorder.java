package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Makes the records of the open loop's finished requests and hands them to the sinks, on one thread, a batch at a
 * time. The event loop that completes a request only queues it (one lock-free insert); this thread wakes every
 * {@value #PERIOD_MILLIS} ms and records what finished meanwhile. At 1,000 req/s a virtual thread per request spent
 * more CPU in hand-offs (park, unpark, carrier wake-ups) than in its own record work (bench/HISTORY.md, fourth
 * session); here a request costs no thread switch, and the record work of a batch runs back to back.
 *
 * <p>A record reaches the sinks at most one period after its request ended; the moments in it are the request's
 * own. {@link #close()} records everything queued before it returns.
 */
final class BatchRecorder implements AutoCloseable {
    static final long PERIOD_MILLIS = 10;

    /** A request that ended: what its record is made from. */
    record Finished(long index, PreparedRequest request, ClientResult result, long scheduledNanos, long epochMillis) {}

    private final RecordFactory records;
    private final RequestHooks hooks;
    private final List<? extends RecordSink> sinks;
    private final Queue<Finished> queue = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean closing;
    /** The first exception a sink or hook threw (the records after it are still made); rethrown by close(). */
    private volatile RuntimeException failure;

    BatchRecorder(RecordFactory records, RequestHooks hooks, List<? extends RecordSink> sinks) {
        this.records = records;
        this.hooks = hooks;
        this.sinks = sinks;
        // a platform thread: its timed wait is one timer wake-up; a virtual thread's takes two (unparker, carrier)
        this.thread = Thread.ofPlatform().name("unibench-recorder").daemon().start(this::run);
    }

    /** Called on the thread that completed the request (an event loop): queues it, nothing more. */
    void add(Finished finished) {
        queue.add(finished);
    }

    /** A request ended without a result (a broken client contract): the run ends with this error at close(). */
    void fail(Throwable error) {
        keep(new IllegalStateException("a request ended without a result: " + error, error));
    }

    private void run() {
        while (true) {
            boolean last = closing;
            drain();
            if (last) return;
            LockSupport.parkNanos(this, PERIOD_MILLIS * 1_000_000);
        }
    }

    private void drain() {
        for (Finished f; (f = queue.poll()) != null; ) {
            RequestRecord record;
            try {
                record = records.record(f.index(), f.request(), hooks.check(f.result()), f.scheduledNanos(),
                        f.epochMillis());
            } catch (RuntimeException e) {
                keep(e);
                continue;
            }
            for (RecordSink sink : sinks) {
                try {
                    sink.accept(record);
                } catch (RuntimeException e) {
                    keep(e); // the other sinks still get the record
                }
            }
        }
    }

    /** A sink or hook threw (or a request ended without a result): the dispatcher stops starting requests. */
    boolean failed() {
        return failure != null;
    }

    private synchronized void keep(RuntimeException e) {
        if (failure == null) failure = e;
    }

    /** Records every request queued so far, then ends the thread; rethrows the first failure of a sink or hook. */
    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true; // the records must still be made: the run's data is not dropped
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (failure != null) throw failure;
    }
}
