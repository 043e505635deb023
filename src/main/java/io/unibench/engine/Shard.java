package io.unibench.engine;

import io.unibench.BadInputException;

/**
 * Shard {@code index} of {@code count} ({@code --shard I/N}): which deterministic slice of one benchmark this process
 * runs, so that the N shards together are the one-machine run. A total T (requests, conversations, concurrency) is
 * cut into N contiguous blocks whose sizes differ by at most one, the first {@code T mod N} blocks one larger: shard
 * I takes {@link #share} items starting at {@link #first}. No index is in two blocks and none is left out, whatever
 * T and N (a property test checks it). A rate λ is split evenly, λ/N each: independent Poisson processes of rate
 * λ/N superpose to one of rate λ, as long as their seeds differ (each shard's arrival seed is offset by its
 * {@link #first} dataset index, so it does). A recorded trace is dealt instead of cut ({@link #dealt}): its rows keep
 * their times, so every shard sends about 1/N of the trace's load at each moment of it.
 */
public record Shard(int index, int count) {
    /** The whole run, as without {@code --shard}. */
    public static final Shard WHOLE = new Shard(0, 1);

    public Shard {
        if (count < 1) throw new IllegalArgumentException("shard count must be ≥ 1: " + count);
        if (index < 0 || index >= count) throw new IllegalArgumentException("shard index " + index + " of " + count);
    }

    /** {@code I/N} as the flag takes it; bad input names the flag. */
    public static Shard parse(String flag, String text) {
        int slash = text.indexOf('/');
        try {
            if (slash > 0) {
                int index = Integer.parseInt(text.substring(0, slash).strip());
                int count = Integer.parseInt(text.substring(slash + 1).strip());
                if (count >= 1 && index >= 0 && index < count) return new Shard(index, count);
            }
        } catch (NumberFormatException ignored) {
            // the message below says what the flag takes
        }
        throw new BadInputException(flag + " '" + text + "': expected I/N with 0 ≤ I < N (e.g. 0/4 … 3/4)");
    }

    /** How many of {@code total} items this shard takes. */
    public long share(long total) {
        return total / count + (index < total % count ? 1 : 0);
    }

    /** The 0-based index, among {@code total}, of this shard's first item. */
    public long first(long total) {
        return index * (total / count) + Math.min(index, total % count);
    }

    /**
     * The index of this shard's {@code j}-th item when items are dealt in turn, item k to shard k mod N (a recorded
     * trace's rows, which keep their times): shard I takes rows I, I + N, I + 2N, …, {@link #share} of them. Cut into
     * contiguous blocks, one shard would send a whole stretch of the trace alone.
     */
    public long dealt(long j) {
        return index + j * count;
    }

    /** This shard's part of a rate λ (per second). */
    public double rate(double total) {
        return total / count;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
