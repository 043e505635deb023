package io.unibench.cli;

import picocli.CommandLine.Option;

/** The flags of a sharded run ({@link ShardRun}): a picocli mixin of {@link PerfOptions} and of {@code run}. */
public final class ShardOptions {
    @Option(names = "--shard", paramLabel = "I/N", description = "Run shard I (0 ≤ I < N) of one benchmark split over "
            + "N processes or machines: every point its share of the requests, the concurrency and the rate (λ/N "
            + "each) and of the dataset (a contiguous block of prompts or conversations, a trace's rows dealt in "
            + "turn; none in two shards), sliced from the run's spec the same way by perf, run --config and run SPEC. "
            + "Needs --run-group and a run history every shard writes to (PostgreSQL, or one SQLite file on one "
            + "machine); `unibench runs merge G` gives the one run (stored by itself as group:G once the last shard "
            + "ends). The points (levels) start together on all shards. Default: not sharded.")
    String shard;

    @Option(names = "--run-group", paramLabel = "G", description = "Name every shard of one sharded run gives "
            + "(letters, digits, . _ : -; at most 128); alone, runs a shard's spec file (run SPEC, its /shard I/N). "
            + "Default: none.")
    String runGroup;

    @Option(names = "--start-at", paramLabel = "EPOCH_MS", description = "With --shard: start sending at this moment "
            + "(epoch milliseconds on the run history database's clock) instead of when all N shards have "
            + "registered. Default: when all have registered.")
    Long startAt;

    @Option(names = "--shard-wait", paramLabel = "S", defaultValue = "600", description = "With --shard: longest wait "
            + "for the other shards to register, seconds. Default: ${DEFAULT-VALUE}.")
    double shardWaitSeconds;
}
