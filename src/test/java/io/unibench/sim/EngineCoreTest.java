package io.unibench.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler in virtual time: the test is the clock (plan at t, complete at t + duration), so every assertion
 * is exact and independent of machine speed.
 */
class EngineCoreTest {
    private static final long MS = 1_000_000L;

    /** Drives an EngineCore through virtual time, recording what it publishes. */
    private static final class Engine {
        final SimMetrics metrics = new SimMetrics();
        final List<Sequence> published = new ArrayList<>();
        final PrefixCache cache;
        final EngineCore core;
        final SimConfig config;
        long now = 1_000 * MS;
        final List<Long> decodeSteps = new ArrayList<>();

        Engine(SimConfig config) {
            this.config = config;
            this.cache = config.scheduling().prefixCaching() && config.cacheCapacityBlocks() > 0
                    ? new PrefixCache(config.blockSize(), config.cacheCapacityBlocks()) : null;
            this.core = new EngineCore(config, cache, metrics, published::add);
        }

        Sequence seq(int[] prompt, int outputTokens) {
            return seq(prompt, outputTokens, FaultSpec.NONE);
        }

        Sequence seq(int[] prompt, int outputTokens, FaultSpec fault) {
            SimRequest request = new SimRequest(false, "m", List.of(SimRequest.PromptInput.ofTokens(prompt)), true,
                    false, outputTokens, 0, true, null, List.of());
            return new Sequence(request, new int[][]{prompt}, new int[]{outputTokens}, new String[]{"length"}, fault,
                    now, Math.round(config.ttftMs() * MS), config.blockSize(), null, null);
        }

        /** One step if there is work (returns true), else jumps the clock to the next due instant (false). */
        boolean step() {
            long d = core.plan(now);
            if (d < 0) {
                long next = core.nextWakeNanos();
                if (next != Long.MAX_VALUE) now = Math.max(now, next);
                return false;
            }
            now += d;
            core.complete(now);
            if (metrics.lastDecodeStepNanos > 0 && d == metrics.lastDecodeStepNanos) decodeSteps.add(d);
            return true;
        }

        /** Steps until nothing runs or waits; bounded. */
        void drain() {
            for (int i = 0; i < 100_000 && (core.runningCount() > 0 || core.waitingCount() > 0); i++) step();
            assertThat(core.runningCount() + core.waitingCount()).as("engine drained").isZero();
        }

        /** Steps until {@code seq} has its first token; returns that instant. */
        long untilFirstToken(Sequence seq) {
            for (int i = 0; i < 100_000 && seq.steps == 0 && seq.end == Sequence.End.NONE; i++) step();
            assertThat(seq.steps).isGreaterThan(0);
            return seq.lastTokenNanos;
        }
    }

