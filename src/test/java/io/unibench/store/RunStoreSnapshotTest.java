package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Two connections to one SQLite file, as the service and a run's recorder have: a read must end its transaction, or
 * the connection keeps a WAL snapshot that the other's next commit makes stale, and its next write fails at once
 * (SQLITE_BUSY_SNAPSHOT: no busy timeout helps) — and every write after it, since the stale transaction stays open.
 * Seen as the service answering 500 to every create and cancel after reading a run's server metrics.
 */
class RunStoreSnapshotTest {
    @TempDir
    Path tmp;

    private static RunStart start(String name) {
        return new RunStart(name, List.of(), "m", "http://127.0.0.1:1/v1", ResultJson.MAPPER.createObjectNode(),
                Map.of());
    }

    @Test
    void aReadOfAPointsServerMetricsLeavesNoSnapshotThatFailsTheNextWrite() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("s.db"));
        try (RunStore service = RunStore.open(loc); RunStore recorder = RunStore.open(loc)) {
            String id = service.createRun(start("a"), Owner.current(), 1000, RunRow.QUEUED);
            assertThat(service.pointServerMetrics(id, 0)).isNull(); // a read on the service's connection
            recorder.createRun(start("b"), Owner.current(), 2000, RunRow.RUNNING); // the other connection commits
            // the service's next writes: each would fail on a snapshot the read left open
            assertThat(service.endActive(id, RunRow.CANCELLED, "cancelled", 3000)).isTrue();
            String c = service.createRun(start("c"), Owner.current(), 4000, RunRow.QUEUED);
            assertThat(service.run(c).row().status()).isEqualTo(RunRow.QUEUED);
        }
    }

    @Test
    void aFailedLookupLeavesNoSnapshotThatFailsTheEndOfRunWrite() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("l.db"));
        try (RunStore service = RunStore.open(loc); RunStore recorder = RunStore.open(loc)) {
            String id = service.createRun(start("a"), Owner.current(), 1000, RunRow.RUNNING);
            // a page asks for a run that is not there: the lookup throws (bad input) mid-read
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> service.run("no-such-run"))
                    .isInstanceOf(io.unibench.BadInputException.class);
            recorder.createRun(start("b"), Owner.current(), 2000, RunRow.RUNNING); // the other connection commits
            service.finishRun(id, RunRow.FINISHED, 3000); // the end-of-run write: must not fail, nor be lost
            assertThat(recorder.run(id).row().status()).isEqualTo(RunRow.FINISHED);
        }
    }

    @Test
    void aFailedWriteIsRolledBackSoTheConnectionWritesAgain() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("f.db"));
        try (RunStore store = RunStore.open(loc)) {
            String id = store.createRun(start("a"), Owner.current(), 1000, RunRow.QUEUED);
            // the same id again: the insert fails on the primary key, inside the store's transaction
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> store.createRun(id, start("a"), Owner.current(), 1000, RunRow.QUEUED))
                    .isInstanceOf(java.sql.SQLException.class);
            try (RunStore other = RunStore.open(loc)) {
                // another connection can write: the failed transaction holds no lock
                other.createRun(start("b"), Owner.current(), 2000, RunRow.RUNNING);
            }
            assertThat(store.endActive(id, RunRow.CANCELLED, "cancelled", 3000)).isTrue();
        }
    }
}
