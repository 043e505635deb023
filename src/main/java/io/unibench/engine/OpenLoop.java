package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.metrics.RecordSink;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The open loop: conversations start on a Poisson schedule of {@code rate} per second, at most {@code parallel} at
 * once. One that has to wait for a free slot keeps its scheduled time, so its (first) request's queueing delay is
 * recorded (evalscope hides it). Runs on the calling thread and returns once everything it started has ended and
 * been recorded. {@code --duration} and a stop end dispatching; a stop also cancels what is in flight (the caller's
 * client does).
 *
 * <p>A conversation of one turn ({@link Conversations#oneTurnEach()}: single-turn requests) costs no thread: its
 * request is made before its moment (building the body does not delay the start), sent without waiting (the client's
 * send does not block), its end queued by the event loop and recorded by a {@link BatchRecorder}. A conversation of
 * several turns runs on a virtual thread of its own, its turns back to back as in the closed loop.
 */
final class OpenLoop {
    private final Sender client;
    private final RecordFactory records;
    private final StopSignal stop;
    private final RequestHooks hooks;
    private final Clock clock;
    private final ClosedLoop turns;

    OpenLoop(Sender client, RecordFactory records, StopSignal stop, RequestHooks hooks, Clock clock) {
        this.client = client;
        this.records = records;
        this.stop = stop;
        this.hooks = hooks;
        this.clock = clock;
        this.turns = new ClosedLoop(client, stop, hooks, clock);
    }

    /** Starts up to {@code count} conversations of {@code source}; returns how many started. */
    long run(LoadPlan plan, int count, Conversations source, List<? extends RecordSink> sinks, long deadline,
             long seed, FirstFailure failure) throws InterruptedException {
        PoissonSchedule schedule = new PoissonSchedule(count, plan.rate(), new SplittableRandom(seed));
        Semaphore slots = new Semaphore(plan.parallel());
        long started = 0;
        boolean oneTurn = source.oneTurnEach();
        try (BatchRecorder recorder = oneTurn ? new BatchRecorder(records, hooks, sinks) : null;
             ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                long anchor = clock.nanoTime();
                for (int i = 0; i < count && (recorder == null || !recorder.failed()) && !failure.any(); i++) {
                    long scheduled = anchor + schedule.offsetNanos(i);
                    Conversations.Conversation c = oneTurn ? source.claim(-1) : null;
                    PreparedRequest request = c == null ? null : c.nextTurn(); // made before its moment
                    if (oneTurn && request == null) break;
                    if (!clock.awaitUntil(Math.min(scheduled, deadline)) || clock.nanoTime() >= deadline) break;
                    if (!awaitSlot(slots)) break;
                    if (!oneTurn) {
                        Conversations.Conversation conversation = source.claim(-1);
                        if (conversation == null) {
                            slots.release();
                            break;
                        }
                        started++;
                        threads.submit(() -> {
                            try {
                                turns.converse(conversation, scheduled, sinks, failure);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (RuntimeException | Error e) {
                                failure.keep(e);
                            } finally {
                                slots.release();
                            }
                        });
                        continue;
                    }
                    if (clock.nanoTime() >= deadline || !hooks.awaitStart()) {
                        slots.release();
                        break;
                    }
                    if (!send(c.sequence(), request, scheduled, slots, recorder, failure)) break;
                    started++;
                }
            } finally {
                // every request sent has ended (or been cancelled by a stop) and is queued for its record
                slots.acquireUninterruptibly(plan.parallel());
            }
        } catch (RuntimeException e) { // a sink or hook threw on the recorder thread: rethrown by its close()
            failure.keep(e);
        }
        return started;
    }

    /** Sends one single-turn request without waiting; false when the client threw (a bug: the phase ends). */
    private boolean send(long index, PreparedRequest request, long scheduled, Semaphore slots, BatchRecorder recorder,
                         FirstFailure failure) {
        long epochMillis = System.currentTimeMillis();
        CompletableFuture<ClientResult> reply;
        try {
            reply = client.send(request.body(), request.stream(), request.requestId());
        } catch (RuntimeException e) {
            slots.release(); // or the wait for every slot would never end
            failure.keep(e);
            return false;
        }
        reply.whenComplete((result, e) -> {
            if (e != null) recorder.fail(e); // the client's contract says never; if so, say so loudly
            else recorder.add(new BatchRecorder.Finished(index, request, result, scheduled, epochMillis));
            slots.release();
        });
        return true;
    }

    /** Waits for a free slot; false when the run was stopped meanwhile. */
    private boolean awaitSlot(Semaphore slots) throws InterruptedException {
        while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
            if (stop.isStopped()) return false;
        }
        return true;
    }
}
