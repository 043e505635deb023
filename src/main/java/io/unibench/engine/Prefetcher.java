package io.unibench.engine;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * Requests {@code 0 .. total-1} prepared ahead of their moment by one background thread, in order, so synthesizing
 * a prompt (a random prompt costs a few encode/decode rounds of the tokenizer) happens neither on the path from a
 * request's turn to its send nor, for a run that fits the bounds, inside the measured interval: {@link #awaitFilled}
 * lets the caller wait for the first {@code maxAhead} requests (or {@code maxBytes} of bodies) before its clock
 * starts, as vLLM's bench client samples every request first. Memory stays bounded whatever {@code --number}: the
 * thread stops when that much is waiting and goes on as requests are taken.
 *
 * <p>A request the thread has not started when its turn comes is prepared by the caller itself ({@link #take}
 * returns null) and skipped by the thread, so a producer slower than the run never slows the run down.
 */
final class Prefetcher implements AutoCloseable {
    private final LongFunction<PreparedRequest> make;
    private final long total;
    private final long maxBytes;
    private final PreparedRequest[] slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    // guarded by lock
    /** The next sequence the thread will prepare; the one before it may still be in the making. */
    private long next;
    private boolean making;
    private long bytes;
    /** Sequences whose turn came before the thread reached them: their callers prepared them. */
    private final Set<Long> taken = new HashSet<>();
    private boolean blocked;
    private boolean closed;
    private RuntimeException failure;

    Prefetcher(LongFunction<PreparedRequest> make, long total, int maxAhead, long maxBytes) {
        this.make = make;
        this.total = total;
        this.maxBytes = maxBytes;
        this.slots = new PreparedRequest[(int) Math.max(1, Math.min(total, maxAhead))];
        this.thread = Thread.ofPlatform().daemon().name("unibench-prefetch").start(this::produce);
    }

    /**
     * The prepared request of {@code sequence}, waiting while the thread is making it; null when the caller must
     * prepare it (the thread had not reached it, or the sequence is beyond {@code total}).
     */
    PreparedRequest take(long sequence) {
        if (sequence >= total) return null;
        int slot = (int) (sequence % slots.length);
        lock.lock();
        try {
            while (true) {
                PreparedRequest r = slots[slot];
                if (r != null && r.sequence() == sequence) {
                    slots[slot] = null;
                    bytes -= r.body().length;
                    changed.signalAll();
                    return r;
                }
                if (sequence >= next && !closed) taken.add(sequence); // the thread will skip it
                if (!(making && sequence == next - 1)) return null;
                changed.awaitUninterruptibly(); // in the making right now
            }
        } finally {
            lock.unlock();
        }
    }

    /** Returns once everything is prepared or the bounds are reached; rethrows what preparing threw. */
    void awaitFilled() {
        lock.lock();
        try {
            while (!closed && failure == null && !blocked && !(next >= total && !making)) {
                changed.awaitUninterruptibly();
            }
            if (failure != null) throw failure;
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

    private void produce() {
        while (true) {
            long sequence;
            lock.lock();
            try {
                while (true) {
                    while (next < total && taken.remove(next)) next++;
                    if (closed || next >= total) {
                        changed.signalAll(); // awaitFilled: all made
                        return;
                    }
                    if (slots[(int) (next % slots.length)] == null && bytes < maxBytes) break;
                    blocked = true; // as far ahead as allowed
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
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
