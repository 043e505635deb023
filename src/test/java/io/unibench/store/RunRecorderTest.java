package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unibench.BadInputException;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

class RunRecorderTest {
    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();

    private RunStart start() {
        return new RunStart("r", List.of("t"), "m", "http://h/v1", ResultJson.MAPPER.createObjectNode(), Map.of());
    }

    @Test
    void requestsAreCommittedWhileThePointIsStillRunning() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("u.db"));
        RunRecorder recorder = RunRecorder.open(loc, new PrintWriter(err, true));
        String id = recorder.start(start());
        RunInfo info = new RunInfo("p", 1, -1, 50);
        List<RequestRecord> records = TestStores.records(50, 0, 1);
        try (RecordSink sink = recorder.pointSink(info, 0)) {
            records.forEach(sink::accept);
            // the sink is still open: only the periodic commit (every COMMIT_INTERVAL_MILLIS) can make these visible
            // to another connection; polled for at most 20 intervals
            long seen = 0;
            try (RunStore reader = RunStore.open(loc)) {
                for (int i = 0; i < 200 && seen < 50; i++) {
                    LockSupport.parkNanos(RunRecorder.COMMIT_INTERVAL_MILLIS * 100_000L);
                    seen = reader.run(id).row().requestCount();
                }
            }
            assertThat(seen).isEqualTo(50);
        }
        RunMetrics m = new RunMetrics();
        records.forEach(m::accept);
        recorder.pointFinished(m.result(info), java.util.Map.of());
        recorder.finish(false);
        try (RunStore store = RunStore.open(loc)) {
            StoredRun run = store.run(id);
            assertThat(run.row().status()).isEqualTo(RunRow.FINISHED);
            assertThat(run.points().getFirst().summary().get("Total Requests").asLong()).isEqualTo(50);
        }
        assertThat(err.toString()).contains("Run history: run " + id);
    }

    @Test
    void anAdoptedRunGetsItsTargetAndRecordsButItsEndIsLeftToItsOwner() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("u.db"));
        String id;
        try (RunStore store = RunStore.open(loc)) {
            id = store.createRun(start(), Owner.current(), 1000, RunRow.QUEUED);
            assertThat(store.startQueued(id, start(), Owner.current(), 2000)).isTrue();
        }
        RunRecorder recorder = RunRecorder.open(loc, new PrintWriter(err, true))
                .adopt(id, "http://127.0.0.1:9/v1", Map.of("provider", "p1"));
        RunInfo info = new RunInfo("p", 1, -1, 5);
        List<RequestRecord> records = TestStores.records(5, 0, 1);
        try (RecordSink sink = recorder.pointSink(info, 0)) {
            records.forEach(sink::accept);
        }
        RunMetrics m = new RunMetrics();
        records.forEach(m::accept);
        recorder.pointFinished(m.result(info), Map.of());
        recorder.finish(false);
        try (RunStore store = RunStore.open(loc)) {
            StoredRun run = store.run(id);
            assertThat(run.row().status()).as("the owner (the service's queue) ends it").isEqualTo(RunRow.RUNNING);
            assertThat(run.row().endedAt()).isNull();
            assertThat(run.row().requestCount()).isEqualTo(5);
            assertThat(run.row().url()).isEqualTo("http://127.0.0.1:9/v1");
            assertThat(run.environment().get("provider").asText()).isEqualTo("p1");
            assertThat(run.row().tags()).containsExactly("t"); // kept from when it was queued
        }
    }

    @Test
    void statusIsInterruptedWhenStoppedAndFailedWhenAPointNeverFinished() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("u.db"));
        RunRecorder stopped = RunRecorder.open(loc, new PrintWriter(err, true));
        String a = stopped.start(start());
        stopped.pointSink(new RunInfo("p", 1, -1, 1), 0).close();
        stopped.finish(true);
        RunRecorder broken = RunRecorder.open(loc, new PrintWriter(err, true));
        String b = broken.start(start());
        broken.pointSink(new RunInfo("p", 1, -1, 1), 0).close();
        broken.finish(false); // the point's result never came: the sweep threw
        try (RunStore store = RunStore.open(loc)) {
            assertThat(store.run(a).row().status()).isEqualTo(RunRow.INTERRUPTED);
            assertThat(store.run(b).row().status()).isEqualTo(RunRow.FAILED);
        }
    }

    @Test
    void disabledRecorderStoresNothingAndAcceptsEverything() {
        RunRecorder off = RunRecorder.disabled();
        assertThat(off.enabled()).isFalse();
        assertThat(off.start(start())).isNull();
        off.pointSink(new RunInfo("p", 1, -1, 1), 0).accept(TestStores.records(1, 0, 1).getFirst());
        off.finish(false);
    }

    @Test
    void locationsResolveFlagThenVariableThenPropertyAndMaskPasswords() {
        // the default file honours $UNIBENCH_HOME, then $HOME (not only Java's user.home)
        assertThat(StoreLocation.resolve(null, Map.of("HOME", "/tmp/x"), null, "/root").file())
                .isEqualTo(Path.of("/tmp/x/.unibench/unibench.db"));
        assertThat(StoreLocation.resolve(null, Map.of("HOME", "/tmp/x", StoreLocation.HOME_ENV, "/srv/ub"), null, "/root")
                .file()).isEqualTo(Path.of("/srv/ub/unibench.db"));
        assertThat(StoreLocation.resolve(null, Map.of(), null, "/root").file()).isEqualTo(Path.of("/root/.unibench/unibench.db"));
        assertThat(StoreLocation.resolve(null, Map.of("HOME", "/tmp/x"), "/t/store.db", "/root").file())
                .isEqualTo(Path.of("/t/store.db"));
        assertThat(StoreLocation.resolve("/x/a.db", Map.of(StoreLocation.ENV, "/y/b.db")).file()).isEqualTo(Path.of("/x/a.db"));
        assertThat(StoreLocation.resolve(null, Map.of(StoreLocation.ENV, "/y/b.db")).file()).isEqualTo(Path.of("/y/b.db"));
        assertThat(StoreLocation.resolve("jdbc:sqlite:/z/c.db", Map.of()).dialect()).isEqualTo(Dialect.SQLITE);
        StoreLocation pg = StoreLocation.resolve("jdbc:postgresql://h/db?user=u&password=hunter22", Map.of());
        assertThat(pg.dialect()).isEqualTo(Dialect.POSTGRES);
        assertThat(pg.display()).isEqualTo("jdbc:postgresql://h/db?user=u&password=***").doesNotContain("hunter22");
        StoreLocation fromEnv = StoreLocation.resolve("jdbc:postgresql://h/db",
                Map.of("UNIBENCH_DB_USER", "u", "PGPASSWORD", "pw"));
        assertThat(fromEnv.properties()).containsEntry("user", "u").containsEntry("password", "pw");
        assertThatThrownBy(() -> StoreLocation.resolve("jdbc:mysql://h/db", Map.of()))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--db");
    }

    @Test
    void chunkTimesPackExactly() {
        long[] t = {5, 5, 1_000_000_007L, 999_999_999_999L, 1_000_000_000_000L};
        assertThat(ChunkTimes.decode(ChunkTimes.encode(t, 3))).containsExactly(2, 2, 1_000_000_004L,
                999_999_999_996L, 999_999_999_997L);
        assertThat(ChunkTimes.encode(new long[0], 0)).isNull();
        assertThat(ChunkTimes.decode(null)).isEmpty();
    }

    @Test
    void chunkTimesKeepTheirStoredFormat() {
        java.util.SplittableRandom rng = new java.util.SplittableRandom(3);
        // one packer across requests of every size, as the writer uses it: its scratch buffer grows past 256 times
        // and a longer earlier request must not leak bytes into a shorter later one
        ChunkTimes.Packer packer = new ChunkTimes.Packer();
        for (int trial = 0; trial < 500; trial++) {
            long[] t = new long[1 + rng.nextInt(300)];
            long now = rng.nextLong();
            for (int i = 0; i < t.length; i++) {
                now += switch (rng.nextInt(4)) {
                    case 0 -> rng.nextInt(128);
                    case 1 -> -rng.nextInt(1 << 20);
                    case 2 -> rng.nextLong(1L << 40);
                    default -> rng.nextLong();
                };
                t[i] = now;
            }
            long base = rng.nextLong();
            assertThat(ChunkTimes.encode(t, base)).isEqualTo(referenceVarints(t, base));
            assertThat(packer.pack(t, base)).isEqualTo(referenceVarints(t, base));
        }
        // every varint length boundary (1-3 bytes are written without the loop), in both signs: zig-zag values
        // 2^(k+1) - 2, 2^(k+1) and 2^(k+1) - 1 for every k
        for (int k = 0; k < 63; k++) {
            long[] t = {(1L << k) - 1, (1L << k) * 2 - 1, (1L << k) - 1, -1, -(1L << k) - 1};
            assertThat(packer.pack(t, 0)).isEqualTo(referenceVarints(t, 0));
            assertThat(ChunkTimes.decode(packer.pack(t, 0))).containsExactly(t);
        }
        assertThat(packer.pack(new long[0], 0)).isNull();
        assertThat(packer.pack(null, 0)).isNull();
    }

    /** The format as first written: zig-zag varints of consecutive differences, 7 bits a byte, low bits first. */
    private static byte[] referenceVarints(long[] nanos, long base) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long previous = base;
        for (long t : nanos) {
            long delta = t - previous;
            long zigzag = (delta << 1) ^ (delta >> 63);
            while ((zigzag & ~0x7FL) != 0) {
                out.write((int) ((zigzag & 0x7F) | 0x80));
                zigzag >>>= 7;
            }
            out.write((int) zigzag);
            previous = t;
        }
        return out.toByteArray();
    }
}
