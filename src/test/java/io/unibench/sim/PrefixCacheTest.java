package io.unibench.sim;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class PrefixCacheTest {

    /** Tokens {@code from, from+1, ..., from+n-1}: distinct ranges give distinct blocks. */
    private static int[] tokens(int from, int n) {
        return IntStream.range(from, from + n).toArray();
    }

    private static int[] concat(int[] a, int[] b) {
        return IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray();
    }

    private static int cachedAfter(PrefixCache cache, int[] prompt) {
        PrefixCache.Lease lease = cache.acquire(prompt);
        cache.release(lease);
        return lease.cachedTokens();
    }

    @Test
    void sharedPrefixHitsWholeBlocksOnly() {
        PrefixCache cache = new PrefixCache(16, 1000);
        int[] prefix = tokens(0, 100);
        assertThat(cachedAfter(cache, concat(prefix, tokens(1000, 30)))).isZero();
        // 100 common tokens = 6 full blocks of 16 (96 tokens); the 7th block differs.
        assertThat(cachedAfter(cache, concat(prefix, tokens(2000, 30)))).isEqualTo(96);
    }

    @Test
    void aReplysBlocksContinueItsPromptsChainSoTheNextTurnHitsThem() {
        PrefixCache cache = new PrefixCache(16, 1000);
        int[] prompt = tokens(0, 40); // 2 full blocks and 8 tokens of a third
        int[] reply = tokens(500, 30); // completes the third block, fills a fourth, 6 left over
        PrefixCache.Lease lease = cache.acquire(prompt);
        cache.extend(lease, prompt, reply);
        assertThat(lease.heldBlocks()).isEqualTo(4);
        cache.release(lease);
        long[] keys = cache.blockKeys(concat(prompt, reply));
        for (long k : keys) assertThat(cache.contains(k)).isTrue();
        // the next turn: prompt + reply + a new message; 4 blocks = 64 tokens cached (the prompt alone gave 32)
        assertThat(cachedAfter(cache, concat(concat(prompt, reply), tokens(900, 20)))).isEqualTo(64);
    }

    @Test
    void aReplyIsNotCachedWhenItsPromptsChainIsBrokenOrItsLeaseReleased() {
        PrefixCache full = new PrefixCache(16, 1); // room for one of the prompt's two blocks
        int[] prompt = tokens(0, 32);
        PrefixCache.Lease partial = full.acquire(prompt);
        assertThat(partial.heldBlocks()).isEqualTo(1);
        full.extend(partial, prompt, tokens(500, 16));
        assertThat(partial.heldBlocks()).isEqualTo(1);

        PrefixCache cache = new PrefixCache(16, 1000);
        PrefixCache.Lease lease = cache.acquire(prompt);
        cache.release(lease);
        cache.extend(lease, prompt, tokens(500, 16));
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void blockKeysAreChainedOnTheWholePrefix() {
        PrefixCache cache = new PrefixCache(4, 1000);
        long[] a = cache.blockKeys(new int[]{1, 2, 3, 4, 5, 6, 7, 8});
        long[] b = cache.blockKeys(new int[]{9, 2, 3, 4, 5, 6, 7, 8});
        assertThat(a).hasSize(2);
        assertThat(a[1]).as("same second block, different parent").isNotEqualTo(b[1]);
        assertThat(cache.blockKeys(new int[]{1, 2, 3, 4, 5, 6, 7})).hasSize(1).containsExactly(a[0]);
    }

    @Test
    void repeatedPromptRecomputesItsLastTokenLikeVllm() {
        PrefixCache cache = new PrefixCache(16, 1000);
        int[] prompt = tokens(0, 64); // exactly 4 blocks
        cachedAfter(cache, prompt);
        assertThat(cachedAfter(cache, prompt)).isEqualTo(48); // floor((64 - 1) / 16) * 16
        int[] longer = tokens(0, 65);
        assertThat(cachedAfter(cache, longer)).isEqualTo(64);
    }

    @Test
    void hitsStopAtTheFirstMissingBlock() {
        PrefixCache cache = new PrefixCache(4, 1000);
        int[] prompt = tokens(0, 13); // blocks k0 k1 k2
        long[] keys = cache.blockKeys(prompt);
        cachedAfter(cache, prompt);
        assertThat(cache.invalidate(keys[0])).isTrue();
        assertThat(cache.contains(keys[1])).isTrue();
        assertThat(cache.contains(keys[2])).isTrue();
        // The llm-d simulator bug (#705) would report 8 here; vLLM's longest-consecutive-prefix rule gives 0.
        assertThat(cachedAfter(cache, prompt)).isZero();
    }

    @Test
    void leastRecentlyReleasedBlocksAreEvictedAtCapacity() {
        PrefixCache cache = new PrefixCache(2, 4);
        int[] a = tokens(0, 5);   // 2 blocks
        int[] b = tokens(100, 5); // 2 blocks
        int[] c = tokens(200, 5); // 2 blocks
        cachedAfter(cache, a);
        cachedAfter(cache, b);
        assertThat(cache.size()).isEqualTo(4);
        cachedAfter(cache, c); // full: evicts a's two blocks, the least recently released
        assertThat(cache.size()).isEqualTo(4);
        assertThat(cachedAfter(cache, b)).isEqualTo(4);
        assertThat(cachedAfter(cache, a)).isZero(); // and now a evicts c (b was touched after c)
        assertThat(cachedAfter(cache, b)).isEqualTo(4);
        assertThat(cachedAfter(cache, c)).isZero();
    }

    @Test
    void releaseEvictsTailFirstSoPrefixesStayReachable() {
        PrefixCache cache = new PrefixCache(2, 3);
        int[] a = tokens(0, 7); // 3 blocks: a0 a1 a2
        long[] keys = cache.blockKeys(a);
        cachedAfter(cache, a);
        cachedAfter(cache, tokens(100, 3)); // one new block: evicts a's DEEPEST block first
        assertThat(cache.contains(keys[2])).isFalse();
        assertThat(cache.contains(keys[0])).isTrue();
        assertThat(cache.contains(keys[1])).isTrue();
        assertThat(cachedAfter(cache, a)).isEqualTo(4);
    }

    @Test
    void pinnedBlocksAreNeverEvicted() {
        PrefixCache cache = new PrefixCache(2, 2);
        PrefixCache.Lease running = cache.acquire(tokens(0, 5)); // pins 2 blocks = full capacity
        PrefixCache.Lease other = cache.acquire(tokens(100, 5));
        assertThat(other.heldBlocks()).as("no room: not cached").isZero();
        cache.release(other);
        cache.release(running);
        cache.release(running); // idempotent
        assertThat(cachedAfter(cache, tokens(0, 5))).isEqualTo(4);
    }

    @Test
    void zeroCapacityCachesNothing() {
        PrefixCache cache = new PrefixCache(2, 0);
        cachedAfter(cache, tokens(0, 9));
        assertThat(cachedAfter(cache, tokens(0, 9))).isZero();
        assertThat(cache.size()).isZero();
    }
}
