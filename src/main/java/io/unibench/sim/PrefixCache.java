package io.unibench.sim;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A KV prefix cache with vLLM's (v1) semantics, counting blocks only (no KV data).
 *
 * <ul>
 *   <li>A prompt's token ids are cut into FULL blocks of {@code blockSize} tokens; a partial tail block is never cached.</li>
 *   <li>A block's key is a 64-bit hash chained from its parent block's key and its own token ids, so equal keys
 *       mean equal prefixes (collision odds ~ blocks²/2⁶⁵, negligible at the capacities used here).</li>
 *   <li>Cached tokens = leading run of blocks already present × blockSize; the run stops at the first missing block.
 *       Like vLLM it is capped at {@code n − 1} tokens: the last prompt token is always recomputed to get logits,
 *       so an exactly repeated prompt whose length is a multiple of the block size hits one block less.</li>
 *   <li>An acquired request pins its blocks (reference count); pinned blocks are never evicted. On release, blocks
 *       whose count drops to 0 join the LRU free list tail-first (deepest block first), so a request's deepest block
 *       is evicted before its first one and shared prefixes stay reachable.</li>
 *   <li>A finished reply's full blocks join its prompt's ({@link #extend}), as vLLM and SGLang keep them: the next
 *       turn of a conversation re-sends prompt + reply and hits them.</li>
 *   <li>Capacity counts pinned + free blocks. A new block evicts the least recently released free block; when every
 *       block is pinned the request's remaining blocks are simply not cached.</li>
 * </ul>
 * Thread-safe: one lock, held for O(blocks of the request).
 */
final class PrefixCache {
    private static final long ROOT_KEY = 0x6A09E667F3BCC908L; // any fixed value; the parent of every first block

    private final int blockSize;
    private final int capacityBlocks;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Long, Block> blocks = new HashMap<>();
    /** Free (unpinned) blocks, least recently released at the head: the eviction order. */
    private final Block freeHead = new Block(0);
    private int freeCount;

    PrefixCache(int blockSize, int capacityBlocks) {
        if (blockSize < 1) throw new IllegalArgumentException("blockSize must be >= 1, got " + blockSize);
        if (capacityBlocks < 0) throw new IllegalArgumentException("capacityBlocks must be >= 0, got " + capacityBlocks);
        this.blockSize = blockSize;
        this.capacityBlocks = capacityBlocks;
        freeHead.prev = freeHead;
        freeHead.next = freeHead;
    }

    int blockSize() { return blockSize; }

    /** The chained keys of the full blocks of {@code tokens}. */
    long[] blockKeys(int[] tokens) {
        long[] keys = new long[tokens.length / blockSize];
        long parent = ROOT_KEY;
        for (int b = 0; b < keys.length; b++) {
            long h = parent;
            for (int i = b * blockSize, end = i + blockSize; i < end; i++) {
                // XOR of an injective image of the token, then a bijective mixer: distinct (parent, tokens) chains
                // only collide by chance of the 64-bit mixer.
                h = Mix.mix64(h ^ ((tokens[i] & 0xFFFF_FFFFL) * 0x9E37_79B9_7F4A_7C15L));
            }
            keys[b] = h;
            parent = h;
        }
        return keys;
    }

    /** Looks up and pins the prompt's blocks; release the returned lease when the request ends. */
    Lease acquire(int[] tokens) {
        long[] keys = blockKeys(tokens);
        int maxHitBlocks = tokens.length == 0 ? 0 : Math.min(keys.length, (tokens.length - 1) / blockSize);
        lock.lock();
        try {
            int hits = 0;
            while (hits < maxHitBlocks && blocks.containsKey(keys[hits])) hits++;
            long[] held = new long[keys.length];
            int heldCount = 0;
            for (long key : keys) {
                Block block = blocks.get(key);
                if (block == null) {
                    if (blocks.size() >= capacityBlocks && !evictOne()) break;
                    block = new Block(key);
                    blocks.put(key, block);
                } else if (block.refCount == 0) {
                    unlink(block);
                }
                block.refCount++;
                held[heldCount++] = key;
            }
            return new Lease(hits * blockSize, Arrays.copyOf(held, heldCount));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds to the lease the full blocks of {@code prompt} followed by {@code reply} beyond the prompt's own full
     * blocks: a finished reply's KV, kept as vLLM and SGLang keep it, so that the next turn of a conversation, whose
     * prompt repeats this prompt and reply, hits them. The keys continue the prompt's chain, so they equal the keys
     * of that next prompt's blocks when its tokens start with {@code prompt + reply}. Nothing is added when the
     * lease did not hold all of the prompt's full blocks (the cache was full: the chain is broken) or the lease was
     * released; the blocks stop where the cache cannot make room.
     */
    void extend(Lease lease, int[] prompt, int[] reply) {
        int promptBlocks = prompt.length / blockSize;
        int[] tokens = Arrays.copyOf(prompt, prompt.length + reply.length);
        System.arraycopy(reply, 0, tokens, prompt.length, reply.length);
        long[] keys = blockKeys(tokens);
        if (keys.length <= promptBlocks) return;
        lock.lock();
        try {
            if (lease.released || lease.heldKeys.length != promptBlocks) return;
            long[] held = Arrays.copyOf(lease.heldKeys, keys.length);
            int heldCount = promptBlocks;
            for (int b = promptBlocks; b < keys.length; b++) {
                Block block = blocks.get(keys[b]);
                if (block == null) {
                    if (blocks.size() >= capacityBlocks && !evictOne()) break;
                    block = new Block(keys[b]);
                    blocks.put(keys[b], block);
                } else if (block.refCount == 0) {
                    unlink(block);
                }
                block.refCount++;
                held[heldCount++] = keys[b];
            }
            lease.heldKeys = Arrays.copyOf(held, heldCount);
        } finally {
            lock.unlock();
        }
    }

    /** Unpins the lease's blocks, deepest first onto the free list. A second release of the same lease is a no-op. */
    void release(Lease lease) {
        lock.lock();
        try {
            if (lease.released) return;
            lease.released = true;
            for (int i = lease.heldKeys.length - 1; i >= 0; i--) {
                Block block = blocks.get(lease.heldKeys[i]);
                if (block != null && --block.refCount == 0) appendFree(block);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops one free block now (as an eviction would); false if it is absent or pinned. For tests and admin resets. */
    boolean invalidate(long key) {
        lock.lock();
        try {
            Block block = blocks.get(key);
            if (block == null || block.refCount > 0) return false;
            unlink(block);
            blocks.remove(key);
            return true;
        } finally {
            lock.unlock();
        }
    }

    boolean contains(long key) {
        lock.lock();
        try {
            return blocks.containsKey(key);
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return blocks.size();
        } finally {
            lock.unlock();
        }
    }

    /** Evicts least recently released free blocks until at most {@code maxFree} remain (KV space taken by running sequences). */
    void trimFree(int maxFree) {
        lock.lock();
        try {
            while (freeCount > maxFree && evictOne()) {
                // evictOne unlinks one block
            }
        } finally {
            lock.unlock();
        }
    }

    /** Cached blocks not pinned by any request. */
    int freeBlocks() {
        lock.lock();
        try {
            return freeCount;
        } finally {
            lock.unlock();
        }
    }

    private boolean evictOne() {
        Block victim = freeHead.next;
        if (victim == freeHead) return false;
        unlink(victim);
        blocks.remove(victim.key);
        return true;
    }

    private void appendFree(Block block) {
        freeCount++;
        block.prev = freeHead.prev;
        block.next = freeHead;
        freeHead.prev.next = block;
        freeHead.prev = block;
    }

    private void unlink(Block block) {
        freeCount--;
        block.prev.next = block.next;
        block.next.prev = block.prev;
        block.prev = null;
        block.next = null;
    }


    /** The blocks one request pinned and how many of its prompt tokens were already cached. */
    static final class Lease {
        private final int cachedTokens;
        private long[] heldKeys; // guarded by the cache lock once the lease exists
        private boolean released; // guarded by the cache lock

        private Lease(int cachedTokens, long[] heldKeys) {
            this.cachedTokens = cachedTokens;
            this.heldKeys = heldKeys;
        }

        int cachedTokens() { return cachedTokens; }

        int heldBlocks() { return heldKeys.length; } // read by the engine's thread after acquire or extend
    }

    private static final class Block {
        final long key;
        int refCount;
        Block prev;
        Block next;

        Block(long key) { this.key = key; }
    }
}
