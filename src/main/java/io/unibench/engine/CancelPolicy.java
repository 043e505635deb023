package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code --cancel-rate P}: a share P of requests is hung up by the client mid-stream, as users who stop a reply do,
 * to measure what cancellations cost the others. A cancelled request is recorded as {@code cancelled} (by design,
 * neither a success nor a failure) and its connection is closed, so the server sees the disconnect.
 *
 * <p>When: {@code --cancel-after-ms} after the request started, or else a random moment, uniform between the start
 * and the mean latency of the requests that finished uncancelled so far (so it falls inside a typical stream);
 * until one has finished there is no such mean and requests are not cancelled. Which requests: a seeded draw per
 * request, so a run is repeatable. The cancel timer runs on the client's event loops and is dropped when the reply
 * ends first.
 */
public final class CancelPolicy {
    public static final CancelPolicy NONE = new CancelPolicy(0, null, 0);

    private final double rate;
    private final Duration after;
    private final ReentrantLock lock = new ReentrantLock();
    private final SplittableRandom rng; // guarded by lock
    private long finishedNanos; // guarded by lock: latency sum of the requests that finished uncancelled
    private long finished; // guarded by lock

    /** @param after null = a random point (see the class comment) */
    public CancelPolicy(double rate, Duration after, long seed) {
        if (!(rate >= 0 && rate <= 1)) throw new IllegalArgumentException("cancel rate must be in 0..1, got " + rate);
        this.rate = rate;
        this.after = after;
        this.rng = new SplittableRandom(seed);
    }

    public boolean active() {
        return rate > 0;
    }

    /** What the runners send through: the client, with the drawn requests hung up. */
    public Sender sender(LlmClient client) {
        if (!active()) return client::send;
        return (body, stream, id) -> {
            long delay = drawDelayNanos();
            if (delay < 0) return client.send(body, stream, id).whenComplete((r, e) -> finished(r));
            CompletableFuture<Void> cancel = new CompletableFuture<>();
            ScheduledFuture<?> timer = client.ioLoops().schedule(() -> cancel.complete(null), delay, TimeUnit.NANOSECONDS);
            return client.send(body, stream, id, cancel).whenComplete((r, e) -> timer.cancel(false));
        };
    }

    /** The single-turn runner with this policy. */
    public BenchmarkRunner runner(LlmClient client, RecordFactory records, StopSignal stop) {
        return runner(client, records, stop, null, 0);
    }

    /** The single-turn runner with this policy, refusals retried as {@code retry} says (null = never). */
    public BenchmarkRunner runner(LlmClient client, RecordFactory records, StopSignal stop, RunSpec.Retry retry,
                                  long seed) {
        return runner(client, records, stop, retry, seed, RequestHooks.NONE);
    }

    /** {@link #runner(LlmClient, RecordFactory, StopSignal, RunSpec.Retry, long)} with {@code hooks} around each request. */
    BenchmarkRunner runner(LlmClient client, RecordFactory records, StopSignal stop, RunSpec.Retry retry, long seed,
                           RequestHooks hooks) {
        return new BenchmarkRunner(Retrier.around(sender(client), retry, seed, stop), records, stop, hooks,
                Clock.system(stop));
    }

    /** The multi-turn runner with this policy (a cancelled turn ends its conversation as a failed turn does). */
    public MultiTurnRunner multiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop) {
        return multiTurnRunner(client, records, stop, null, 0);
    }

    /** The multi-turn runner with this policy, refusals retried as {@code retry} says (null = never). */
    public MultiTurnRunner multiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop,
                                           RunSpec.Retry retry, long seed) {
        return multiTurnRunner(client, records, stop, retry, seed, RequestHooks.NONE);
    }

    /** {@link #multiTurnRunner(LlmClient, RecordFactory, StopSignal, RunSpec.Retry, long)} with {@code hooks}. */
    MultiTurnRunner multiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop, RunSpec.Retry retry,
                                    long seed, RequestHooks hooks) {
        return new MultiTurnRunner(Retrier.around(sender(client), retry, seed, stop), Clock.system(stop), records,
                stop, null, hooks, null);
    }

    /** The settings, for the point's summary. */
    public Map<String, Object> summaryKeys() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!active()) return m;
        m.put("Client Cancel Rate", rate);
        m.put("Client Cancel Point", after == null ? "random (0 .. mean latency)" : after.toMillis() + " ms");
        return m;
    }

    /** Nanoseconds after the start to hang up, or -1 to let the request run. */
    long drawDelayNanos() {
        lock.lock();
        try {
            if (rng.nextDouble() >= rate) return -1;
            if (after != null) return after.toNanos();
            if (finished == 0) return -1;
            return (long) (rng.nextDouble() * (finishedNanos / (double) finished));
        } finally {
            lock.unlock();
        }
    }

    private void finished(ClientResult r) {
        if (r == null || !r.success()) return;
        lock.lock();
        try {
            finishedNanos += r.endNanos() - r.startNanos();
            finished++;
        } finally {
            lock.unlock();
        }
    }
}
