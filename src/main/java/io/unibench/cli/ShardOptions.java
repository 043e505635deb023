package io.unibench.cli;

import picocli.CommandLine.Option;

/** The flags of a sharded run ({@link ShardRun}): a picocli mixin of {@link PerfOptions} and of {@code run}. */
public final class ShardOptions {
    @Option(names = "--shard", paramLabel = "I/N", description = "Run shard I (0 ≤ I < N) of one benchmark split over "
            + "N processes or machines: its share of --number, --parallel and --rate (λ/N each) and of the dataset "
            + "(a contiguous block of prompts or conversations, none in two shards). Needs --run-group and a run "
            + "history every shard writes to (PostgreSQL, or one SQLite file on one machine); `unibench runs merge G` "
            + "gives the one run (stored by itself as group:G once the last shard ends). perf: one sweep point only; "
            + "run --config: every level its share of the level's concurrency, requests and rate_limit, and the "
            + "levels start together on all shards. Default: not sharded.")
    String shard;

    @Option(names = "--run-group", paramLabel = "G", description = "Name every shard of one sharded run gives "
            + "(letters, digits, . _ : -; at most 128). Default: none.")
    String runGroup;

    @Option(names = "--start-at", paramLabel = "EPOCH_MS", description = "With --shard: start sending at this moment "
            + "(epoch milliseconds on the run history database's clock) instead of when all N shards have "
            + "registered. Default: when all have registered.")
    Long startAt;

    @Option(names = "--shard-wait", paramLabel = "S", defaultValue = "600", description = "With --shard: longest wait "
            + "for the other shards to register, seconds. Default: ${DEFAULT-VALUE}.")
    double shardWaitSeconds;
}
