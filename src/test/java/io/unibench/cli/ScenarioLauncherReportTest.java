package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioFile;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.web.Cancellation;
import io.unibench.web.RunLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's scenario run ({@link ScenarioLauncher}) whose {@code scenario_summary.txt} cannot be written (its
 * temporary file is a link to /dev/full): the run ends failed with the one line, and so does the other provider's
 * linked run (before: it stayed {@code finished}); the queued run's end is the queue's, from what is returned.
 */
class ScenarioLauncherReportTest {
    @TempDir
    Path dir;

    @Test
    void aSummaryThatCannotBeWrittenEndsTheLinkedRunsFailed() throws Exception {
        StoreLocation location = StoreLocation.sqlite(dir.resolve("runs.db"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1))) {
            String yaml = """
                    name: pair
                    providers:
                      - {name: p, base_url: "%1$s", model: m}
                      - {name: q, base_url: "%1$s", model: m}
                    generation: {temperature: 0, max_tokens: 4}
                    concurrency: {levels: [1], requests_per_level: 2}
                    scenarios:
                      - {name: qa, type: chat, stream: true, prompt: "hello"}
                    """.formatted(sim.baseUrl() + "/v1");
            BenchConfig bench = ScenarioFile.parse("pair.yaml", yaml, Map.of());
            String id;
            try (RunStore store = RunStore.open(location)) {
                RunStart start = new RunStart("pair", List.of(), "m", sim.baseUrl() + "/v1",
                        new ObjectMapper().createObjectNode().put("name", "pair"), Map.of());
                id = store.createRun(start, Owner.current(), System.currentTimeMillis(), RunRow.QUEUED);
                assertThat(store.startQueued(id, start, Owner.current(), System.currentTimeMillis())).isTrue();
            }
            Path outputs = dir.resolve("outputs");
            Path root = Files.createDirectories(outputs.resolve(id));
            Files.createSymbolicLink(root.resolve("scenario_summary.txt.tmp"), Path.of("/dev/full"));

            RunFinished end;
            try (EventHub events = new EventHub()) {
                end = new ScenarioLauncher(Map.of(), outputs, new PrintWriter(Writer.nullWriter()))
                        .run(new RunLauncher.Launch(id, bench, null, location, events, new Cancellation()));
            }
            assertThat(end.status()).isEqualTo(RunStatus.FAILED);
            assertThat(end.reason()).startsWith("cannot write " + root.resolve("scenario_summary.txt"));
            assertThat(root.resolve("q/qa/parallel_1/requests.jsonl")).exists(); // what was measured is kept
            try (RunStore store = RunStore.open(location)) {
                assertThat(store.linkedRuns(id)).singleElement().satisfies(r -> {
                    assertThat(r.status()).isEqualTo(RunRow.FAILED);
                    assertThat(r.statusReason()).startsWith("cannot write ");
                });
                assertThat(store.run(id).row().status()).isEqualTo(RunRow.RUNNING); // the queue stores its end
            }
        }
    }
}
