package io.unibench.engine;

import java.util.concurrent.atomic.AtomicReference;

/** The first exception any thread of a run phase threw; the phase stops starting requests once there is one. */
final class FirstFailure {
    private final AtomicReference<Throwable> first = new AtomicReference<>();

    void keep(Throwable t) {
        if (!first.compareAndSet(null, t) && first.get() != t) first.get().addSuppressed(t);
    }

    boolean any() {
        return first.get() != null;
    }

    /** Throws {@link RunFailedException} when a thread failed; call once the phase's threads have all ended. */
    void rethrow() {
        Throwable t = first.get();
        if (t != null) throw new RunFailedException(t);
    }
}
