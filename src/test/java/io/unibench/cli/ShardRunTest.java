package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unibench.BadInputException;
import io.unibench.engine.StopSignal;
import io.unibench.store.ShardRegistry;
import io.unibench.store.ShardRow;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** {@code --shard}'s slice written into perf's options, its bad inputs, and the start barrier of {@code --start-at}. */
class ShardRunTest {
    @TempDir
    Path tmp;

    private PerfOptions options(String... args) {
        PerfCommand command = new PerfCommand();
        new CommandLine(command).parseArgs(args);
        return command.options;
    }

    @Test
    void theSliceIsWrittenIntoTheOptions() {
        PerfOptions o = options("--number", "10", "--parallel", "7", "--rate", "9", "--dataset-offset", "100",
                "--shard", "2/3", "--run-group", "g", "--db", tmp.resolve("s.db").toString());
        assertThat(ShardRun.prepare(o, Map.of()).sharded()).isTrue();
        // 10 = 4 + 3 + 3 (the third shard starts at 7); 7 = 3 + 2 + 2; 9 req/s = 3 each
        assertThat(o.number).containsExactly(3);
        assertThat(o.parallel).containsExactly(2);
        assertThat(o.rate).containsExactly(3.0);
        assertThat(o.datasetOffset).isEqualTo(107);
        PerfOptions plain = options("--number", "10");
        assertThat(ShardRun.prepare(plain, Map.of()).sharded()).isFalse();
        assertThat(plain.number).containsExactly(10);
    }

    @Test
    void badShardFlagsAreOneLineNamingTheFlag() {
        String db = tmp.resolve("s.db").toString();
        bad("--run-group needs --shard I/N", "--run-group", "g");
        bad("--start-at needs --shard I/N", "--start-at", "1");
        bad("--shard '4/4': expected I/N", "--shard", "4/4", "--run-group", "g");
        bad("--shard 1/4 needs --run-group G", "--shard", "1/4", "--number", "8");
        bad("--run-group 'a b': letters, digits", "--shard", "1/4", "--run-group", "a b", "--number", "8");
        bad("--shard: the shards meet in the run history; drop --no-db", "--shard", "1/4", "--run-group", "g",
                "--no-db", "--number", "8");
        bad("--shard needs --number", "--shard", "1/4", "--run-group", "g", "--db", db);
        bad("--number [8, 16]: a sharded run has one sweep point", "--shard", "1/4", "--run-group", "g", "--db", db,
                "--number", "8", "16");
        bad("--number 3: fewer than the 4 shards", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "3");
        bad("--parallel 1: fewer than the 4 shards", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "8");
        bad("--shard-wait 0.0: must be > 0", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "8",
                "--shard-wait", "0");
        bad("--shard with --dataset mooncake_trace: each shard would replay its block of the trace from the trace's "
                + "start, N times too fast; shard a trace with run --config F --shard I/N", "--shard", "1/4",
                "--run-group", "g", "--db", db, "--number", "8", "--dataset", "mooncake_trace", "--dataset-path", "t.jsonl");
    }

