package io.unibench.engine.live;

import io.unibench.engine.Clock;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The live view of one load point: a {@link RecordSink} that counts every record and feeds HdrHistogram interval
 * recorders (TTFT and latency of successes, in microseconds, 3 significant digits), and a {@link #tick()} that
 * folds the intervals into the point's totals and publishes a {@link Snapshot}. {@link #startTicking} ticks once a
 * period on a thread of its own; {@link #close()} stops it and publishes the point's last snapshot.
 *
 * <p>Recording allocates nothing and takes no lock ({@link Recorder} is wait-free for writers, counters are
 * {@link LongAdder}s; a new error class allocates its counter once). Ticks swap the recorders' buffers and recycle
 * the previous interval's histogram.
 */
public final class LiveRecorder implements RecordSink {
    /** Values above an hour are counted as an hour: no request of a benchmark lives longer. */
    static final long HIGHEST_MICROS = Duration.ofHours(1).toNanos() / 1_000;
    private static final int DIGITS = 3;

    private final int point;
    private final Clock clock;
    private final long startNanos;
    private final IntSupplier inFlight;
    private final Supplier<Snapshot.ClientLoad> client;
    private final Consumer<? super Snapshot> publish;

    private final LongAdder succeeded = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder outputTokens = new LongAdder();
    private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
    private final Recorder ttftRecorder = new Recorder(1, HIGHEST_MICROS, DIGITS);
    private final Recorder latencyRecorder = new Recorder(1, HIGHEST_MICROS, DIGITS);
    private final Recorder ttfctRecorder = new Recorder(1, HIGHEST_MICROS, DIGITS); // replies that reasoned first

    // Touched only under tickLock.
    private final ReentrantLock tickLock = new ReentrantLock();
    private final Histogram ttftTotal = new Histogram(1, HIGHEST_MICROS, DIGITS);
    private final Histogram latencyTotal = new Histogram(1, HIGHEST_MICROS, DIGITS);
    private final Histogram ttfctTotal = new Histogram(1, HIGHEST_MICROS, DIGITS);
    private Histogram ttfctInterval;
    private Histogram ttftInterval;
    private Histogram latencyInterval;

    private volatile Thread ticker;
    private volatile boolean closed;

    /**
     * @param point    the point's 0-based index over the run
     * @param clock    where elapsed time comes from (and, for {@link #startTicking}, how to wait)
     * @param inFlight the engine's count of requests sent and not finished
     * @param client   the client's load at the moment of a snapshot ({@link Snapshot.ClientLoad#UNKNOWN} if none)
     * @param publish  receives each snapshot (e.g. {@link EventHub#publish})
     */
    public LiveRecorder(int point, Clock clock, IntSupplier inFlight, Supplier<Snapshot.ClientLoad> client,
                        Consumer<? super Snapshot> publish) {
        this.point = point;
        this.clock = clock;
        this.startNanos = clock.nanoTime();
        this.inFlight = inFlight;
        this.client = client;
        this.publish = publish;
    }

    @Override
    public void accept(RequestRecord r) {
        if (r.outcome().cancelled()) {
            cancelled.increment();
        } else if (r.success()) {
            succeeded.increment();
            if (r.tokens().completion() > 0) outputTokens.add(r.tokens().completion());
            record(latencyRecorder, r.latencySeconds());
            record(ttftRecorder, r.ttftSeconds());
            if (r.timing().reasonedFirst() || r.tokens().reasoned()) record(ttfctRecorder, r.ttfctSeconds());
        } else {
            failed.computeIfAbsent(r.outcome().errorClass() == null ? "unknown" : r.outcome().errorClass(), k -> new LongAdder())
                    .increment();
        }
    }

    private static void record(Recorder recorder, double seconds) {
        if (!(seconds >= 0)) return; // NaN: the moment did not happen (no token)
        long micros = Math.max(1, Math.min(HIGHEST_MICROS, Math.round(seconds * 1e6)));
        recorder.recordValue(micros);
    }

    /** Folds the interval into the point's totals, publishes a snapshot of the point so far and returns it. */
    public Snapshot tick() {
        Snapshot s;
        tickLock.lock();
        try {
            ttftInterval = ttftRecorder.getIntervalHistogram(ttftInterval);
            latencyInterval = latencyRecorder.getIntervalHistogram(latencyInterval);
            ttftTotal.add(ttftInterval);
            latencyTotal.add(latencyInterval);
            ttfctInterval = ttfctRecorder.getIntervalHistogram(ttfctInterval);
            ttfctTotal.add(ttfctInterval);
            s = snapshot();
        } finally {
            tickLock.unlock();
        }
        publish.accept(s);
        return s;
    }

    private Snapshot snapshot() {
        double elapsed = (clock.nanoTime() - startNanos) / 1e9;
        long ok = succeeded.sum();
        long gone = cancelled.sum();
        Map<String, Long> byClass = new TreeMap<>();
        long failures = 0;
        for (Map.Entry<String, LongAdder> e : failed.entrySet()) {
            long n = e.getValue().sum();
            byClass.put(e.getKey(), n);
            failures += n;
        }
        double rps = elapsed > 0 ? ok / elapsed : Double.NaN;
        double tps = elapsed > 0 ? outputTokens.sum() / elapsed : Double.NaN;
        return new Snapshot(point, elapsed, ok + failures + gone, ok, gone, byClass, inFlight.getAsInt(), rps, tps,
                quantiles(ttftTotal), quantiles(latencyTotal), client.get(), quantiles(ttfctTotal));
    }

    private static Snapshot.Quantiles quantiles(Histogram h) {
        if (h.getTotalCount() == 0) return Snapshot.Quantiles.NONE;
        return new Snapshot.Quantiles(h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(95) / 1e3,
                h.getValueAtPercentile(99) / 1e3);
    }

    /**
     * Ticks every {@code period} on a virtual thread until {@link #close()}. The thread waits on the clock, so
     * a stop of a {@link Clock#system} clock ends it too.
     */
    public void startTicking(Duration period) {
        long step = period.toNanos();
        ticker = Thread.ofVirtual().name("unibench-live-" + point).start(() -> {
            for (long next = startNanos + step; !closed && clock.awaitUntil(next); next += step) {
                if (!closed) tick();
            }
        });
    }

    /** Stops ticking and publishes the point's final snapshot. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Thread t = ticker;
        if (t != null) {
            t.interrupt();
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        tick();
    }
}
