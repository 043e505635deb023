package io.unibench.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.unibench.Moments;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RequestRecord.CacheSource;
import io.unibench.workload.Conversation;
import io.unibench.workload.Turn;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a {@link MultiTurnPlan}: conversations whose every turn carries the whole history, the model's actual
 * replies included (evalscope's {@code MultiTurnStrategy}, §4 of the reference).
 *
 * <p>Closed loop (default): {@code parallel} workers, each a virtual thread holding its own history. Worker
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
        if (load.warmup() > 0) {
            new Phase(plan, pool, requests, List.of(), load.warmup(), Long.MAX_VALUE, true, seed).run();
        }
        if (stop.isStopped()) return new RunOutcome(0, true, false);
        long deadline = load.duration() == null ? Long.MAX_VALUE : clock.nanoTime() + load.duration().toNanos();
        long started = new Phase(plan, pool, requests, sinks, load.number(), deadline, false, seed + 1).run();
        return new RunOutcome(started, stop.isStopped(), started < load.number() && !stop.isStopped());
    }

    /** A conversation a worker has claimed. */
    private record Claim(long sequence, int datasetIndex, Conversation conversation) {}

    /** One phase (warmup or measured): its own budget, deadline and sinks. */
    private final class Phase {
        private final MultiTurnPlan plan;
        private final ConversationPool pool;
        private final ConversationRequests requests;
        private final List<? extends RecordSink> sinks;
        private final int budget;
        private final long deadline;
        private final boolean warmup;
        private final long seed;
        private final AtomicLong requestIndex = new AtomicLong();
        private final FirstFailure failure = new FirstFailure();
        private long claimed; // guarded by this

        Phase(MultiTurnPlan plan, ConversationPool pool, ConversationRequests requests,
              List<? extends RecordSink> sinks, int budget, long deadline, boolean warmup, long seed) {
            this.plan = plan;
            this.pool = pool;
            this.requests = requests;
            this.sinks = sinks;
            this.budget = budget;
            this.deadline = deadline;
            this.warmup = warmup;
            this.seed = seed;
        }

        /** Runs the phase to its end; returns the conversations started. */
        long run() throws InterruptedException {
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                if (plan.arrivals()) {
                    dispatchArrivals(threads);
                } else {
                    // claim the first conversations in worker order before any worker runs, so worker w
                    // deterministically starts with the w-th conversation (as in the seed's example)
                    List<Claim> firsts = new java.util.ArrayList<>();
                    for (int w = 0; w < plan.load().parallel(); w++) {
                        Claim first = claim(w);
                        if (first == null) break;
                        firsts.add(first);
                    }
                    for (int w = 0; w < firsts.size(); w++) {
                        int worker = w;
                        Claim first = firsts.get(w);
                        threads.submit(() -> work(worker, first));
                    }
                }
            }
            failure.rethrow();
            synchronized (this) {
                return claimed;
            }
        }

        /**
         * The next conversation, or null when the budget is spent, the deadline passed or the run stopped. Budget
         * check, increment and pool cursor move together under one lock, so concurrent workers never exceed the
         * budget and take conversations in dataset order.
         */
        private Claim claim(int worker) {
            long sequence;
            int index;
            synchronized (this) {
                if (failure.any() || stop.isStopped() || clock.nanoTime() >= deadline || claimed >= budget) {
                    return null;
                }
                sequence = claimed++;
                index = pool.nextIndex();
                // told under the lock, so listeners see claims in the order they were made
                listener.claimed(warmup, worker, sequence, index);
            }
            return new Claim(sequence, index, pool.get(index)); // a lazy dataset synthesizes it here, unlocked
        }

        private void work(int worker, Claim first) {
            SplittableRandom thinkRng = new SplittableRandom(seed * 1_000_003L + worker);
            try {
                for (Claim c = first; c != null; c = claim(worker)) converse(c, Moments.ABSENT, thinkRng);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                failure.keep(e);
            }
        }

        private void dispatchArrivals(ExecutorService threads) throws InterruptedException {
            LoadPlan load = plan.load();
            PoissonSchedule schedule = new PoissonSchedule(budget, load.rate(), new SplittableRandom(seed));
            Semaphore slots = new Semaphore(load.parallel());
            long anchor = clock.nanoTime();
            for (int i = 0; i < budget; i++) {
                long scheduled = anchor + schedule.offsetNanos(i);
                if (!clock.awaitUntil(Math.min(scheduled, deadline)) || clock.nanoTime() >= deadline) return;
                while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    if (stop.isStopped()) return;
                }
                Claim c = claim(-1);
                if (c == null) {
                    slots.release();
                    return;
                }
                threads.submit(() -> {
                    try {
                        converse(c, scheduled, null);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException | Error e) {
                        failure.keep(e);
                    } finally {
                        slots.release();
                    }
                });
            }
        }

        /** Sends the conversation's turns in order until its end, a failure or a stop. */
        private void converse(Claim claim, long firstScheduled, SplittableRandom thinkRng) throws InterruptedException {
            String id = (warmup ? "warmup-" : "bench-") + claim.sequence();
            List<Turn> turns = claim.conversation().turns();
            int limit = plan.maxTurns() == null ? turns.size() : Math.min(turns.size(), plan.maxTurns());
            ArrayNode history = JsonNodeFactory.instance.arrayNode();
            long prevPrompt = 0;
            long prevCompletion = 0;
            for (int t = 0; t < limit; t++) {
                if (stop.isStopped() || failure.any()) return;
                Turn turn = turns.get(t);
                // the trace's tool-call time, scaled by --tool-latency-scale (0 removes the idle gaps)
                long toolNanos = turn.toolCallLatencySeconds() == null ? 0
                        : (long) (turn.toolCallLatencySeconds() * plan.toolLatencyScale() * 1e9);
                if (toolNanos > 0 && toolPauses.pause(id, t, toolNanos)) return;
                history.addAll(turn.messages());
                if (plan.thinkTime() && thinkRng != null) {
                    double pause = -Math.log(1.0 - thinkRng.nextDouble()) / plan.load().rate();
                    if (!clock.awaitUntil(clock.nanoTime() + (long) (pause * 1e9))) return;
                }
                PreparedRequest request = requests.prepare(requestIndex.getAndIncrement(), id, claim.sequence(), t,
                        history, turn.maxTokens());
                if (!hooks.awaitStart()) return;
                long epochMillis = System.currentTimeMillis();
                ClientResult result = hooks.check(
                        client.send(request.body(), request.stream(), request.requestId()).join());
                RequestRecord base = records.record(request.sequence(), request, result,
                        t == 0 ? firstScheduled : Moments.ABSENT, epochMillis);
                int cached = -1;
                CacheSource source = null;
                if (base.tokens().prompt() > 0) {
                    if (base.tokens().cached() >= 0) {
                        cached = base.tokens().cached();
                        source = CacheSource.SERVER;
                    } else {
                        // evalscope's estimate: everything before this turn's new messages could be cached
                        cached = (int) Math.min(Integer.MAX_VALUE, prevPrompt + prevCompletion);
                        source = CacheSource.ESTIMATE;
                    }
                }
                if (base.tokens().prompt() > 0) prevPrompt = base.tokens().prompt();
                if (base.tokens().completion() > 0) prevCompletion = base.tokens().completion();
                boolean last = t == limit - 1 || !result.success();
                RequestRecord record = base.withTurn(id, t, last, cached, source)
                        .withPromptLengths(turn.targetTokens(), turn.targetTokens() >= 0 ? turn.actualTokens() : -1);
                for (RecordSink sink : sinks) sink.accept(record);
                if (!result.success()) return; // abandoned: the worker takes a new conversation
                history.addObject().put("role", "assistant").put("content", result.generatedText());
            }
        }
    }
}
