package io.unibench.engine;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Raised once when the user interrupts the run (Ctrl-C) or the run must end early. Waiting code waits on
 * it instead of sleeping, so a stop is seen at once.
 */
public final class StopSignal {
    private final CountDownLatch stopped = new CountDownLatch(1);

    public void stop() {
        stopped.countDown();
    }

    public boolean isStopped() {
        return stopped.getCount() == 0;
    }

    /** Waits until {@code deadlineNanos} (a {@link System#nanoTime()} reading) or a stop; true if stopped. */
    public boolean awaitUntil(long deadlineNanos) throws InterruptedException {
        long wait = deadlineNanos - System.nanoTime();
        if (wait <= 0) return isStopped();
        return stopped.await(wait, TimeUnit.NANOSECONDS);
    }
}
