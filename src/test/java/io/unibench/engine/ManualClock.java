package io.unibench.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} that moves only when told: {@link #advance} moves it, and a wait jumps it to the deadline at once
 * (as if the waiting thread slept exactly that long). Nothing depends on the machine's speed.
 */
public final class ManualClock implements Clock {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    @Override
    public boolean awaitUntil(long deadlineNanos) {
        now.accumulateAndGet(deadlineNanos, Math::max);
        return true;
    }

    public void advance(long nanos) {
        now.addAndGet(nanos);
    }
}
