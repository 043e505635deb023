package io.unibench.store;

import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's load on one store: run recorders writing batches while request threads create, cancel and read
 * runs, and another process writing the same database. SQLite has one writer: the pool must queue the writes, never
 * fail one with SQLITE_BUSY (a busy or stale-snapshot error).
 */
class ConcurrentWritersTest {
    private static final RunInfo INFO = new RunInfo("parallel_2_number_40", 2, -1, 40);
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void recordersRequestsAndAnotherProcessWriteAtOnceWithoutAFailure(String kind) throws Exception {
        try (TestStores.Backend backend = TestStores.of(kind, tmp)) {
            StoreLocation loc = backend.location();
            int recorders = 4;
            int batches = 10;
            int web = 4;
            ConcurrentLinkedQueue<Throwable> failed = new ConcurrentLinkedQueue<>();
            CountDownLatch go = new CountDownLatch(1);
            List<String> runs = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            try (RunStore service = RunStore.open(loc)) {
                for (int r = 0; r < recorders; r++) {
                    String id = service.createRun(start("rec" + r), Owner.current(), 1000, RunRow.RUNNING);
                    service.addPoint(id, 0, INFO, 1000);
                    runs.add(id);
                }
                for (String id : runs) { // each recorder on a store of its own, as a run's recorder opens one
                    threads.add(Thread.ofPlatform().start(() -> run(failed, go, () -> {
                        try (RunStore recorder = RunStore.open(loc)) {
                            List<RequestRecord> batch = TestStores.records(4, 1_000_000_000L, 7);
                            for (int b = 0; b < batches; b++) {
                                recorder.insertRequests(id, 0, 1_000_000_000L, renumber(batch, b * 4), 2000 + b);
                                recorder.heartbeat(id, 3000 + b);
                            }
                            recorder.finishRun(id, RunRow.FINISHED, 5000);
                        }
                    })));
                }
                for (int w = 0; w < web; w++) { // request threads: the service's one store, reads and writes
                    int n = w;
                    threads.add(Thread.ofVirtual().start(() -> run(failed, go, () -> {
                        for (int i = 0; i < batches; i++) {
                            String id = service.createRun(start("web" + n), Owner.current(), 1000, RunRow.QUEUED);
                            service.list(RunFilter.all(50));
                            service.run(runs.get(i % runs.size()));
                            service.pointServerMetrics(runs.get(n % runs.size()), 0);
                            assertThat(service.endActive(id, RunRow.CANCELLED, "cancelled", 2000)).isTrue();
                        }
                    })));
                }
                threads.add(Thread.ofPlatform().start(() -> run(failed, go, () -> { // another process
                    try (Connection c = DriverManager.getConnection(loc.jdbcUrl(), loc.properties());
                         Statement st = c.createStatement()) {
                        for (int i = 0; i < batches; i++) {
                            if (loc.dialect() == Dialect.SQLITE) st.execute("BEGIN IMMEDIATE");
                            else c.setAutoCommit(false);
                            st.execute("UPDATE runs SET heartbeat_at = heartbeat_at + 1 WHERE run_id = '" + runs.getFirst() + "'");
                            if (loc.dialect() == Dialect.SQLITE) st.execute("COMMIT");
                            else c.commit();
                        }
                    }
                })));
                go.countDown();
                for (Thread t : threads) t.join();
                assertThat(failed).isEmpty();
                for (String id : runs) {
                    RunRow row = service.run(id).row();
                    assertThat(row.status()).isEqualTo(RunRow.FINISHED);
                    assertThat(row.requestCount()).isEqualTo(4L * batches);
                }
                assertThat(service.list(RunFilter.all(100)).stream().filter(r -> r.status().equals(RunRow.CANCELLED)))
                        .hasSize(web * batches);
            }
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void run(ConcurrentLinkedQueue<Throwable> failed, CountDownLatch go, Body body) {
        try {
            go.await();
            body.run();
        } catch (Throwable t) {
            failed.add(t);
        }
    }

    private static List<RequestRecord> renumber(List<RequestRecord> batch, int first) {
        List<RequestRecord> out = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            RequestRecord r = batch.get(i);
            out.add(new RequestRecord(new io.unibench.metrics.Position(first + i, "req-" + (first + i), null, 0, false),
                    r.timing(), r.tokens(), r.outcome(), r.phases(), r.serverTimings()));
        }
        return out;
    }

    private static RunStart start(String name) {
        return new RunStart(name, List.of(), "m", "http://127.0.0.1:1/v1", ResultJson.MAPPER.createObjectNode(), Map.of());
    }
}
