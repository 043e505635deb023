package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A scenario file run as a sharded run: three JVMs run {@code run --config F --shard I/3 --run-group G} against one
 * simulator on loopback, sharing one store; each level of the file is split (its concurrency and requests), every
 * level starts on all shards together, and the last shard to end stores the merged run, whose every level has the
 * one-process run's counts and the exact percentiles of the union of the shards' {@code requests.jsonl}. A file of
 * request_rate levels and a trace replay shards as well: each level λ/N per shard, the trace's rows dealt to the
 * shards at their recorded times, none twice and none lost.
 */
class ShardedScenarioEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SHARDS = 3;
    private static final int PER_LEVEL = 30;
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void threeShardJvmsOfAScenarioFileMergeIntoTheOneProcessRunLevelByLevel(String kind) throws Exception {
        String db = ShardedRunEndToEndTest.db(kind, tmp);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withSeed(9))) {
            Path file = tmp.resolve("bench.yaml");
            Files.writeString(file, """
                    name: sc
                    provider: {name: p, base_url: %s/v1, model: unibench-sim}
                    generation: {max_tokens: 6, ignore_eos: true}
                    concurrency: {levels: [3, 6], requests_per_level: %d}
                    rate_limit: 100000
                    scenarios:
                      - {name: chat, type: chat, prompt: Say hello., cache_bust: true}
                    """.formatted(sim.baseUrl(), PER_LEVEL));
            List<String> each = runShards(file, "gs", db);
            StringBuilder consoles = new StringBuilder();
            for (String console : each) {
                consoles.append(console);
                // its slice: a third of each level's concurrency and requests
                assertThat(console).contains("[p/chat] concurrency 1: 10 requests", "[p/chat] concurrency 2: 10 requests");
                assertThat(console).doesNotContain("going on without");
            }
            assertThat(consoles.toString().split("every shard has ended; merged run group:gs stored", -1)).hasSize(2);
            CliHarness.Run one = CliHarness.main("run", "--config", file.toString(), "--db",
                    tmp.resolve("one.db").toString(), "--outputs-dir", tmp.resolve("one").toString(), "--no-timestamp");
            assertThat(one.exit()).as(one.err()).isZero();

            StoredRun merged;
            try (RunStore s = RunStore.open(StoreLocation.resolve(db, Map.of()))) {
                assertThat(s.list(RunFilter.all(10))).extracting(RunRow::runId).containsExactly("group:gs");
                merged = s.run("group:gs");
            }
            List<StoredPoint> onePoints;
            try (RunStore s = RunStore.open(StoreLocation.sqlite(tmp.resolve("one.db")))) {
                onePoints = s.run(s.list(RunFilter.all(1)).getFirst().runId()).points();
            }
            assertThat(merged.points()).extracting(StoredPoint::label)
                    .containsExactly("p/chat/parallel_3", "p/chat/parallel_6");
            assertThat(merged.points()).extracting(StoredPoint::concurrency).containsExactly(3, 6);
            // whole: every shard ran every request; a shard's self-check verdict (client-bound on a busy machine)
            // is said beside and does not make the merge partial (GroupMergeTest injects one)
            assertThat(merged.row().status()).as(merged.row().statusReason()).isEqualTo(RunRow.FINISHED);
            assertThat(merged.row().statusReason()).isNull();
            for (int p = 0; p < 2; p++) {
                JsonNode summary = merged.points().get(p).summary();
                for (String key : List.of("Total Requests", "Success Requests", "Failed Requests")) {
                    assertThat(summary.path(key).asLong()).as(key).isEqualTo(onePoints.get(p).summary().path(key).asLong());
                }
                assertThat(summary.path("Total Requests").asLong()).isEqualTo(PER_LEVEL);
                List<JsonNode> union = new ArrayList<>();
                for (int i = 0; i < SHARDS; i++) {
                    union.addAll(ShardedRunEndToEndTest.jsonl(tmp.resolve("shard-" + i).resolve("sc/p/chat/parallel_"
                            + (p + 1))));
                }
                assertThat(union).hasSize(PER_LEVEL);
                JsonNode rows = JSON.valueToTree(merged.points().get(p).percentiles());
                ShardedRunEndToEndTest.assertPercentiles(rows, union, "Latency (s)", "latency_s", 1, 4);
                ShardedRunEndToEndTest.assertPercentiles(rows, union, "TTFT (ms)", "ttft_s", 1000, 2);
            }
        }
    }

    /** Runs shard 0 … SHARDS−1 of {@code file} in JVMs of their own, at once; each ended with 0: their consoles. */
    private List<String> runShards(Path file, String group, String db) throws Exception {
        List<Process> shards = new ArrayList<>();
        for (int i = 0; i < SHARDS; i++) {
            shards.add(ShardedRunEndToEndTest.jvm(List.of("run", "--config", file.toString(), "--shard",
                    i + "/" + SHARDS, "--run-group", group, "--db", db, "--outputs-dir",
                    tmp.resolve("shard-" + i).toString(), "--no-timestamp"), tmp.resolve("shard-" + i + ".txt")));
        }
        List<String> consoles = new ArrayList<>();
        for (int i = 0; i < SHARDS; i++) {
            assertThat(shards.get(i).waitFor(180, TimeUnit.SECONDS)).isTrue();
            String console = Files.readString(tmp.resolve("shard-" + i + ".txt"));
            assertThat(shards.get(i).exitValue()).as(console).isZero();
            consoles.add(console);
        }
        return consoles;
    }

    /** 12 trace rows 40 ms apart, each its own prompt length (so a row is known by its prompt_tokens). */
    private static final int ROWS = 12;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void requestRateLevelsAndATraceReplayAreSplitAndMergeIntoTheOneProcessRun(String kind) throws Exception {
        String db = ShardedRunEndToEndTest.db(kind, tmp);
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add("{\"timestamp\": " + (40 * i) + ", \"input_length\": " + (40 + 24 * i)
                    + ", \"output_length\": 3, \"hash_ids\": [" + (100 + i) + "]}");
        }
        Path trace = Files.write(tmp.resolve("trace.jsonl"), rows);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withSeed(11))) {
            Path file = tmp.resolve("loads.yaml");
            Files.writeString(file, """
                    name: sc
                    provider: {name: p, base_url: %s/v1, model: unibench-sim}
                    generation: {max_tokens: 4, ignore_eos: true}
                    request_rate: {levels: [60, 120], requests_per_level: %d}
                    scenarios:
                      - {name: chat, type: chat, prompt: Say hello., cache_bust: true}
                      - {name: t, type: chat, dataset: mooncake_trace, dataset_path: %s}
                    """.formatted(sim.baseUrl(), PER_LEVEL, trace));
            runShards(file, "gr", db);
            CliHarness.Run one = CliHarness.main("run", "--config", file.toString(), "--db",
                    tmp.resolve("one.db").toString(), "--outputs-dir", tmp.resolve("one").toString(), "--no-timestamp");
            assertThat(one.exit()).as(one.err()).isZero();
            StoredRun merged;
            try (RunStore s = RunStore.open(StoreLocation.resolve(db, Map.of()))) {
                merged = s.run("group:gr");
            }
            List<StoredPoint> onePoints;
            try (RunStore s = RunStore.open(StoreLocation.sqlite(tmp.resolve("one.db")))) {
                onePoints = s.run(s.list(RunFilter.all(1)).getFirst().runId()).points();
            }
            List<String> levels = List.of("p/chat/rate_60", "p/chat/rate_120", "p/t/trace");
            assertThat(merged.points()).extracting(StoredPoint::label).containsExactlyElementsOf(levels);
            assertThat(onePoints).extracting(StoredPoint::label).containsExactlyElementsOf(levels);
            for (int p = 0; p < levels.size(); p++) {
                JsonNode summary = merged.points().get(p).summary();
                for (String key : List.of("Total Requests", "Success Requests", "Failed Requests")) {
                    assertThat(summary.path(key).asLong()).as(levels.get(p) + " " + key)
                            .isEqualTo(onePoints.get(p).summary().path(key).asLong());
                }
                assertThat(summary.path("Total Requests").asLong()).isEqualTo(p < 2 ? PER_LEVEL : ROWS);
                // the shards' rates sum to the level's λ (the trace's: its mean rate)
                double rate = 0;
                for (int i = 0; i < SHARDS; i++) {
                    JsonNode level = JSON.readTree(tmp.resolve("shard-" + i).resolve("sc/" + levels.get(p)
                            + "/benchmark_summary.json").toFile());
                    rate += level.path("Request Rate (req/s)").asDouble();
                    if (p < 2) {
                        assertThat(level.path("Request Rate (req/s)").asDouble()).as("shard %d's λ/N", i)
                                .isCloseTo((p == 0 ? 60 : 120) / (double) SHARDS, within(0.01));
                    }
                }
                assertThat(rate).as(levels.get(p)).isCloseTo(onePoints.get(p).summary().path("Request Rate (req/s)")
                        .asDouble(), within(0.05));
                assertThat(merged.points().get(p).rate()).isCloseTo(onePoints.get(p).rate(), within(1e-6));
            }
            // the trace: shard I sent rows I, I + 3, … at their recorded times; together every row once
            List<Integer> sentPrompts = new ArrayList<>();
            for (int i = 0; i < SHARDS; i++) {
                // requests.jsonl is in the order requests ended, which a busy machine may change: by schedule
                List<JsonNode> sent = new ArrayList<>(ShardedRunEndToEndTest.jsonl(tmp.resolve("shard-" + i)
                        .resolve("sc/p/t/trace")));
                sent.sort(java.util.Comparator.comparingDouble(r -> r.path("scheduled_s").asDouble()));
                assertThat(sent).hasSize((ROWS - i + SHARDS - 1) / SHARDS);
                double first = sent.getFirst().path("scheduled_s").asDouble();
                for (int j = 0; j < sent.size(); j++) {
                    int row = i + j * SHARDS;
                    assertThat(sent.get(j).path("scheduled_s").asDouble() - first).as("row %d", row)
                            .isCloseTo((40.0 * row - 40.0 * i) / 1000, within(2e-6));
                    sentPrompts.add(sent.get(j).path("prompt_tokens").asInt());
                }
            }
            List<Integer> onePrompts = ShardedRunEndToEndTest.jsonl(tmp.resolve("one").resolve("sc/p/t/trace")).stream()
                    .sorted(java.util.Comparator.comparingDouble(r -> r.path("scheduled_s").asDouble())) // row order
                    .map(r -> r.path("prompt_tokens").asInt()).toList();
            assertThat(onePrompts).hasSize(ROWS).doesNotHaveDuplicates();
            assertThat(sentPrompts).containsExactlyInAnyOrderElementsOf(onePrompts);
            try (RunStore s = RunStore.open(StoreLocation.resolve(db, Map.of()))) {
                // the merged run's trace rows: the shards' rows with the trace's own row numbers, each once
                Map<Long, Integer> byRow = new java.util.TreeMap<>();
                s.forEachRequest("group:gr", 2, r -> byRow.put(r.position().index(), r.tokens().prompt()));
                assertThat(byRow.keySet()).containsExactly(java.util.stream.LongStream.range(0, ROWS).boxed()
                        .toArray(Long[]::new));
                assertThat(byRow.values()).containsExactlyElementsOf(onePrompts);
            }

            // deleting the merge alone releases its claim: `runs merge gr --store` stores it again
            CliHarness.Run keep = CliHarness.main("runs", "delete", "group:gr", "--keep-shards", "--db", db);
            assertThat(keep.exit()).as(keep.err()).isZero();
            assertThat(keep.out()).contains("Deleted run group:gr (" + (2 * PER_LEVEL + ROWS) + " requests).",
                    "Run group gr: its shards' runs are kept; the group is merged again");
            CliHarness.Run again = CliHarness.main("runs", "merge", "gr", "--store", "--db", db);
            assertThat(again.exit()).as(again.err()).isZero();
            assertThat(again.err()).contains("Stored merged run group:gr");
            // the whole sharded run: the merge and its 3 shards' runs
            CliHarness.Run all = CliHarness.main("runs", "delete", "group:gr", "--db", db);
            assertThat(all.exit()).as(all.err()).isZero();
            assertThat(all.out()).contains("Run group gr: its shards' registrations are deleted; the name may be used "
                    + "again.").containsPattern("Deleted run group:gr and \\S+, \\S+, \\S+ \\(");
            try (RunStore s = RunStore.open(StoreLocation.resolve(db, Map.of()))) {
                assertThat(s.list(RunFilter.all(10))).isEmpty();
            }
        }
    }
}
