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

    /** {@code perf --dry-run FLAGS}: the spec perf would run, as JSON. */
    private static com.fasterxml.jackson.databind.JsonNode dryRun(String... flags) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--dry-run", "--url", "sim", "--no-timestamp"));
        args.addAll(List.of(flags));
        CliHarness.Run r = CliHarness.perf(new PerfCommand(), args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    }

    @Test
    void theSliceIsTheSpecsNotTheOptions() throws Exception {
        String db = tmp.resolve("s.db").toString();
        PerfOptions o = options("--number", "10", "--parallel", "7", "--rate", "9", "--dataset-offset", "100",
                "--shard", "2/3", "--run-group", "g", "--db", db);
        assertThat(ShardRun.prepare(o, Map.of()).sharded()).isTrue();
        assertThat(o.number).containsExactly(10); // the flags stay the whole run's
        var spec = dryRun("--number", "10", "--parallel", "7", "--rate", "9", "--dataset-offset", "100",
                "--shard", "2/3", "--run-group", "g", "--db", db);
        // 10 = 4 + 3 + 3 (the third shard starts at 7); 7 = 3 + 2 + 2; 9 req/s = 3 each
        var point = spec.at("/points/0");
        assertThat(point.at("/plan/number").asInt()).isEqualTo(3);
        assertThat(point.at("/plan/parallel").asInt()).isEqualTo(2);
        assertThat(point.at("/plan/rate").asDouble()).isEqualTo(3.0);
        assertThat(spec.at("/workloads/0/options/offset").asLong() + point.at("/slice/first").asLong()).isEqualTo(107);
        assertThat(spec.at("/shard/index").asInt()).isEqualTo(2);
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
        bad("--shard-wait 0.0: must be > 0", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "8",
                "--shard-wait", "0");
        // what the spec cannot give is the engine's one line (RunSpec.slice), the same for run --shard
        badSpec("--shard 1/4: point 'parallel_4_number_3' sends 3 requests, fewer than the 4 shards; each shard needs "
                + "at least 1", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "3", "--parallel", "4");
        badSpec("--shard 1/4: point 'parallel_1_number_8' runs 1 at once, fewer than the 4 shards; each shard needs "
                + "at least 1", "--shard", "1/4", "--run-group", "g", "--db", db, "--number", "8");
    }

    private void bad(String message, String... args) {
        assertThatThrownBy(() -> ShardRun.prepare(options(args), Map.of())).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(message);
    }

    private void badSpec(String message, String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("--dry-run", "--url", "sim"));
        all.addAll(List.of(args));
        CliHarness.Run r = CliHarness.perf(new PerfCommand(), all.toArray(String[]::new));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).endsWith(message).doesNotContain("\n");
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
                .hasMessage("--shard 1/5: point 'p/s/parallel_4' runs 4 at once, fewer than the 5 shards; each shard "
                        + "needs at least 1");
        assertThatThrownBy(() -> scenarioShard("1/11", db)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("runs 4 at once, fewer than the 11 shards");
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
                .hasMessage("--shard 0/4: point 'p/s/rate_2' runs 3 at once, fewer than the 4 shards; each shard "
                        + "needs at least 1");
        java.nio.file.Path trace = java.nio.file.Files.write(tmp.resolve("t.jsonl"), MooncakeTraceEndToEndTest.TRACE);
        String replay = """
                provider: {name: p, base_url: sim, model: m}
                scenarios:
                  - {name: t, type: chat, dataset: mooncake_trace, dataset_path: %s}
                """.formatted(trace);
        assertThat(shardOf(replay, "4/5", db).shard()).isEqualTo(new io.unibench.engine.Shard(4, 5));
        assertThatThrownBy(() -> shardOf(replay, "0/6", db)).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 0/6: point 'p/t/trace' replays 5 trace rows, fewer than the 6 shards; each shard "
                        + "needs at least 1");
        assertThatThrownBy(() -> shardOf("""
                provider: {name: p, base_url: sim, model: m}
                sla_auto_tune: {params: {p99_latency: "<=0.3"}}
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """, "0/2", db)).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 0/2: " + io.unibench.engine.spec.RunSpec.SLA_UNSHARDED);
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
