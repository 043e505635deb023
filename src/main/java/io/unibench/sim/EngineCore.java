package io.unibench.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The engine's scheduler, vLLM-style continuous batching, in virtual time: {@link #plan(long)} forms the next step
 * at a given instant and returns how long it takes; {@link #complete(long)} applies its results at the step's end.
 * Something else decides when "now" is: the {@link Scheduler} thread in real time, or a test stepping through time.
 *
 * <p>One step: (1) requests whose API overhead ({@code ttft-ms}) is over join the FIFO waiting queue; (2) running
 * sequences are scheduled first, each decoding one token (costing one token of the step budget) or prefilling its
 * next chunk of uncached prompt tokens; (3) waiting requests are admitted in order while there is a free slot
 * ({@code max-num-seqs}), KV room for their whole footprint (prompt + planned output, in blocks) and step budget
 * ({@code max-num-batched-tokens}): admission consults the prefix cache and skips prefill of the cached prefix.
 * Head-of-line blocking is deliberate, as vLLM's FCFS policy does it. (4) Requests still waiting after
 * {@code max-queue-wait-ms} are refused (503): only those that found no room. (5) At the step's end every decoding sequence gets one more token (every choice of it), a
 * sequence whose prefill completed gets its first token, finished ones leave and free their slot and blocks.
 *
 * <p>KV accounting is by reservation: a running sequence holds {@code ceil((prompt + output) / block)} blocks per
 * choice from admission to end (vLLM allocates as it goes and preempts when out of blocks; reserving the final
 * footprint gives the same admission limit without preemption). Cached prefix blocks not pinned by a running
 * sequence live in the remaining space and are evicted LRU when reservations need it.
 *
 * <p>Confined to one thread, except {@link #offer} and {@link #cancel} (any thread).
 */
final class EngineCore {
    private final StepTimeModel model;
    private final PrefixCache cache;
    private final SimMetrics metrics;
    private final Consumer<Sequence> publisher;
    private final int maxNumSeqs;
    private final int maxBatchedTokens;
    private final int maxQueue;
    private final long maxWaitNanos;
    private final long capacityBlocks;

    private final Queue<Sequence> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();
    /** By ready time, then by arrival order (a PriorityQueue alone does not keep ties in order). */
    private final PriorityQueue<Sequence> arriving = new PriorityQueue<>(
            Comparator.<Sequence>comparingLong(s -> s.readyNanos).thenComparingLong(s -> s.order));
    private final java.util.concurrent.atomic.AtomicLong offers = new java.util.concurrent.atomic.AtomicLong();
    private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
    private final ArrayList<Sequence> running = new ArrayList<>();
    private final ArrayList<Sequence> step = new ArrayList<>();
    private long reservedBlocks;
    private int runningWidth;
    private long stepStart;
    private int stepDecoding;
    private long minHold = Long.MAX_VALUE;

    EngineCore(SimConfig config, PrefixCache cache, SimMetrics metrics, Consumer<Sequence> publisher) {
        this.model = StepTimeModel.of(config);
        this.cache = cache;
        this.metrics = metrics;
        this.publisher = publisher;
        SimConfig.Scheduling s = config.scheduling();
        this.maxNumSeqs = s.maxNumSeqs();
        this.maxBatchedTokens = s.maxNumBatchedTokens();
        this.maxQueue = s.maxQueue();
        this.maxWaitNanos = Math.round(s.maxQueueWaitMs() * 1e6);
        this.capacityBlocks = config.cacheCapacityBlocks();
    }

    /** Any thread: queues {@code seq}; false (and nothing queued) when {@code max-queue} requests already wait. */
    boolean offer(Sequence seq) {
        if (queued.incrementAndGet() > maxQueue) {
            queued.decrementAndGet();
            return false;
        }
        seq.order = offers.incrementAndGet();
        inbox.add(seq);
        return true;
    }

    /** Any thread: the client went away; the sequence leaves at the next step. */
    void cancel(Sequence seq) {
        seq.cancelled = true;
        cancels.incrementAndGet();
    }

    /** Whether {@link #offer} or {@link #cancel} left news since the last {@link #plan}. */
    boolean hasNews() {
        return !inbox.isEmpty() || cancels.get() > 0;
    }

    int runningCount() { return running.size(); }

    int waitingCount() { return queued.get(); }

    /**
     * Forms the step starting at {@code now}. Returns its duration in nanoseconds, or -1 when there is nothing to
     * compute (then {@link #nextWakeNanos()} says when there will be, barring news).
     */
    long plan(long now) {
        stepStart = now;
        for (Sequence s; (s = inbox.poll()) != null; ) arriving.add(s);
        if (cancels.getAndSet(0) > 0) purgeCancelled();
        while (!arriving.isEmpty() && arriving.peek().readyNanos <= now) waiting.addLast(arriving.poll());
        step.clear();
        minHold = Long.MAX_VALUE;
        int budget = maxBatchedTokens;
        int decoding = 0;
        long context = 0;
        long prefill = 0;
        for (Sequence s : running) {
            s.stepPrefill = 0;
            s.stepDecode = false;
            if (s.holdUntilNanos > now) {
                minHold = Math.min(minHold, s.holdUntilNanos);
                continue;
            }
            if (s.steps == 0) {
                if (budget <= 0 && s.prefillRemaining > 0) continue;
                int chunk = Math.min(budget, s.prefillRemaining);
                s.stepPrefill = chunk;
                budget -= chunk;
                prefill += chunk;
                step.add(s);
            } else {
                if (budget < s.width) continue;
                budget -= s.width;
                s.stepDecode = true;
                decoding += s.width;
                context += (long) s.promptTokens + s.tokensAfter(s.steps);
                step.add(s);
            }
        }
        while (!waiting.isEmpty()) {
            Sequence s = waiting.peekFirst();
            if (runningWidth + s.width > maxNumSeqs) break;
            if (capacityBlocks > 0 && reservedBlocks + s.kvBlocks > capacityBlocks) break;
            if (budget <= 0) break;
            waiting.pollFirst();
            queued.decrementAndGet();
            admit(s, now);
            if (s.holdUntilNanos > now) {
                minHold = Math.min(minHold, s.holdUntilNanos);
                continue;
            }
            int chunk = Math.min(budget, s.prefillRemaining);
            s.stepPrefill = chunk;
            budget -= chunk;
            prefill += chunk;
            step.add(s);
        }
        // after admission: a request is refused for its wait only when it still finds no slot, never because this
        // thread ran late (a starved scheduler on a busy machine found free slots and refused requests 200 ms old)
        if (maxWaitNanos > 0) {
            while (!waiting.isEmpty() && now - waiting.peekFirst().arrivalNanos > maxWaitNanos) {
                Sequence s = waiting.pollFirst();
                queued.decrementAndGet();
                metrics.rejected("queue_timeout");
                end(s, Sequence.End.QUEUE_TIMEOUT);
            }
        }
        stepDecoding = decoding;
        publishGauges();
        if (step.isEmpty()) return -1;
        return model.stepNanos(decoding, context, prefill);
    }

    /** The earliest instant at which {@link #plan} could find work without news (Long.MAX_VALUE: none). */
    long nextWakeNanos() {
        long t = minHold;
        if (!arriving.isEmpty()) t = Math.min(t, arriving.peek().readyNanos);
        if (maxWaitNanos > 0 && !waiting.isEmpty()) t = Math.min(t, waiting.peekFirst().arrivalNanos + maxWaitNanos + 1);
        return t;
    }

    /** Applies the results of the step planned last, which ends at {@code end}. */
    void complete(long end) {
        metrics.steps.increment();
        if (stepDecoding > 0) metrics.lastDecodeStepNanos = end - stepStart;
        boolean anyEnded = false;
        for (int i = 0, n = step.size(); i < n; i++) {
            Sequence s = step.get(i);
            if (s.cancelled) continue; // gone since the step began: it produces nothing more
            if (s.steps == 0) {
                s.prefillRemaining -= s.stepPrefill;
                if (s.prefillRemaining > 0) continue;
                s.steps = 1;
                s.firstTokenReadyNanos = end;
                metrics.ttft.observeNanos(end - s.arrivalNanos);
            } else {
                s.steps++;
                metrics.itl.observeNanos(end - s.lastTokenNanos);
            }
            metrics.generationTokens.add(s.tokensAfter(s.steps) - s.tokensAfter(s.steps - 1));
            s.lastTokenNanos = end;
            s.publishedSteps = s.steps;
            if (s.steps >= s.maxLength) {
                Sequence.End how = s.naturalEnd();
                if (how == Sequence.End.FINISHED) cacheReply(s);
                release(s);
                if (how == Sequence.End.FINISHED) {
                    if ("length".equals(s.finishReasons[0])) metrics.successLength.increment();
                    else metrics.successStop.increment();
                    s.timings = new EngineTimings(s.promptTokens - s.cachedTokens,
                            (s.firstTokenReadyNanos - s.admittedNanos) / 1e6, s.tokensOf(0, s.steps),
                            (end - s.firstTokenReadyNanos) / 1e6, s.cachedTokens);
                }
                metrics.e2e.observeNanos(end - s.arrivalNanos);
                anyEnded = true;
                s.end = how; // published below, once the gauges no longer count it
            } else {
                if (s.fault.chunkDelayMs() > 0) s.holdUntilNanos = end + s.fault.chunkDelayMs() * 1_000_000L;
                publisher.accept(s);
            }
        }
        if (!anyEnded) {
            publishGauges();
            return;
        }
        // a client that has its whole reply must find /metrics no longer counting it as running
        ArrayList<Sequence> ended = new ArrayList<>();
        running.removeIf(s -> s.end != Sequence.End.NONE && ended.add(s));
        publishGauges();
        ended.forEach(publisher);
    }

    private void admit(Sequence s, long now) {
        int cached = 0;
        if (cache != null) {
            PrefixCache.Lease[] leases = new PrefixCache.Lease[s.width];
            for (int c = 0; c < s.width; c++) {
                leases[c] = cache.acquire(s.promptIds[c]);
                cached += leases[c].cachedTokens();
            }
            s.leases = leases;
            metrics.prefixQueries.add(s.promptTokens);
            metrics.prefixHits.add(cached);
        }
        reservedBlocks += s.kvBlocks;
        runningWidth += s.width;
        if (cache != null && capacityBlocks > 0) cache.trimFree((int) Math.max(0, capacityBlocks - reservedBlocks));
        s.cachedTokens = cached;
        s.prefillRemaining = s.promptTokens - cached;
        s.admittedByEngine = true;
        s.admittedNanos = now;
        if (s.fault.firstChunkDelayMs() > 0) s.holdUntilNanos = now + s.fault.firstChunkDelayMs() * 1_000_000L;
        metrics.promptTokens.add(s.promptTokens);
        metrics.cachedTokens.add(cached);
        metrics.queueTime.observeNanos(Math.max(0, now - s.readyNanos));
        running.add(s);
        s.publishedCachedTokens = cached;
        s.admitted = true;
        publisher.accept(s);
    }

    /**
     * Keeps the finished reply's full blocks in the prefix cache after its prompt's, as vLLM and SGLang do. All reply
     * tokens but the last have KV: the last was sampled and never fed back. So a next turn that re-sends prompt +
     * reply hits floor((prompt + reply − 1) / block) blocks of it.
     */
    private void cacheReply(Sequence s) {
        if (s.leases == null || s.replyTokens == null) return;
        for (int c = 0; c < s.width; c++) {
            int computed = s.lengths[c] - 1;
            if (computed > 0) cache.extend(s.leases[c], s.promptIds[c], s.replyTokens.ids(c, computed));
        }
    }

    private void release(Sequence s) {
        if (!s.admittedByEngine) return;
        s.admittedByEngine = false;
        if (s.leases != null) for (PrefixCache.Lease l : s.leases) cache.release(l);
        reservedBlocks -= s.kvBlocks;
        runningWidth -= s.width;
    }

    private void end(Sequence s, Sequence.End how) {
        s.end = how;
        publisher.accept(s);
    }

    private void purgeCancelled() {
        queued.addAndGet(-(dropCancelled(inbox) + dropCancelled(arriving) + dropCancelled(waiting)));
        running.removeIf(s -> {
            if (!s.cancelled) return false;
            release(s);
            return true;
        });
    }

    private static int dropCancelled(java.util.Collection<Sequence> queue) {
        int before = queue.size();
        queue.removeIf(s -> s.cancelled);
        return before - queue.size();
    }

    private void publishGauges() {
        metrics.running = running.size();
        metrics.waiting = queued.get();
        metrics.kvUsage = capacityBlocks > 0 ? (double) reservedBlocks / capacityBlocks : 0;
    }

    /** Ends everything still queued or running (server shutdown). */
    void shutdown() {
        for (Sequence s; (s = inbox.poll()) != null; ) arriving.add(s);
        for (Sequence s : arriving) end(s, Sequence.End.SHUTDOWN);
        for (Sequence s : waiting) end(s, Sequence.End.SHUTDOWN);
        for (Sequence s : running) {
            release(s);
            end(s, Sequence.End.SHUTDOWN);
        }
        arriving.clear();
        waiting.clear();
        running.clear();
        queued.set(0);
    }
}
