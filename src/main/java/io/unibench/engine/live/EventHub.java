package io.unibench.engine.live;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fans a run's events out to its subscribers. {@link #publish} never waits for a subscriber: each has its own
 * bounded queue and delivery thread (a virtual thread), so a slow one (a terminal, a web client on a bad network)
 * never stalls the runner, the event loops or the recorder. A full queue drops {@link Snapshot}s (the oldest queued
 * one gives way to the newest) and never the other events, which are few (two per point and one per run).
 *
 * <p>A late subscriber first gets the current state: the last {@link PointStarted}, the latest {@link Snapshot} of
 * that point, its {@link PointFinished} if it has finished, the {@link PhaseStarted} since then (a step before the
 * first point or a new target's) and the {@link RunFinished} if the run has; then
 * everything new. {@link #close()} lets every subscriber receive what is queued, then ends the subscriptions.
 *
 * <p>Locks, not monitors: a virtual thread must not pin its carrier on Java 21 while it waits for a queue.
 */
public final class EventHub implements AutoCloseable {
    /** Queued events per subscriber before Snapshots are dropped: a minute of snapshots. */
    public static final int DEFAULT_CAPACITY = 64;
    /** How long {@link #close()} waits for a subscriber to take its queued events before it interrupts it. */
    public static final Duration DEFAULT_CLOSE_WAIT = Duration.ofSeconds(10);

    private final int capacity;
    private final Duration closeWait;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Subscription> subscriptions = new ArrayList<>();
    private PhaseStarted lastPhase; // a step since the last point started (the current one when no point runs)
    private PointStarted lastStarted;
    private Snapshot lastSnapshot;
    private PointFinished lastFinished;
    private RunFinished runFinished;
    private boolean closed;

    public EventHub() {
        this(DEFAULT_CAPACITY, DEFAULT_CLOSE_WAIT);
    }

    public EventHub(int capacity, Duration closeWait) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be ≥ 1: " + capacity);
        this.capacity = capacity;
        this.closeWait = closeWait;
    }

    /** Starts delivering to {@code listener}: the current state first, then every new event. Close to unsubscribe. */
    public AutoCloseable subscribe(RunListener listener) {
        Subscription s = new Subscription(listener);
        lock.lock();
        try {
            for (RunEvent e : currentState()) s.offer(e);
            if (closed) s.end();
            else subscriptions.add(s);
        } finally {
            lock.unlock();
        }
        s.start();
        return () -> unsubscribe(s);
    }

    /** Hands {@code event} to every subscriber's queue; never waits for one. */
    public void publish(RunEvent event) {
        lock.lock();
        try {
            if (closed) throw new IllegalStateException("event hub closed; cannot publish " + event);
            remember(event);
            for (Subscription s : subscriptions) s.offer(event);
        } finally {
            lock.unlock();
        }
    }

    /** Delivers what is queued (waiting up to the close wait per subscriber), then ends every subscription. */
    @Override
    public void close() {
        List<Subscription> ending;
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            ending = List.copyOf(subscriptions);
            subscriptions.clear();
        } finally {
            lock.unlock();
        }
        for (Subscription s : ending) s.end();
        for (Subscription s : ending) s.awaitEnd(closeWait);
    }

    private void remember(RunEvent event) {
        switch (event) {
            case PhaseStarted p -> lastPhase = p;
            case PointStarted p -> {
                lastPhase = null;
                lastStarted = p;
                lastSnapshot = null;
                lastFinished = null;
            }
            case Snapshot s -> lastSnapshot = s;
            case PointFinished f -> lastFinished = f;
            case RunFinished r -> runFinished = r;
        }
    }

    private List<RunEvent> currentState() {
        List<RunEvent> state = new ArrayList<>(5);
        if (lastStarted != null) state.add(lastStarted);
        if (lastSnapshot != null && (lastStarted == null || lastSnapshot.point() == lastStarted.point())) {
            state.add(lastSnapshot);
        }
        if (lastFinished != null) state.add(lastFinished);
        if (lastPhase != null) state.add(lastPhase);
        if (runFinished != null) state.add(runFinished);
        return state;
    }

    private void unsubscribe(Subscription s) {
        lock.lock();
        try {
            subscriptions.remove(s);
        } finally {
            lock.unlock();
        }
        s.cancel();
    }

    /** One subscriber: its queue and the virtual thread that empties it into the listener. */
    private final class Subscription {
        private final RunListener listener;
        private final ReentrantLock queueLock = new ReentrantLock();
        private final Condition changed = queueLock.newCondition();
        private final ArrayDeque<RunEvent> queue = new ArrayDeque<>();
        private boolean ended;
        private boolean cancelled;
        private Thread thread;

        Subscription(RunListener listener) {
            this.listener = listener;
        }

        void start() {
            thread = Thread.ofVirtual().name("unibench-events").start(this::deliver);
        }

        void offer(RunEvent event) {
            queueLock.lock();
            try {
                if (cancelled || ended) return;
                if (event instanceof Snapshot && queue.size() >= capacity && !dropOldestSnapshot()) return;
                queue.addLast(event);
                changed.signal();
            } finally {
                queueLock.unlock();
            }
        }

        /** Makes room for a newer Snapshot; false when the queue holds none (then the new one is dropped). */
        private boolean dropOldestSnapshot() {
            for (Iterator<RunEvent> it = queue.iterator(); it.hasNext(); ) {
                if (it.next() instanceof Snapshot) {
                    it.remove();
                    return true;
                }
            }
            return false;
        }

        void end() {
            signal(() -> ended = true);
        }

        void cancel() {
            signal(() -> {
                cancelled = true;
                queue.clear();
            });
        }

        private void signal(Runnable change) {
            queueLock.lock();
            try {
                change.run();
                changed.signal();
            } finally {
                queueLock.unlock();
            }
        }

        void awaitEnd(Duration wait) {
            try {
                if (!thread.join(wait)) {
                    thread.interrupt();
                    cancel();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void deliver() {
            for (RunEvent event; (event = next()) != null; ) {
                try {
                    listener.onEvent(event);
                } catch (RuntimeException e) {
                    // A listener's bug must not end the other subscribers' view or the run; say it once per event.
                    System.getLogger(EventHub.class.getName()).log(System.Logger.Level.WARNING,
                            "run event listener failed on " + event.getClass().getSimpleName(), e);
                }
            }
        }

        /** The next event, waiting for one; null once the subscription is over and its queue drained. */
        private RunEvent next() {
            queueLock.lock();
            try {
                while (queue.isEmpty() && !ended && !cancelled) changed.awaitUninterruptibly();
                return cancelled ? null : queue.pollFirst();
            } finally {
                queueLock.unlock();
            }
        }
    }
}
