package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.SpecPoints;
import io.unibench.engine.StopSignal;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: "any preparation that still takes more than a second shows progress, and the run is registered (history,
 * platform) before it". Reading what the spec sends (a large dataset file, a tokenizer) comes before the first point;
 * a step of it that turns slow ({@code SlowStep}: after a second) says so and registers the run, and a stop
 * (Ctrl-C, the service's cancel) during it ends the run at once, recorded as interrupted, with no stack trace. The
 * loader here calls {@code whenSlow} as {@code SlowStep} does once a step has taken a second, then waits for the test:
 * no clock, no sleep.
 */
class PerfPreparationTest {
    @TempDir
    Path dir;

    @Test
    void aRunIsListedWhileItsSlowPreparationRunsAndAStopEndsItAtOnceAsInterrupted() throws Exception {
        CountDownLatch slow = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        StringWriter err = new StringWriter();
        PerfRun run = new PerfRun(process(), new StopSignal()).loadWith((spec, notes, whenSlow) -> {
            whenSlow.run(); // what SlowStep does once a step has taken a second
            slow.countDown();
            try {
                release.await(); // a dataset still being read
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return SpecPoints.load(spec, notes, whenSlow);
        });
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = pool.submit(() -> run.run(spec(), new PrintWriter(new StringWriter(), true),
                    new PrintWriter(err, true)));
            slow.await();
            StoredRun listed = single();
            assertThat(listed.row().status()).isEqualTo(RunRow.RUNNING);
            // its configuration is the first point's benchmark_args.json, known before that file is written
            assertThat(listed.config().path("max_tokens").asInt()).isEqualTo(4);
            assertThat(listed.config().path("warmup_num").isNumber()).isTrue();

            run.stop(); // Ctrl-C while the dataset is read: the run ends now, not when the read does
            assertThat(exit.get()).isEqualTo(Main.EXIT_INTERRUPTED);
        } finally {
            release.countDown();
            pool.shutdown();
        }
        assertThat(single().row().status()).isEqualTo(RunRow.INTERRUPTED);
        assertThat(err.toString()).contains("Interrupted while preparing the run: nothing was sent.")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aRunRegisteredWhileItPreparesKeepsItsRecordsInThatRun() throws Exception {
        StringWriter err = new StringWriter();
        PerfRun run = new PerfRun(process(), new StopSignal()).loadWith((spec, notes, whenSlow) -> {
            whenSlow.run();
            return SpecPoints.load(spec, notes, whenSlow);
        });
        int exit = run.run(spec(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));

        assertThat(exit).as(err.toString()).isZero();
        StoredRun stored = single();
        assertThat(stored.row().status()).isEqualTo(RunRow.FINISHED);
        assertThat(stored.row().requestCount()).isEqualTo(2);
        assertThat(stored.config().path("max_tokens").asInt()).isEqualTo(4);
        assertThat(err.toString()).containsOnlyOnce("Run history: run ");
    }

    @Test
    void badInputFoundAfterTheRunWasRegisteredEndsTheStoredRunFailed() throws Exception {
        StringWriter err = new StringWriter();
        PerfRun run = new PerfRun(process(), new StopSignal()).loadWith((spec, notes, whenSlow) -> {
            whenSlow.run();
            throw new BadInputException("big.jsonl:400001: question: missing");
        });
        try {
            run.run(spec(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            throw new AssertionError("bad input must throw");
        } catch (BadInputException e) {
            assertThat(e.getMessage()).isEqualTo("big.jsonl:400001: question: missing");
        }
        assertThat(single().row().status()).isEqualTo(RunRow.FAILED);
    }

    private PerfRun.Process process() {
        return new PerfRun.Process(Map.of("UNIBENCH_HOME", dir.toString()), false, false, false,
                new ServerMetricsOption(), null, ShardRun.NONE, e -> new BadInputException(e.getMessage()), null);
    }

    private RunSpec spec() {
        CliHarness.Run dry = CliHarness.perf(new PerfCommand(), Map.of("UNIBENCH_HOME", dir.toString()), "--dry-run",
                "--db", db().toString(), "--number", "2", "--max-tokens", "4", "--min-prompt-length", "8",
                "--max-prompt-length", "8", "--outputs-dir", dir.resolve("out").toString(), "--no-timestamp");
        assertThat(dry.exit()).as(dry.err()).isZero();
        return RunSpecJson.read(dry.out(), "spec");
    }

    private Path db() {
        return dir.resolve("h.db");
    }

    private StoredRun single() throws Exception {
        try (RunStore store = RunStore.open(StoreLocation.sqlite(db()))) {
            List<RunRow> rows = store.list(RunFilter.all(10));
            assertThat(rows).hasSize(1);
            return store.run(rows.getFirst().runId());
        }
    }
}
