package io.unibench.engine;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * Requests {@code 0 .. total-1} prepared ahead of their moment by one background thread, in order, in a bounded
 * window streamed ahead of the dispatcher: at most {@code maxAhead} requests (and about {@code maxBytes} of bodies)
 * are waiting at any time, so memory stays flat whatever {@code --number}, and synthesizing a prompt (a random prompt
 * costs a few tokenizer rounds) happens neither on the event loops nor on the path from a request's turn to its send
 * as long as the thread keeps ahead. {@link #awaitReady} lets the caller wait for a small first batch before its clock
 * starts; the thread then stays ahead as requests are taken. It refills in batches: once the window is full it rests
 * until half of it has been taken (and half of its bytes), so a run costs the thread one wake-up per half window, not
 * one per request (a take that wakes it is a system call on the taker's carrier and a context switch on the thread).
 *
 * <p>A request that is not ready when its turn comes (the dispatcher caught up with preparation) is a <em>wait</em>:
 * the taker waits for the one in the making, or makes one the thread has not started itself (the thread skips it),
 * so a producer slower than the run slows the run down no more than making the requests in line would. Every wait
 * and its time are counted ({@link #waits}); in an open loop the request keeps its scheduled time, so the delay shows
 * as dispatch lag, never as server latency (a request's latency starts when it is sent).
 */
final class Prefetcher implements AutoCloseable {
    /**
     * The takes that found their request not ready.
     *
     * @param count how many
     * @param nanos their time from the take to having the request, summed
     */
    record Waits(long count, long nanos) {}

    private final LongFunction<PreparedRequest> make;
    private final long total;
    private final long maxBytes;
    private final PreparedRequest[] slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // guarded by lock
    /** The next sequence the thread will prepare; the one before it may still be in the making. */
    private long next;
    private boolean making;
    private long bytes;
    private int ready; // made and not taken
    private int ahead; // the most ready at once: the window, or less (setAhead)
    private int peakReady;
    /** Sequences whose turn came before the thread reached them: their callers prepared them. */
    private final Set<Long> taken = new HashSet<>();
    /** The thread rests: the window was full, and it refills only once {@link #refillable} (or a new bound). */
    private boolean blocked;
    private boolean closed;
    private RuntimeException failure;
    private long waits;
    private long waitNanos;

    Prefetcher(LongFunction<PreparedRequest> make, long total, int maxAhead, long maxBytes) {
        this.make = make;
        this.total = total;
        this.maxBytes = maxBytes;
        this.slots = new PreparedRequest[(int) Math.max(1, Math.min(total, maxAhead))];
        this.ahead = slots.length;
        Thread.ofPlatform().daemon().name("unibench-prefetch").start(this::produce);
    }

    /** The most requests that can wait prepared at once. */
    int window() {
        return slots.length;
    }

    /** From now on at most {@code requests} (within the window, at least 1) wait prepared at once. */
    void setAhead(int requests) {
        lock.lock();
        try {
            ahead = Math.max(1, Math.min(requests, slots.length));
            blocked = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The request of {@code sequence}: the prepared one, else (a wait, counted) the one in the making once made, else
     * made by the caller now. Beyond {@code total} or after {@link #close}, made by the caller and not counted.
     */
    PreparedRequest take(long sequence) {
        if (sequence >= total) return make.apply(sequence);
        int slot = (int) (sequence % slots.length);
        long waitStart = 0;
        lock.lock();
        try {
            while (true) {
                PreparedRequest r = slots[slot];
                if (r != null && r.sequence() == sequence) {
                    slots[slot] = null;
                    bytes -= r.body().length;
                    ready--;
                    if (blocked && refillable()) {
                        blocked = false; // half the window taken: the thread refills it (and says so when full)
                        changed.signalAll();
                    }
                    if (waitStart != 0) waitNanos += System.nanoTime() - waitStart;
                    return r;
                }
                if (closed) break;
                if (waitStart == 0) {
                    waitStart = System.nanoTime();
                    waits++;
                }
                if (sequence >= next) {
                    taken.add(sequence); // the thread will skip it: made below
                    break;
                }
                if (!(making && sequence == next - 1)) break; // should not happen: made below
                changed.awaitUninterruptibly(); // in the making right now
            }
        } finally {
            lock.unlock();
        }
        PreparedRequest made = make.apply(sequence);
        if (waitStart != 0) {
            long waited = System.nanoTime() - waitStart;
            lock.lock();
            try {
                waitNanos += waited;
            } finally {
                lock.unlock();
            }
        }
        return made;
    }

    /**
     * Waits until {@code count} requests are ready, the window is full, everything is made, or {@code timeoutNanos}
     * passed; returns how many are ready. Rethrows what preparing threw.
     */
    int awaitReady(int count, long timeoutNanos) {
        long left = timeoutNanos;
        lock.lock();
        try {
            while (!closed && failure == null && !blocked && ready < count && !(next >= total && !making)
                    && left > 0) {
                try {
                    left = changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (failure != null) throw failure;
            return ready;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the thread rests (the window full, or not yet half taken since it was) or everything is made;
     * rethrows what preparing threw.
     */
    void awaitFilled() {
        awaitReady(Integer.MAX_VALUE, TimeUnit.DAYS.toNanos(1));
    }

    /** The takes so far that found their request not ready. */
    Waits waits() {
        lock.lock();
        try {
            return new Waits(waits, waitNanos);
        } finally {
            lock.unlock();
        }
    }

    /** The most requests that were waiting prepared at once so far (never above {@link #window} or the ahead bound). */
    int peakReady() {
        lock.lock();
        try {
            return peakReady;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Half the window (and half its bytes) taken since it was full: time to refill it (guarded by lock). */
    private boolean refillable() {
        return ready <= ahead / 2 && bytes <= maxBytes / 2;
    }

    private void produce() {
        while (true) {
            long sequence;
            lock.lock();
            try {
                while (true) {
                    while (next < total && taken.remove(next)) next++;
                    if (closed || next >= total) {
                        changed.signalAll(); // awaitReady: all made
                        return;
                    }
                    boolean room = slots[(int) (next % slots.length)] == null && bytes < maxBytes && ready < ahead;
                    if (room && (!blocked || refillable())) break;
                    blocked = true; // as far ahead as allowed, or resting until half the window is taken
                    changed.signalAll();
                    changed.awaitUninterruptibly();
                }
                blocked = false;
                sequence = next++;
                making = true;
            } finally {
                lock.unlock();
            }
            PreparedRequest r;
            try {
                r = make.apply(sequence);
            } catch (RuntimeException e) {
                lock.lock();
                try {
                    failure = e;
                    making = false;
                    closed = true; // takers make their own (and meet the same exception)
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                return;
            }
            lock.lock();
            try {
                making = false;
                slots[(int) (sequence % slots.length)] = r;
                bytes += r.body().length;
                ready++;
                peakReady = Math.max(peakReady, ready);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