    private void bad(String message, String... args) {
        assertThatThrownBy(() -> ShardRun.prepare(options(args), Map.of())).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void startAtInThePastStartsAtOnceAndTheShardIsMarkedWithItsVerdict() throws Exception {
        Path db = tmp.resolve("s.db");
        PerfOptions o = options("--number", "8", "--parallel", "2", "--shard", "0/2", "--run-group", "g",
                "--start-at", "1000", "--db", db.toString());
        ShardRun shard = ShardRun.prepare(o, Map.of());
        StringWriter err = new StringWriter();
        shard.awaitStart(new StopSignal(), new PrintWriter(err, true));
        assertThat(err.toString()).contains("Shard 0/2 of run group 'g'", "--start-at 1000 passed", "starting now");
        shard.finish(null, List.of(), false, false, new PrintWriter(err, true));
        try (ShardRegistry r = ShardRegistry.open(StoreLocation.sqlite(db))) {
            ShardRow row = r.shards("g").getFirst();
            assertThat(row.status()).isEqualTo("finished");
            assertThat(row.selfCheck()).isEqualTo(ShardRow.SELF_CHECK_OK);
            assertThat(row.firstIndex()).isZero();
            assertThat(row.endedAt()).isNotNull();
        }
        // the same index again is refused, and does not touch the first registration
        ShardRun again = ShardRun.prepare(options("--number", "8", "--parallel", "2", "--shard", "0/2", "--run-group",
                "g", "--start-at", "1000", "--db", db.toString()), Map.of());
        assertThatThrownBy(() -> again.awaitStart(new StopSignal(), new PrintWriter(err, true)))
                .isInstanceOf(BadInputException.class).hasMessageContaining("already has shard 0");
        again.finish(null, List.of(), false, true, new PrintWriter(err, true));
        try (ShardRegistry r = ShardRegistry.open(StoreLocation.sqlite(db))) {
            assertThat(r.shards("g").getFirst().status()).isEqualTo("finished");
        }
    }

    /** A shard of a scenario file with levels [4, 8] of 10 requests, parsed as `run` parses its flags. */
    private ShardRun scenarioShard(String shard, String db, String... more) throws Exception {
        return shardOf("""
                provider: {name: p, base_url: sim, model: m}
                concurrency: {levels: [4, 8], requests_per_level: 10}
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """, shard, db, more);
    }

    private ShardRun shardOf(String yaml, String shard, String db, String... more) throws Exception {
        java.nio.file.Path file = tmp.resolve("bench.yaml");
        java.nio.file.Files.writeString(file, yaml);
        RunCommand command = new RunCommand();
        List<String> args = new java.util.ArrayList<>(List.of("--config", file.toString(), "--shard", shard,
                "--run-group", "sg", "--db", db));
        args.addAll(List.of(more));
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return ShardRun.forScenario(command.shard, command.history,
                io.unibench.scenario.ScenarioFile.load(file, Map.of()), Map.of());
    }

    @Test
    void aScenarioFileSplitsEveryLevelAndRefusesALevelSmallerThanN() throws Exception {
        String db = tmp.resolve("s.db").toString();
        assertThat(scenarioShard("1/4", db).shard()).isEqualTo(new io.unibench.engine.Shard(1, 4));
        assertThatThrownBy(() -> scenarioShard("1/5", db)).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bench.yaml: concurrency level 4: fewer than the 5 shards; each shard needs at least 1");
        assertThatThrownBy(() -> scenarioShard("1/11", db)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("concurrency level 4: fewer than the 11 shards");
        assertThatThrownBy(() -> scenarioShard("0/2", db, "--no-db")).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--shard: the shards meet in the run history");
    }

    @Test
    void aScenarioFilesRatesAndTraceAreSplitAndItsSlaSearchIsRefusedOnOneLine() throws Exception {
        String db = tmp.resolve("s.db").toString();
        String rates = """
                provider: {name: p, base_url: sim, model: m}
                request_rate: {levels: [2, 50], requests_per_level: 12, max_concurrency: 3}
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """;
        // the file's concurrency (its default, 1) is not a level of a request_rate file: not judged against N
        assertThat(shardOf(rates, "2/3", db).shard()).isEqualTo(new io.unibench.engine.Shard(2, 3));
        assertThatThrownBy(() -> shardOf(rates, "0/4", db)).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bench.yaml: request_rate.max_concurrency 3: fewer than the 4 shards; each shard "
                        + "needs at least 1");
        java.nio.file.Path trace = java.nio.file.Files.write(tmp.resolve("t.jsonl"), MooncakeTraceEndToEndTest.TRACE);
        String replay = """
                provider: {name: p, base_url: sim, model: m}
                scenarios:
                  - {name: t, type: chat, dataset: mooncake_trace, dataset_path: %s}
                """.formatted(trace);
        assertThat(shardOf(replay, "4/5", db).shard()).isEqualTo(new io.unibench.engine.Shard(4, 5));
        assertThatThrownBy(() -> shardOf(replay, "0/6", db)).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bench.yaml: rows replayed of scenario 't' 5: fewer than the 6 shards; each shard "
                        + "needs at least 1");
        assertThatThrownBy(() -> shardOf("""
                provider: {name: p, base_url: sim, model: m}
                sla_auto_tune: {params: {p99_latency: "<=0.3"}}
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """, "0/2", db)).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bench.yaml: sla_auto_tune cannot be sharded: its search chooses each probe from "
                        + "the last probe's result, which one process must judge; run the file without --shard")
                .hasMessageStartingWith("--shard 0/2: ");
    }

    @Test
    void eachLevelOfAScenarioShardWaitsForEveryShardAndAMissingOneHoldsItOnlyForShardWait() throws Exception {
        String db = tmp.resolve("s.db").toString();
        ShardRun a = scenarioShard("0/2", db, "--start-at", "1000", "--shard-wait", "60");
        ShardRun b = scenarioShard("1/2", db, "--start-at", "1000", "--shard-wait", "60");
        StringWriter err = new StringWriter();
        PrintWriter w = new PrintWriter(err, true);
        a.awaitPoint(0, new StopSignal(), w); // the first level: registration and --start-at (in the past)
        b.awaitPoint(0, new StopSignal(), w);
        java.util.concurrent.CountDownLatch aPassed = new java.util.concurrent.CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                a.awaitPoint(1, new StopSignal(), w);
                aPassed.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (ShardRegistry r = ShardRegistry.open(StoreLocation.resolve(db, Map.of()))) {
            // bounded (30 s): until a has arrived at level 1
            for (int i = 0; i < 3000 && r.arrived("sg", 1) < 1; i++) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            }
            assertThat(r.arrived("sg", 1)).isEqualTo(1);
            assertThat(aPassed.getCount()).isEqualTo(1); // 1 of 2 at level 1: a waits
            b.awaitPoint(1, new StopSignal(), w);
            assertThat(aPassed.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        t.join();
        assertThat(err.toString()).doesNotContain("going on without");

        // b's process is gone: a waits --shard-wait at the next level, says so, and no longer waits for b after
        ShardRun c = scenarioShard("0/2", tmp.resolve("t.db").toString(), "--start-at", "1000", "--shard-wait", "0.2");
        ShardRun d = scenarioShard("1/2", tmp.resolve("t.db").toString(), "--start-at", "1000", "--shard-wait", "0.2");
        c.awaitPoint(0, new StopSignal(), w);
        d.awaitPoint(0, new StopSignal(), w);
        c.awaitPoint(1, new StopSignal(), w);
        assertThat(err.toString()).contains("Shard 0/2: 1 of 2 shards reached level 1 within 0.2 s (--shard-wait); "
                + "going on without the others");
        int said = err.toString().split("going on without", -1).length;
        c.awaitPoint(2, new StopSignal(), w);
        assertThat(err.toString().split("going on without", -1).length).isEqualTo(said);
    }
}
