package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one {@link LoadPlan}: a warmup phase whose results are dropped, then the measured phase, whose
 * every request (success or failure) becomes a {@link RequestRecord} handed to the sinks as it completes.
 *
 * <p>Closed loop (no rate): {@code parallel} virtual threads share the budget of {@code number} requests;
 * each sends, waits for the reply, records it and takes the next. Open loop ({@code rate > 0}): a
 * dispatcher starts requests on a Poisson schedule, at most {@code parallel} in flight; a request that
 * has to wait for a free slot keeps its scheduled time, so its queueing delay is recorded (evalscope
 * hides it). No thread waits for an open-loop request: its end is queued by the event loop and recorded by a
 * {@link BatchRecorder}. {@code --duration} stops dispatching; requests already sent finish and are recorded.
 * A stop (Ctrl-C) stops dispatching and cancels in-flight requests, which are recorded as {@code cancelled}.
 *
 * <p>An exception in a worker, a sink or a hook (a bug: request failures are records) stops the phase: no request
 * starts after it, those in flight end and are recorded, then {@link #run} throws {@link RunFailedException}. It is
 * never swallowed, so a run does not go on at a lower concurrency than its report states. Time (deadlines, the
 * schedule, waits) comes from the injected {@link Clock}.
 */
public final class BenchmarkRunner {
    private final Sender client;
    private final RecordFactory records;
    private final StopSignal stop;
    private final RequestHooks hooks;
    private final Clock clock;

    public BenchmarkRunner(LlmClient client, RecordFactory records, StopSignal stop) {
        this(client, records, stop, RequestHooks.NONE);
    }

    /** With a start gate and a result check around every request (scenario files: rate limit, validation). */
    public BenchmarkRunner(LlmClient client, RecordFactory records, StopSignal stop, RequestHooks hooks) {
        this(client::send, records, stop, hooks, Clock.system(stop));
    }

    /** @param clock the time of deadlines, the open loop's schedule and its waits; waits end early on a stop */
    public BenchmarkRunner(Sender client, RecordFactory records, StopSignal stop, RequestHooks hooks, Clock clock) {
        this.client = client;
        this.records = records;
        this.stop = stop;
        this.hooks = hooks;
        this.clock = clock;
    }

    /** @throws RunFailedException when a worker, sink or hook threw; the sinks hold what ran until then */
    public RunOutcome run(LoadPlan plan, RequestFactory requests, List<? extends RecordSink> sinks, long seed)
            throws InterruptedException {
        if (plan.warmup() > 0) {
            phase(plan, requests, 0, plan.warmup(), List.of(), Long.MAX_VALUE, seed);
        }
        if (stop.isStopped()) return new RunOutcome(0, true, false);
        long deadline = plan.duration() == null ? Long.MAX_VALUE
                : clock.nanoTime() + plan.duration().toNanos();
        long sent = phase(plan, requests, plan.warmup(), plan.number(), sinks, deadline, seed + 1);
        return new RunOutcome(sent, stop.isStopped(), sent < plan.number() && !stop.isStopped());
    }

    /** Sends requests {@code first .. first+count-1}; returns how many were sent. */
    private long phase(LoadPlan plan, RequestFactory requests, long first, int count,
                       List<? extends RecordSink> sinks, long deadline, long seed) throws InterruptedException {
        FirstFailure failure = new FirstFailure();
        long sent = plan.paced() ? dispatchPaced(plan, requests, first, count, sinks, deadline, seed, failure)
                : closedLoop(plan, requests, first, count, sinks, deadline, failure);
        failure.rethrow();
        return sent;
    }

    /** {@code parallel} workers share the budget; the first to throw stops them all (each ends its request first). */
    private long closedLoop(LoadPlan plan, RequestFactory requests, long first, int count,
                            List<? extends RecordSink> sinks, long deadline, FirstFailure failure) {
        AtomicLong sent = new AtomicLong();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            AtomicLong next = new AtomicLong();
            for (int w = 0; w < Math.min(plan.parallel(), Math.max(count, 1)); w++) {
                threads.submit(() -> {
                    try {
                        while (!failure.any() && !stop.isStopped() && clock.nanoTime() < deadline) {
                            long i = next.getAndIncrement();
                            if (i >= count) return;
                            sent.incrementAndGet();
                            send(requests.prepare(first + i), i, RequestRecord.ABSENT, sinks);
                        }
                    } catch (RuntimeException | Error e) {
                        failure.keep(e);
                    }
                });
            }
        }
        return sent.get();
    }

    /**
     * The open loop, on the calling thread: waits for each request's scheduled moment and a free slot, then starts
     * it (the client's send does not block). Returns once every request it started has ended and been recorded.
     */
    private long dispatchPaced(LoadPlan plan, RequestFactory requests, long first, int count,
                               List<? extends RecordSink> sinks, long deadline, long seed, FirstFailure failure)
            throws InterruptedException {
        ArrivalSchedule schedule = plan.arrivals().schedule(first, count, plan.rate(), new SplittableRandom(seed));
        Semaphore slots = new Semaphore(plan.parallel());
        long sent = 0;
        try (BatchRecorder recorder = new BatchRecorder(records, hooks, sinks)) {
            try {
                long anchor = clock.nanoTime();
                for (int i = 0; i < count && !recorder.failed(); i++) {
                    long scheduled = anchor + schedule.offsetNanos(i);
                    // made before its moment, so building the body does not delay the start
                    PreparedRequest request = requests.prepare(first + i);
                    if (!clock.awaitUntil(Math.min(scheduled, deadline)) || clock.nanoTime() >= deadline) break;
                    if (!awaitSlot(slots)) break;
                    if (clock.nanoTime() >= deadline || !hooks.awaitStart()) {
                        slots.release();
                        break;
                    }
                    long index = i;
                    long epochMillis = System.currentTimeMillis();
                    CompletableFuture<ClientResult> reply;
                    try {
                        reply = client.send(request.body(), request.stream(), request.requestId());
                    } catch (RuntimeException e) {
                        slots.release(); // or the wait for every slot below would never end
                        failure.keep(e);
                        break;
                    }
                    sent++;
                    reply.whenComplete((result, e) -> {
                        if (e != null) recorder.fail(e); // the client's contract says never; if so, say so loudly
                        else recorder.add(new BatchRecorder.Finished(index, request, result, scheduled, epochMillis));
                        slots.release();
                    });
                }
            } finally {
                // every request sent has ended (or been cancelled by a stop) and is queued for its record
                slots.acquireUninterruptibly(plan.parallel());
            }
        } catch (RuntimeException e) { // a sink or hook threw on the recorder thread: rethrown by its close()
            failure.keep(e);
        }
        return sent;
    }

    /** Waits for a free slot; false when the run was stopped meanwhile. */
    private boolean awaitSlot(Semaphore slots) throws InterruptedException {
        while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
            if (stop.isStopped()) return false;
        }
        return true;
    }

    private void send(PreparedRequest request, long index, long scheduledNanos, List<? extends RecordSink> sinks) {
        if (!hooks.awaitStart()) return;
        long epochMillis = System.currentTimeMillis();
        ClientResult result = hooks.check(client.send(request.body(), request.stream(), request.requestId()).join());
        RequestRecord record = records.record(index, request, result, scheduledNanos, epochMillis);
        for (RecordSink sink : sinks) sink.accept(record);
    }
}
