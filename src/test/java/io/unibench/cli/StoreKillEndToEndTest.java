package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code kill -9} in the middle of a run: a separate JVM runs {@code perf} into a SQLite store and is killed
 * without warning (no shutdown hook runs). What it committed stays; the next start marks the run interrupted,
 * and {@code runs report} rebuilds the report from the stored requests.
 */
class StoreKillEndToEndTest {
    @TempDir
    Path tmp;

    @Test
    void killedRunKeepsItsRequestsAndIsRecoveredAsInterrupted() throws Exception {
        Path db = tmp.resolve("unibench.db");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "perf", "--parallel", "4", "--number", "100000", "--max-tokens", "20", "--min-prompt-length", "8",
                "--max-prompt-length", "8", "--outputs-dir", tmp.resolve("out").toString(), "--no-timestamp",
                "--name", "k", "--db", db.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("console.txt").toFile()).start();
        long storedBeforeKill;
        try {
            // wait (at most 60 s) until some requests are committed: the writer commits at least every 0.5 s
            storedBeforeKill = 0;
            for (int i = 0; i < 600 && storedBeforeKill < 20 && p.isAlive(); i++) {
                LockSupport.parkNanos(100_000_000L);
                storedBeforeKill = storedRequests(db);
            }
            assertThat(storedBeforeKill).as(Files.exists(tmp.resolve("console.txt"))
                    ? Files.readString(tmp.resolve("console.txt")) : "no console").isGreaterThanOrEqualTo(20);
            // requests.jsonl is flushed every 0.5 s, as the store commits: past that, it holds every request the
            // store held at the poll above (a 1 s flush, as before, would miss some in most runs)
            LockSupport.parkNanos(800_000_000L);
            p.destroyForcibly(); // SIGKILL: no shutdown hook, no final commit
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        // before the next start the run is still marked running
        String id;
        try (RunStore store = RunStore.open(StoreLocation.sqlite(db))) {
            List<RunRow> rows = store.list(RunFilter.all(10));
            assertThat(rows).hasSize(1);
            assertThat(rows.getFirst().status()).isEqualTo(RunRow.RUNNING);
            id = rows.getFirst().runId();
        }
        // the next start (any runs command, or perf) marks it interrupted and reports from the stored requests
        CliHarness.Run list = CliHarness.main("runs", "list", "--db", db.toString());
        assertThat(list.err()).contains("Run " + id + " was left running by a process that is gone");
        assertThat(list.out()).contains(id, "interrupted");
        CliHarness.Run report = CliHarness.main("runs", "report", id, "--db", db.toString());
        assertThat(report.exit()).as(report.err()).isZero();
        long stored;
        try (RunStore store = RunStore.open(StoreLocation.sqlite(db))) {
            stored = store.run(id).row().requestCount();
            assertThat(store.run(id).points().getFirst().summary().get("Total Requests").asLong()).isEqualTo(stored);
        }
        assertThat(stored).isGreaterThanOrEqualTo(storedBeforeKill);
        Path jsonl = tmp.resolve("out/k/parallel_4_number_100000/requests.jsonl");
        long lines = 0;
        for (byte b : Files.readAllBytes(jsonl)) if (b == '\n') lines++;
        assertThat(lines).as("complete lines in requests.jsonl").isGreaterThanOrEqualTo(storedBeforeKill);
        assertThat(report.out()).contains("Status", "interrupted (report from the stored requests)",
                "Performance Overview", "Per-Request Metrics", "TTFT (ms)");
        // the overview's Num column is the count of stored requests
        assertThat(report.out()).containsPattern("│\\s+4 │\\s+- │\\s+" + stored + " │");
    }

    private static long storedRequests(Path db) {
        if (!Files.exists(db)) return 0;
        try (RunStore store = RunStore.open(StoreLocation.sqlite(db))) {
            List<RunRow> rows = store.list(RunFilter.all(1));
            return rows.isEmpty() ? 0 : rows.getFirst().requestCount();
        } catch (Exception e) {
            return 0; // the child may be creating the schema right now
        }
    }
}
