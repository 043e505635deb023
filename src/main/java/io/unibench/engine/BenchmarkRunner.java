package io.unibench.engine;

import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;

import java.util.List;

/**
 * Runs one {@link LoadPlan} of single-turn requests: a warmup phase whose results are dropped, then the measured
 * phase, whose every request (success or failure) becomes a {@code RequestRecord} handed to the sinks as it
 * completes. Each request is a conversation of one turn ({@link SingleTurns}) carried by the loop both kinds of runs
 * share: the {@link ClosedLoop} (no rate: {@code parallel} workers share the budget of {@code number} requests) or
 * the {@link OpenLoop} ({@code rate > 0}: a Poisson schedule, at most {@code parallel} in flight, queueing delay
 * recorded; no thread per request). {@code --duration} stops dispatching; requests already sent finish and are recorded.
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

    /** Sends requests {@code first .. first+count-1}, each a conversation of one turn; returns how many were sent. */
    private long phase(LoadPlan plan, RequestFactory requests, long first, int count,
                       List<? extends RecordSink> sinks, long deadline, long seed) throws InterruptedException {
        FirstFailure failure = new FirstFailure();
        SingleTurns source = new SingleTurns(requests, records, first, count);
        long sent = plan.paced() ? new OpenLoop(client, records, stop, hooks, clock)
                .run(plan, count, source, sinks, deadline, seed, failure)
                : new ClosedLoop(client, stop, hooks, clock).run(plan.parallel(), source, sinks, deadline, failure);
        failure.rethrow();
        return sent;
    }
}
