package io.unibench.engine;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A preparation step before a run's first request (loading the tokenizer, reading the dataset) that says on stderr
 * what it is doing once it has taken {@link #AFTER_MILLIS} ms, and how long it took when it ends; silent when quick.
 * A step that turns slow says so, then runs its {@code whenSlow} (the front end registers the run in its history, so
 * the run is listed while it prepares: issue 31).
 */
public final class SlowStep {
    static final long AFTER_MILLIS = 1000;

    private SlowStep() {}

    /** Runs {@code step}; {@code what} names it ({@code Loading tokenizer cl100k_base}); {@code err} null: silent. */
    public static <T> T run(PrintWriter err, String what, Supplier<T> step) {
        return run(err, what, step, null);
    }

    /**
     * {@link #run(PrintWriter, String, Supplier)}; once the step has taken {@link #AFTER_MILLIS} ms, {@code whenSlow}
     * (null: nothing) runs on the watcher's thread after the line is said, and the step's end waits for it.
     */
    static <T> T run(PrintWriter err, String what, Supplier<T> step, Runnable whenSlow) {
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
                if (whenSlow != null) whenSlow.run();
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
