package io.unibench.engine;

import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;

import java.util.List;

/**
 * Runs a {@link MultiTurnPlan}: conversations whose every turn carries the whole history, the model's actual
 * replies included (evalscope's {@code MultiTurnStrategy}, §4 of the reference).
 *
 * <p>The conversations ({@link MultiTurns}) are carried by the loops single-turn runs share ({@link ClosedLoop},
 * {@link OpenLoop}). Closed loop (default): {@code parallel} workers, each a virtual thread holding its own history. Worker
 * {@code w} starts with the {@code w}-th conversation (claimed in worker order before any starts, so the first
 * assignment is deterministic); afterwards whoever finishes first claims the next one, in dataset order, cycling to
 * the start when the pool is exhausted. The shared budget counter is taken before a conversation starts, so the
 * conversations started never exceed {@code number}. Arrival mode ({@link MultiTurnPlan.RateMode#ARRIVAL}): a
 * dispatcher starts conversations on a Poisson schedule, at most {@code parallel} at once.
 *
 * <p>Each turn appends the dataset's delta to the history, sends it, and on success appends
 * {@code {"role": "assistant", "content": reply}} (reasoning included). A failed turn ends the conversation
 * (abandoned, recorded with its error class); nothing of it is carried further. {@code --duration} stops new
 * conversations only. A stop (Ctrl-C) ends everything: the caller cancels in-flight requests, which fail and so end
 * their conversations.
 *
 * <p>Every turn's record carries the conversation id, turn index, whether it ends the conversation, and the cached
 * prompt tokens: the server's {@code cached_tokens} when reported, else the client's estimate, the previous turn's
 * prompt + completion tokens (0 on the first turn), labelled as an estimate.
 *
 * <p>An exception in a worker, sink or hook (a bug) stops the phase: nothing new is claimed or sent, the turns in
 * flight end and are recorded, then {@link #run} throws {@link RunFailedException}; it is never swallowed. Time
 * (deadline, schedule, think and tool pauses) comes from the injected {@link Clock}.
 */
public final class MultiTurnRunner {
    private final Sender client;
    private final Clock clock;
    private final RecordFactory records;
    private final StopSignal stop;
    private final ClaimListener listener;
    private final RequestHooks hooks;
    private final Pauser toolPauses;

    public MultiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop, ClaimListener listener) {
        this(client, records, stop, listener, RequestHooks.NONE, null);
    }

    /** With a start gate and a result check around every turn (scenario files: rate limit, validation). */
    public MultiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop, ClaimListener listener,
                           RequestHooks hooks) {
        this(client, records, stop, listener, hooks, null);
    }

    /** @param toolPauses waits the tool-call pauses of turns; {@code null} = really wait (on {@code stop}) */
    public MultiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop, ClaimListener listener,
                           Pauser toolPauses) {
        this(client, records, stop, listener, RequestHooks.NONE, toolPauses);
    }

    public MultiTurnRunner(LlmClient client, RecordFactory records, StopSignal stop, ClaimListener listener,
                           RequestHooks hooks, Pauser toolPauses) {
        this(client::send, Clock.system(stop), records, stop, listener, hooks, toolPauses);
    }

    /** @param clock the time of the deadline, the arrival schedule and every pause; its waits end early on a stop */
    public MultiTurnRunner(Sender client, Clock clock, RecordFactory records, StopSignal stop, ClaimListener listener,
                           RequestHooks hooks, Pauser toolPauses) {
        this.client = client;
        this.clock = clock;
        this.records = records;
        this.stop = stop;
        this.listener = listener == null ? ClaimListener.NONE : listener;
        this.hooks = hooks;
        this.toolPauses = toolPauses == null ? Pauser.waitingOn(clock) : toolPauses;
    }

    /**
     * {@link RunOutcome#sent()} counts the measured conversations started.
     *
     * @throws RunFailedException when a worker, sink or hook threw; the sinks hold what ran until then
     */
    public RunOutcome run(MultiTurnPlan plan, ConversationPool pool, ConversationRequests requests,
                          List<? extends RecordSink> sinks, long seed) throws InterruptedException {
        LoadPlan load = plan.load();
        if (load.warmup() > 0) phase(plan, pool, requests, List.of(), load.warmup(), Long.MAX_VALUE, true, seed);
        if (stop.isStopped()) return new RunOutcome(0, true, false);
        long deadline = load.duration() == null ? Long.MAX_VALUE : clock.nanoTime() + load.duration().toNanos();
        long started = phase(plan, pool, requests, sinks, load.number(), deadline, false, seed + 1);
        return new RunOutcome(started, stop.isStopped(), started < load.number() && !stop.isStopped());
    }

    /** One phase (warmup or measured): its own budget, deadline and sinks; returns the conversations started. */
    private long phase(MultiTurnPlan plan, ConversationPool pool, ConversationRequests requests,
                       List<? extends RecordSink> sinks, int budget, long deadline, boolean warmup, long seed)
            throws InterruptedException {
        FirstFailure failure = new FirstFailure();
        MultiTurns source = new MultiTurns(plan, pool, requests, records, listener, toolPauses, clock, budget, warmup,
                seed);
        long started = plan.arrivals()
                ? new OpenLoop(client, records, stop, hooks, clock).run(plan.load(), budget, source, sinks, deadline,
                        seed, failure)
                : new ClosedLoop(client, stop, hooks, clock).run(plan.load().parallel(), source, sinks, deadline,
                        failure);
        failure.rethrow();
        return started;
    }
}
