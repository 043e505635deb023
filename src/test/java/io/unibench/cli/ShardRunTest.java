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
}