    private static int[] prompt(int start, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) p[i] = start + i;
        return p;
    }

    private static SimConfig base() {
        return SimConfig.defaults().with(Map.of("ttft-ms", 20, "prefill-ms-per-token", 0.5, "itl-ms", 10,
                "decode-ms-per-seq", 0));
    }

    @Test
    void atLowLoadTtftIsOverheadPlusUncachedPrefillAndTokensComeEveryItl() {
        Engine e = new Engine(base());
        long arrival = e.now;
        Sequence s = e.seq(prompt(100, 40), 5);
        assertThat(e.core.offer(s)).isTrue();
        long first = e.untilFirstToken(s);
        assertThat(first - arrival).isEqualTo(20 * MS + 40 * MS / 2);
        e.drain();
        assertThat(s.end).isEqualTo(Sequence.End.FINISHED);
        assertThat(s.lastTokenNanos - first).isEqualTo(4 * 10 * MS);
        assertThat(e.metrics.generationTokens.sum()).isEqualTo(5);
    }

    @Test
    void theEnginesOwnTimingsArePrefillAndDecodeOnItsClock() {
        Engine e = new Engine(base());
        Sequence s = e.seq(prompt(100, 40), 5);
        e.core.offer(s);
        e.drain();
        // prefill 40 × 0.5 ms from admission (the 20 ms API overhead is before it, outside the engine); then 4 steps
        assertThat(s.timings).isEqualTo(new EngineTimings(40, 20.0, 5, 40.0, 0));

        Sequence again = e.seq(prompt(100, 40), 5); // the same prompt: 32 tokens (2 blocks) from the prefix cache
        e.core.offer(again);
        e.drain();
        assertThat(again.timings).isEqualTo(new EngineTimings(8, 4.0, 5, 40.0, 32));
        assertThat(again.timings.json()).contains("\"prompt_n\":8,\"prompt_ms\":4.0", "\"predicted_ms\":40.0",
                "\"cache_n\":32");
    }

    @Test
    void longPromptsArePrefilledInChunksOfTheStepBudget() {
        Engine e = new Engine(base().with("max-num-batched-tokens", 100));
        long arrival = e.now;
        Sequence s = e.seq(prompt(1, 250), 2);
        e.core.offer(s);
        long first = e.untilFirstToken(s);
        assertThat(e.metrics.steps.sum()).isEqualTo(3); // 100 + 100 + 50 tokens
        assertThat(first - arrival).isEqualTo(20 * MS + 250 * MS / 2); // chunking does not change the total alone
    }

    @Test
    void decodeStepTimeRisesWithTheNumberOfRunningSequencesAsConfigured() {
        SimConfig c = base().with(Map.of("itl-ms", 10, "decode-ms-per-seq", 1.0, "decode-ms-per-1k-context", 0,
                "prefill-ms-per-token", 0, "ttft-ms", 0));
        for (int n : new int[]{1, 4, 16}) {
            Engine e = new Engine(c);
            for (int i = 0; i < n; i++) e.core.offer(e.seq(prompt(1000 * i, 8), 6));
            e.step(); // prefill step: every sequence gets its first token
            e.step(); // a pure decode step
            assertThat(e.metrics.lastDecodeStepNanos).as("decode step with %d sequences", n)
                    .isEqualTo(Math.round((10 + 1.0 * (n - 1)) * MS));
            e.drain();
        }
        // and with the context term: 2 sequences of 8-token prompts, one token each so far = 18 context tokens
        Engine e = new Engine(c.with(Map.of("decode-ms-per-seq", 0, "decode-ms-per-1k-context", 100)));
        e.core.offer(e.seq(prompt(1, 8), 4));
        e.core.offer(e.seq(prompt(50, 8), 4));
        e.step();
        e.step();
        assertThat(e.metrics.lastDecodeStepNanos).isEqualTo(Math.round((10 + 100 * 18 / 1000.0) * MS));
    }

    @Test
    void prefillInAStepStallsTheDecodesOfThatStep() {
        SimConfig c = base().with(Map.of("ttft-ms", 0, "prefill-ms-per-token", 0.5));
        Engine e = new Engine(c);
        Sequence a = e.seq(prompt(1, 10), 10);
        e.core.offer(a);
        e.untilFirstToken(a);
        e.core.offer(e.seq(prompt(500, 100), 3)); // joins while a decodes
        long before = e.now;
        e.step();
        assertThat(e.now - before).isEqualTo(10 * MS + 100 * MS / 2); // a's ITL includes b's prefill
    }

    @Test
    void queueRejectsWhenFullExpiresAfterMaxWaitAndDrainsToZero() {
        SimConfig c = base().with(Map.of("max-num-seqs", 1, "max-queue", 2, "max-queue-wait-ms", 100, "ttft-ms", 0));
        Engine e = new Engine(c);
        Sequence running = e.seq(prompt(1, 4), 30); // 30 steps of 10 ms: longer than the max wait
        Sequence w1 = e.seq(prompt(100, 4), 2);
        assertThat(e.core.offer(running)).isTrue();
        e.step();
        assertThat(e.core.offer(w1)).isTrue();
        Sequence w2 = e.seq(prompt(200, 4), 2);
        assertThat(e.core.offer(w2)).isTrue();
        assertThat(e.core.offer(e.seq(prompt(300, 4), 2))).as("third waiting request: queue full").isFalse();
        assertThat(e.core.waitingCount()).isEqualTo(2);
        for (int i = 0; i < 1000 && w2.end == Sequence.End.NONE; i++) e.step();
        assertThat(w1.end).isEqualTo(Sequence.End.QUEUE_TIMEOUT);
        assertThat(w2.end).isEqualTo(Sequence.End.QUEUE_TIMEOUT);
        // refused at the first step start after 100 ms of waiting; the clock here is at the end of that step
        // (steps are 10 ms), so at most two steps past the limit
        assertThat(e.now - w2.arrivalNanos).isGreaterThan(100 * MS).isLessThanOrEqualTo(100 * MS + 20 * MS);
        assertThat(running.end).isEqualTo(Sequence.End.NONE);
        assertThat(e.metrics.rejected.get("queue_timeout").sum()).isEqualTo(2);
        e.drain();
        assertThat(running.end).isEqualTo(Sequence.End.FINISHED);
        assertThat(e.metrics.waiting).isZero();
        assertThat(e.metrics.running).isZero();
    }

    /** The scheduler thread ran late (a busy machine): a request that finds a free slot then is admitted, not refused. */
    @Test
    void aRequestOlderThanTheMaxWaitThatFindsAFreeSlotIsAdmitted() {
        SimConfig c = base().with(Map.of("max-num-seqs", 2, "max-queue", 2, "max-queue-wait-ms", 200, "ttft-ms", 0));
        Engine e = new Engine(c);
        Sequence late = e.seq(prompt(1, 4), 2);
        assertThat(e.core.offer(late)).isTrue();
        e.now += 300 * MS; // the first step runs 300 ms after the request arrived
        e.drain();
        assertThat(late.end).isEqualTo(Sequence.End.FINISHED);
        assertThat(e.metrics.rejected.get("queue_timeout")).isNull();
    }

    @Test
    void maxNumSeqsBoundsTheBatchAndWaitingRequestsRunWhenASlotFrees() {
        Engine e = new Engine(base().with(Map.of("max-num-seqs", 2, "ttft-ms", 0)));
        Sequence a = e.seq(prompt(1, 4), 3), b = e.seq(prompt(10, 4), 3), c = e.seq(prompt(20, 4), 3);
        e.core.offer(a);
        e.core.offer(b);
        e.core.offer(c);
        e.step();
        assertThat(e.metrics.running).isEqualTo(2);
        assertThat(e.metrics.waiting).isEqualTo(1);
        assertThat(c.admitted).isFalse();
        e.drain();
        assertThat(c.end).isEqualTo(Sequence.End.FINISHED);
        assertThat(c.arrivalNanos).isLessThan(a.lastTokenNanos); // c ran only after a slot freed
    }

    @Test
    void kvCapacityBoundsAdmission() {
        // 8 blocks of 4 tokens: each request needs (8 prompt + 8 output) / 4 = 4 blocks, so two run at once
        Engine e = new Engine(base().with(Map.of("block-size", 4, "kv-cache-blocks", 8, "ttft-ms", 0)));
        for (int i = 0; i < 3; i++) e.core.offer(e.seq(prompt(100 * i, 8), 8));
        e.step();
        assertThat(e.metrics.running).isEqualTo(2);
        assertThat(e.metrics.kvUsage).isEqualTo(1.0);
        e.drain();
        assertThat(e.metrics.kvUsage).isZero();
    }

    @Test
    void cancelledSequenceLeavesAtTheNextStepAndProducesNothingMore() {
        Engine e = new Engine(base().with("ttft-ms", 0));
        Sequence gone = e.seq(prompt(1, 8), 1000);
        Sequence stays = e.seq(prompt(50, 8), 1000);
        e.core.offer(gone);
        e.core.offer(stays);
        for (int i = 0; i < 5; i++) e.step();
        assertThat(e.metrics.running).isEqualTo(2);
        int stepsAtCancel = gone.steps;
        e.core.cancel(gone);
        long tokensBefore = e.metrics.generationTokens.sum();
        for (int i = 0; i < 10; i++) e.step();
        assertThat(e.metrics.running).isEqualTo(1);
        assertThat(gone.steps).isEqualTo(stepsAtCancel);
        assertThat(e.metrics.generationTokens.sum() - tokensBefore).isEqualTo(10); // only `stays`
        e.core.cancel(stays);
        e.step();
        assertThat(e.metrics.running).isZero();
        assertThat(e.metrics.kvUsage).isZero();
    }

    @Test
    void cachedPrefixSkipsPrefillSoTheNextTurnHasAShorterTtft() {
        Engine e = new Engine(base().with(Map.of("block-size", 16, "prefill-ms-per-token", 1.0)));
        int[] turn1 = prompt(1, 100);
        Sequence a = e.seq(turn1, 4);
        long t0 = e.now;
        e.core.offer(a);
        long ttft1 = e.untilFirstToken(a) - t0;
        e.drain();
        // turn 2 = turn 1 + reply + a new question: 100 shared tokens, 96 of them in whole blocks
        int[] turn2 = new int[130];
        System.arraycopy(turn1, 0, turn2, 0, 100);
        for (int i = 100; i < 130; i++) turn2[i] = 9000 + i;
        Sequence b = e.seq(turn2, 4);
        long t1 = e.now;
        e.core.offer(b);
        long ttft2 = e.untilFirstToken(b) - t1;
        assertThat(b.cachedTokens).isEqualTo(96);
        assertThat(ttft1).isEqualTo(20 * MS + 100 * MS);
        assertThat(ttft2).isEqualTo(20 * MS + (130 - 96) * MS);
        assertThat(e.metrics.prefixHits.sum()).isEqualTo(96);
        assertThat(e.metrics.prefixQueries.sum()).isEqualTo(230);
    }

    @Test
    void runningSequencesEvictCachedBlocksLeastRecentlyUsedDeepestFirst() {
        // 10 blocks of 4 tokens. A (16 prompt + 4 out = 5 blocks) finishes: its 4 prompt blocks stay cached.
        Engine e = new Engine(base().with(Map.of("block-size", 4, "kv-cache-blocks", 10, "ttft-ms", 0)));
        int[] a = prompt(1, 16);
        e.core.offer(e.seq(a, 4));
        e.drain();
        assertThat(e.cache.freeBlocks()).isEqualTo(4);
        // B reserves 9 blocks (32 + 4): only 1 block of space is left for A's cached blocks
        Sequence b = e.seq(prompt(500, 32), 4);
        e.core.offer(b);
        e.step();
        assertThat(e.cache.freeBlocks()).isEqualTo(1); // 10 blocks - 9 reserved by B = room for 1 cached block
        e.drain();
        // A again: only its first block survived (tail-first eviction keeps the shared head longest)
        Sequence again = e.seq(a, 4);
        e.core.offer(again);
        e.step();
        assertThat(again.cachedTokens).isEqualTo(4);
        // without pressure the same request would hit 3 blocks (capped at n - 1 = 15 tokens)
        Engine roomy = new Engine(base().with(Map.of("block-size", 4, "kv-cache-blocks", 100, "ttft-ms", 0)));
        roomy.core.offer(roomy.seq(a, 4));
        roomy.drain();
        Sequence hit = roomy.seq(a, 4);
        roomy.core.offer(hit);
        roomy.step();
        assertThat(hit.cachedTokens).isEqualTo(12);
    }

    @Test
    void faultsCutTheSequenceAfterTheirChunkCount() {
        Engine e = new Engine(base().with("ttft-ms", 0));
        Sequence fail = e.seq(prompt(1, 4), 50, new FaultSpec(FaultKind.FAIL_MIDSTREAM, 0, 0, 3, 1, true));
        Sequence cut = e.seq(prompt(100, 4), 50, new FaultSpec(FaultKind.DISCONNECT, 0, 0, 2, 1, true));
        e.core.offer(fail);
        e.core.offer(cut);
        e.drain();
        assertThat(fail.end).isEqualTo(Sequence.End.FAULT_FAIL);
        assertThat(fail.steps).isEqualTo(3);
        assertThat(cut.end).isEqualTo(Sequence.End.FAULT_DISCONNECT);
        assertThat(cut.steps).isEqualTo(2);
    }

    @Test
    void chunkDelaysHoldASequenceWithoutStallingTheOthers() {
        Engine e = new Engine(base().with(Map.of("ttft-ms", 0, "prefill-ms-per-token", 0)));
        Sequence slow = e.seq(prompt(1, 4), 3, new FaultSpec(FaultKind.SLOW_CHUNKS, 100, 50, 0, 1, true));
        Sequence fast = e.seq(prompt(100, 4), 20);
        long t0 = e.now;
        e.core.offer(slow);
        e.core.offer(fast);
        e.drain();
        assertThat(fast.lastTokenNanos - t0).isEqualTo(19 * 10 * MS); // prefill 0 ms, then 19 decode steps
        assertThat(slow.lastTokenNanos - t0).isGreaterThanOrEqualTo(100 * MS + 2 * 50 * MS);
    }
}
