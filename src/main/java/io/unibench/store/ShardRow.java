package io.unibench.store;

/**
 * One shard of a run group as the store keeps it ({@code run_shards}, migration V12).
 *
 * @param runId          the shard's run, or null while it has none (waiting at the barrier, or killed before
 *                       {@code perf} linked it: {@link ShardRegistry#runOf} then finds it by its owner)
 * @param firstIndex     the group-wide index of the shard's first request: its request {@code i} is the group's
 *                       {@code firstIndex + i}
 * @param registeredAt   epoch ms on the database's clock
 * @param clock          the shard's clock against the database's
 * @param selfCheck      {@code ok}, or {@code client-bound: …} (the self-check's warning); null until it ended
 * @param endedAt        epoch ms on the database's clock; null until it ended
 */
public record ShardRow(String group, int index, int count, String runId, String status, long firstIndex,
                       long registeredAt, ClockOffset clock, Owner owner, String selfCheck, Long endedAt) {
    public static final String REGISTERED = "registered";
    public static final String RUNNING = "running";
    public static final String SELF_CHECK_OK = "ok";
    public static final String CLIENT_BOUND = "client-bound";

    /** {@code I/N}, as {@code --shard} takes it. */
    public String label() {
        return index + "/" + count;
    }

    public boolean clientBound() {
        return selfCheck != null && selfCheck.startsWith(CLIENT_BOUND);
    }
}
