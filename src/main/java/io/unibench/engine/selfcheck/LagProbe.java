package io.unibench.engine.selfcheck;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Measures how late a periodic timer fires on a scheduler the benchmark depends on. A timer that fires late
 * means the events behind it (a chunk's arrival stamp on the event loop, a paced send on a virtual thread) are
 * handled late too: the client is measuring its own queueing. One timer at a time per scheduler, re-armed after
 * each firing (so a stall gives one long sample, not a burst of catch-up ones); each costs well under a
 * microsecond per period.
 */
public interface LagProbe {

    /** Stops the timer and returns the delays it saw. Idempotent. */
    LagHistogramView stop();

    /** The delays seen so far, while the timer goes on (for the live view, about once a second). */
    LagHistogramView now();

    /** From now on the delays also go to the steady window's histogram (the run's start-up is over). */
    void markSteady();

    /** The delays seen since {@link #markSteady()}; no sample when it was not called. */
    LagHistogramView steady();

    /** A timer on every event loop of {@code loops} (the client's Netty I/O threads). */
    static LagProbe onEventLoops(EventExecutorGroup loops, Duration period) {
        return new EventLoopProbe(loops, period.toNanos());
    }

    /** A virtual thread that sleeps {@code period} at a time: the delay is the virtual-thread scheduler's. */
    static LagProbe onVirtualThreads(Duration period) {
        return new VirtualThreadProbe(period.toNanos());
    }

    /** Read-only figures of a probe's delays. */
    record LagHistogramView(long samples, double p50Millis, double p99Millis, double maxMillis) {
        static LagHistogramView of(LagHistogram h) {
            return new LagHistogramView(h.count(), h.quantileMillis(0.50), h.quantileMillis(0.99), h.maxMillis());
        }
    }

    final class EventLoopProbe implements LagProbe {
        private final long periodNanos;
        private final List<Timer> timers = new ArrayList<>();

        EventLoopProbe(EventExecutorGroup loops, long periodNanos) {
            this.periodNanos = periodNanos;
            for (EventExecutor loop : loops) {
                Timer t = new Timer(loop);
                timers.add(t);
                t.arm();
            }
        }

        @Override
        public LagHistogramView stop() {
            LagHistogram all = new LagHistogram();
            for (Timer t : timers) all.add(t.stop());
            return LagHistogramView.of(all);
        }

        @Override
        public LagHistogramView now() {
            LagHistogram all = new LagHistogram();
            for (Timer t : timers) all.add(t.sofar());
            return LagHistogramView.of(all);
        }

        @Override
        public void markSteady() {
            for (Timer t : timers) t.steady = true;
        }

        @Override
        public LagHistogramView steady() {
            LagHistogram all = new LagHistogram();
            for (Timer t : timers) {
                synchronized (t.lags) {
                    all.add(t.steadyLags);
                }
            }
            return LagHistogramView.of(all);
        }

        private final class Timer implements Runnable {
            private final EventExecutor loop;
            private final LagHistogram lags = new LagHistogram();
            private final LagHistogram steadyLags = new LagHistogram();
            private volatile boolean steady;
            private volatile boolean stopped;
            private volatile ScheduledFuture<?> pending;
            private long dueNanos;

            Timer(EventExecutor loop) {
                this.loop = loop;
            }

            void arm() {
                if (stopped || loop.isShuttingDown()) return;
                dueNanos = System.nanoTime() + periodNanos;
                try {
                    pending = loop.schedule(this, periodNanos, TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    stopped = true;
                }
            }

            @Override
            public void run() {
                long late = System.nanoTime() - dueNanos;
                synchronized (lags) {
                    lags.recordNanos(late);
                    if (steady) steadyLags.recordNanos(late);
                }
                arm();
            }

            LagHistogram stop() {
                stopped = true;
                ScheduledFuture<?> p = pending;
                if (p != null) p.cancel(false);
                return sofar();
            }

            LagHistogram sofar() {
                synchronized (lags) {
                    return lags.copy();
                }
            }
        }
    }

    final class VirtualThreadProbe implements LagProbe {
        private final long periodNanos;
        private final LagHistogram lags = new LagHistogram();
        private final LagHistogram steadyLags = new LagHistogram();
        private final Thread thread;
        private volatile boolean steady;
        private volatile boolean stopped;

        VirtualThreadProbe(long periodNanos) {
            this.periodNanos = periodNanos;
            this.thread = Thread.ofVirtual().name("unibench-lag-probe").start(this::loop);
        }

        private void loop() {
            while (!stopped) { // bounded by stop(), which also interrupts the sleep
                long due = System.nanoTime() + periodNanos;
                try {
                    Thread.sleep(Duration.ofNanos(periodNanos));
                } catch (InterruptedException e) {
                    return;
                }
                long late = System.nanoTime() - due;
                synchronized (lags) {
                    lags.recordNanos(late);
                    if (steady) steadyLags.recordNanos(late);
                }
            }
        }

        @Override
        public void markSteady() {
            steady = true;
        }

        @Override
        public LagHistogramView steady() {
            synchronized (lags) {
                return LagHistogramView.of(steadyLags.copy());
            }
        }

        @Override
        public LagHistogramView stop() {
            stopped = true;
            thread.interrupt();
            try {
                thread.join(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return now();
        }

        @Override
        public LagHistogramView now() {
            synchronized (lags) {
                return LagHistogramView.of(lags.copy());
            }
        }
    }
}
