package io.unibench.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.unibench.client.ClientResult;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RequestRecord.CacheSource;
import io.unibench.workload.Turn;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A dataset's conversations, each turn carrying the whole history, the model's actual replies included
 * (evalscope's {@code MultiTurnStrategy}). Claimed in dataset order from the pool, cycling; the budget counter,
 * the pool's cursor and the {@link ClaimListener} move together under one lock, so concurrent workers never exceed
 * the budget and listeners see claims in order. A failed turn ends its conversation (abandoned); nothing of it is
 * carried further. Every turn's record carries the conversation id, turn index, whether it ends the conversation,
 * and the cached prompt tokens: the server's {@code cached_tokens} when reported, else the previous turn's prompt +
 * completion tokens (0 on the first turn), labelled as an estimate.
 */
final class MultiTurns implements Conversations {
    private final MultiTurnPlan plan;
    private final ConversationPool pool;
    private final ConversationRequests requests;
    private final RecordFactory records;
    private final ClaimListener listener;
    private final Pauser toolPauses;
    private final Clock clock;
    private final int budget;
    private final boolean warmup;
    private final long seed;
    private final SplittableRandom[] thinkRngs; // one per closed-loop worker: its conversations run one by one
    private final AtomicLong requestIndex = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private long claimed; // guarded by lock

    MultiTurns(MultiTurnPlan plan, ConversationPool pool, ConversationRequests requests, RecordFactory records,
               ClaimListener listener, Pauser toolPauses, Clock clock, int budget, boolean warmup, long seed) {
        this.plan = plan;
        this.pool = pool;
        this.requests = requests;
        this.records = records;
        this.listener = listener;
        this.toolPauses = toolPauses;
        this.clock = clock;
        this.budget = budget;
        this.warmup = warmup;
        this.seed = seed;
        this.thinkRngs = new SplittableRandom[plan.load().parallel()];
    }

    @Override
    public Conversation claim(int worker) {
        long sequence;
        int index;
        lock.lock();
        try {
            if (claimed >= budget) return null;
            sequence = claimed++;
            index = pool.nextIndex();
            // told under the lock, so listeners see claims in the order they were made
            listener.claimed(warmup, worker, sequence, index);
        } finally {
            lock.unlock();
        }
        // a lazy dataset synthesizes it here, unlocked
        return new Dialogue(sequence, pool.get(index).turns(), worker < 0 ? null : thinkRng(worker));
    }

    private SplittableRandom thinkRng(int worker) {
        SplittableRandom rng = thinkRngs[worker]; // only worker's own thread reads and writes its slot
        if (rng == null) rng = thinkRngs[worker] = new SplittableRandom(seed * 1_000_003L + worker);
        return rng;
    }

    @Override
    public long claimed() {
        lock.lock();
        try {
            return claimed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean oneTurnEach() {
        return false;
    }

    private final class Dialogue implements Conversation {
        private final long sequence;
        private final String id;
        private final List<Turn> turns;
        private final int limit;
        private final SplittableRandom thinkRng;
        private final ArrayNode history = JsonNodeFactory.instance.arrayNode();
        private int t;
        private boolean ended;
        private long prevPrompt;
        private long prevCompletion;

        Dialogue(long sequence, List<Turn> turns, SplittableRandom thinkRng) {
            this.sequence = sequence;
            this.id = (warmup ? "warmup-" : "bench-") + sequence;
            this.turns = turns;
            this.limit = plan.maxTurns() == null ? turns.size() : Math.min(turns.size(), plan.maxTurns());
            this.thinkRng = thinkRng;
        }

        @Override
        public long sequence() {
            return sequence;
        }

        @Override
        public PreparedRequest nextTurn() throws InterruptedException {
            if (ended || t >= limit) return null;
            Turn turn = turns.get(t);
            // the trace's tool-call time, scaled by --tool-latency-scale (0 removes the idle gaps)
            long toolNanos = turn.toolCallLatencySeconds() == null ? 0
                    : (long) (turn.toolCallLatencySeconds() * plan.toolLatencyScale() * 1e9);
            if (toolNanos > 0 && toolPauses.pause(id, t, toolNanos)) return end();
            history.addAll(turn.messages());
            if (plan.thinkTime() && thinkRng != null) {
                double pause = -Math.log(1.0 - thinkRng.nextDouble()) / plan.load().rate();
                if (!clock.awaitUntil(clock.nanoTime() + (long) (pause * 1e9))) return end();
            }
            return requests.prepare(requestIndex.getAndIncrement(), id, sequence, t, history, turn.maxTokens());
        }

        private PreparedRequest end() {
            ended = true;
            return null;
        }

        @Override
        public RequestRecord record(PreparedRequest request, ClientResult result, long scheduledNanos,
                                    long epochMillis) {
            Turn turn = turns.get(t);
            RequestRecord base = records.record(request.sequence(), request, result, scheduledNanos, epochMillis);
            int cached = -1;
            CacheSource source = null;
            if (base.promptTokens() > 0) {
                if (base.cachedTokens() >= 0) {
                    cached = base.cachedTokens();
                    source = CacheSource.SERVER;
                } else {
                    // evalscope's estimate: everything before this turn's new messages could be cached
                    cached = (int) Math.min(Integer.MAX_VALUE, prevPrompt + prevCompletion);
                    source = CacheSource.ESTIMATE;
                }
            }
            if (base.promptTokens() > 0) prevPrompt = base.promptTokens();
            if (base.completionTokens() > 0) prevCompletion = base.completionTokens();
            boolean last = t == limit - 1 || !result.success();
            RequestRecord record = base.withTurn(id, t, last, cached, source)
                    .withPromptLengths(turn.targetTokens(), turn.targetTokens() >= 0 ? turn.actualTokens() : -1);
            if (!result.success()) ended = true; // abandoned: the worker takes a new conversation
            else history.addObject().put("role", "assistant").put("content", result.generatedText());
            t++;
            return record;
        }
    }
}
