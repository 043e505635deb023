package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunInfo;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: a perf run is in the run history (and the service's run list) while its first requests are prepared —
 * {@link HistoryRecorder#register} starts the stored run before the first point's preparation, and the point's
 * records then go into that same run.
 */
class HistoryRegisterTest {
    @TempDir
    Path dir;

    @Test
    void aRegisteredRunIsListedBeforeItsFirstPointAndItsRecordsGoIntoIt() throws Exception {
        StoreLocation location = StoreLocation.sqlite(dir.resolve("h.db"));
        PrintWriter err = new PrintWriter(new StringWriter(), true);
        HistoryRecorder recorder = new HistoryRecorder(RunHistory.scratch(location, err),
                t -> new RunStart("prep", List.of(), "m", "http://127.0.0.1:1/v1/chat/completions",
                        new ObjectMapper().createObjectNode(), Map.of()));

        recorder.register(0); // PerfPoints: before the first batch of requests is prepared
        assertThat(runs(location)).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("prep");
            assertThat(r.status()).isEqualTo(RunRow.RUNNING);
        });

        RunSpec.Point point = new RunSpec.Point("parallel_1_number_1", 0, 0, new LoadPlan(1, 1, 0, null, 0),
                Duration.ZERO);
        recorder.register(0); // again: the same run
        recorder.pointSink(point, new RunInfo(point.label(), 1, -1, 1), System.nanoTime());
        recorder.close(false);
        assertThat(runs(location)).singleElement().satisfies(r -> assertThat(r.status()).isNotEqualTo(RunRow.RUNNING));
    }

    private static List<RunRow> runs(StoreLocation location) throws Exception {
        try (RunStore store = RunStore.open(location)) {
            return store.list(RunFilter.all(10));
        }
    }
}
