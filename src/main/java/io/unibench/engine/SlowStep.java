package io.unibench.engine;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A preparation step before a run's first request (loading the tokenizer, reading the dataset) that says on stderr
 * what it is doing once it has taken {@link #AFTER_MILLIS} ms, and how long it took when it ends; silent when quick.
 */
public final class SlowStep {
    static final long AFTER_MILLIS = 1000;

    private SlowStep() {}

    /** Runs {@code step}; {@code what} names it ({@code Loading tokenizer cl100k_base}); {@code err} null: silent. */
    public static <T> T run(PrintWriter err, String what, Supplier<T> step) {
        if (err == null) return step.get();
        long start = System.nanoTime();
        ReentrantLock lock = new ReentrantLock(); // not a monitor: a virtual thread writes under it (no pinning)
        boolean[] state = new boolean[2]; // [0]: done, [1]: said
        Thread watcher = Thread.ofVirtual().name("unibench-slow-step").start(() -> {
            try {
                Thread.sleep(AFTER_MILLIS);
            } catch (InterruptedException e) {
                return; // quick: nothing to say
            }
            lock.lock();
            try {
                if (state[0]) return;
                state[1] = true;
                err.println(what + " ...");
                err.flush();
            } finally {
                lock.unlock();
            }
        });
        try {
            return step.get();
        } finally {
            watcher.interrupt();
            lock.lock();
            try {
                state[0] = true;
                if (state[1]) {
                    err.println(String.format(Locale.ROOT, "%s: done in %.1f s", what, (System.nanoTime() - start) / 1e9));
                    err.flush();
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
