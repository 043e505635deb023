package io.unibench.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How a queued or running run is asked to stop: by a user ({@code POST /api/runs/{id}/cancel}) or by the service
 * stopping. The launcher registers what stopping means for its runner ({@link #onCancel}); the first cause wins.
 */
public final class Cancellation {
    /** Why a run was stopped; the stored status follows from it (cancelled, or interrupted). */
    public enum Cause { REQUEST, SHUTDOWN }

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Runnable> actions = new ArrayList<>();
    private Cause cause;

    /** Asks the run to stop; false when it was already asked. */
    boolean cancel(Cause why) {
        List<Runnable> run;
        lock.lock();
        try {
            if (cause != null) return false;
            cause = why;
            run = List.copyOf(actions);
        } finally {
            lock.unlock();
        }
        run.forEach(Runnable::run);
        return true;
    }

    /** Runs {@code action} on cancellation, or at once when the run was already cancelled. */
    public void onCancel(Runnable action) {
        lock.lock();
        try {
            if (cause == null) {
                actions.add(action);
                return;
            }
        } finally {
            lock.unlock();
        }
        action.run();
    }

    /** The cause, or null while nobody asked. */
    public Cause cause() {
        lock.lock();
        try {
            return cause;
        } finally {
            lock.unlock();
        }
    }
}
