package io.unibench.sim;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;

import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The hand-off from the scheduler thread to one event loop: the sequences of that loop with news from the last
 * step. One task per loop per step delivers all of them (no task per token, no task per stream), and a sequence
 * is queued at most once however many steps it misses. {@link Inflight} lets the scheduler wait until the loops
 * have caught up, so the engine never runs ahead of what the sockets carry.
 */
final class Outbox implements Runnable {
    private final EventExecutor loop;
    private final Queue<Sequence> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Inflight inflight;

    Outbox(EventExecutor loop, Inflight inflight) {
        this.loop = loop;
        this.inflight = inflight;
    }

    /** Scheduler thread: makes sure {@code seq} is delivered after its latest published change. */
    void offer(Sequence seq) {
        if (!seq.inOutbox.compareAndSet(false, true)) return;
        inflight.add(1);
        queue.offer(seq);
        if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(this);
            } catch (RejectedExecutionException e) { // the server is closing: nobody will read these
                scheduled.set(false);
                drop();
            }
        }
    }

    @Override public void run() {
        scheduled.set(false);
        int n = 0;
        Sequence seq;
        try {
            while ((seq = queue.poll()) != null) {
                n++;
                seq.inOutbox.set(false);
                seq.delivery.deliver(seq);
            }
        } finally {
            inflight.add(-n);
        }
    }

    private void drop() {
        int n = 0;
        Sequence seq;
        while ((seq = queue.poll()) != null) {
            seq.inOutbox.set(false);
            n++;
        }
        inflight.add(-n);
    }

    /** Deliveries queued and not yet done, over all loops; wakes the waiting scheduler when it reaches zero. */
    static final class Inflight {
        private final java.util.concurrent.atomic.AtomicLong count = new java.util.concurrent.atomic.AtomicLong();
        private volatile Thread waiter;

        void add(long delta) {
            if (count.addAndGet(delta) == 0 && delta < 0) {
                Thread w = waiter;
                if (w != null) java.util.concurrent.locks.LockSupport.unpark(w);
            }
        }

        long get() { return count.get(); }

        /** Parks the calling thread until nothing is in flight or {@code deadlineNanos} passes. */
        void awaitZero(long deadlineNanos) {
            if (count.get() == 0) return;
            waiter = Thread.currentThread();
            try {
                while (count.get() != 0) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0 || Thread.currentThread().isInterrupted()) return;
                    java.util.concurrent.locks.LockSupport.parkNanos(this, Math.min(left, 1_000_000));
                }
            } finally {
                waiter = null;
            }
        }
    }
}
