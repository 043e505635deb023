package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code perf --shard} and {@code run --shard} are one function of the spec ({@code RunSpec.slice}): the same slice
 * and the same refusal; a shard's spec runs with {@code --run-group}; a spec of several targets and workloads runs
 * each target × workload with the same files per point. Against the embedded simulator on 127.0.0.1.
 */
class ShardedSpecTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static CliHarness.Run perf(String... args) {
        return CliHarness.perf(new PerfCommand(), args);
    }

    private List<String> flags(String... more) {
        return flags(dir.resolve("out"), more);
    }

    private static List<String> flags(Path out, String... more) {
        List<String> f = new ArrayList<>(List.of("--url", "sim", "--max-tokens", "2", "--sleep-interval", "0",
                "--no-timestamp", "--name", "s", "--outputs-dir", out.toString(), "--no-client-warmup"));
        f.addAll(List.of(more));
        return f;
    }

    private static JsonNode dryRunPerf(List<String> flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("--dry-run"));
        args.addAll(flags);
        CliHarness.Run r = perf(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return JSON.readTree(r.out());
    }

    private Path save(String name, JsonNode spec) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, JSON.writeValueAsString(spec));
        return f;
    }

    @Test
    void perfShardAndRunShardOfTheSameSpecAreTheSameSliceAndTheSameRefusal() throws Exception {
        String db = dir.resolve("h.db").toString();
        List<String> load = List.of("--parallel", "3", "6", "--number", "7", "11", "--rate", "12", "--db", db);
        Path whole = save("whole.json", dryRunPerf(flags(load.toArray(String[]::new))));
        for (int i = 0; i < 3; i++) {
            List<String> sharded = flags(load.toArray(String[]::new));
            sharded.addAll(List.of("--shard", i + "/3", "--run-group", "g"));
            JsonNode viaPerf = dryRunPerf(sharded);
            CliHarness.Run viaRun = CliHarness.run(whole.toString(), "--shard", i + "/3", "--run-group", "g",
                    "--db", db, "--dry-run");
            assertThat(viaRun.exit()).as(viaRun.err()).isZero();
            assertThat(JSON.readTree(viaRun.out())).as("shard %d/3", i).isEqualTo(viaPerf);
            assertThat(viaPerf.at("/points/1/slice/of").asInt()).isEqualTo(11); // every sweep point is sliced
        }
        // the same refusal, word for word, naming the flag
        List<String> few = flags("--number", "2", "--parallel", "4", "--db", db);
        Path small = save("small.json", dryRunPerf(few));
        few.addAll(List.of("--shard", "0/3", "--run-group", "g", "--dry-run"));
        CliHarness.Run refusedPerf = perf(few.toArray(String[]::new));
        CliHarness.Run refusedRun = CliHarness.run(small.toString(), "--shard", "0/3", "--run-group", "g", "--dry-run");
        String line = "--shard 0/3: point 'parallel_4_number_2' sends 2 requests, fewer than the 3 shards; each "
                + "shard needs at least 1";
        assertThat(refusedPerf.exit()).isEqualTo(2);
        assertThat(refusedRun.exit()).isEqualTo(2);
        assertThat(refusedPerf.err().strip()).endsWith(line).doesNotContain("\n");
        assertThat(refusedRun.err().strip()).endsWith(line).doesNotContain("\n");
    }

    @Test
    void perfShardsATraceAsRunShardsOneItsRowsDealtAtTheirTimes() throws Exception {
        Path trace = Files.write(dir.resolve("t.jsonl"), MooncakeTraceEndToEndTest.TRACE);
        List<String> f = flags("--dataset", "mooncake_trace", "--dataset-path", trace.toString(), "--db",
                dir.resolve("h.db").toString(), "--shard", "1/2", "--run-group", "g");
        JsonNode spec = dryRunPerf(f);
        JsonNode plan = spec.at("/points/0/plan");
        assertThat(plan.at("/arrivals/kind").asText()).isEqualTo("recorded");
        assertThat(plan.at("/arrivals/from_start").asBoolean()).isTrue();
        assertThat(spec.at("/points/0/slice/first").asInt()).isEqualTo(1);
        assertThat(spec.at("/points/0/slice/stride").asInt()).isEqualTo(2);
        int rows = spec.at("/points/0/slice/of").asInt();
        assertThat(plan.at("/number").asInt()).isEqualTo(rows / 2); // rows 1, 3, …
        assertThat(plan.at("/arrivals/offsets_nanos")).hasSize(rows / 2);
    }

    @Test
    void twoShardsOfAPerfTraceReplaySendEveryRowOnceAndMergeIntoTheWhole() throws Exception {
        Path trace = Files.write(dir.resolve("t.jsonl"), MooncakeTraceEndToEndTest.TRACE);
        String db = dir.resolve("h.db").toString();
        // --start-at in the past: each shard starts at once, so they can run one after the other here
        for (int i = 0; i < 2; i++) {
            List<String> f = flags(dir.resolve("o" + i), "--dataset", "mooncake_trace", "--dataset-path",
                    trace.toString(), "--trace-speedup", "10", "--db", db, "--shard", i + "/2", "--run-group", "tg",
                    "--start-at", "1000");
            CliHarness.Run ran = perf(f.toArray(String[]::new));
            assertThat(ran.exit()).as(ran.err()).isZero();
            long sent;
            try (var files = Files.walk(dir.resolve("o" + i))) {
                Path jsonl = files.filter(p -> p.getFileName().toString().equals("requests.jsonl")).findFirst().orElseThrow();
                sent = Files.readAllLines(jsonl).stream().filter(l -> !l.isBlank()).count();
            }
            assertThat(sent).as("shard %d/2 sends rows %d, %d, …", i, i, i + 2).isEqualTo(i == 0 ? 3 : 2);
        }
        CliHarness.Run merge = CliHarness.main("runs", "merge", "tg", "--json", "--db", db);
        assertThat(merge.exit()).as(merge.err()).isZero();
        JsonNode m = JSON.readTree(merge.out());
        assertThat(m.path("partial").asBoolean()).as(merge.out()).isFalse();
        assertThat(m.at("/points/0/summary/Total Requests").asLong()).isEqualTo(5);
    }

    @Test
    void aShardsSpecRunsWithItsRunGroupAndTheShardsMergeIntoTheWhole() throws Exception {
        String db = dir.resolve("h.db").toString();
        List<String> load = List.of("--parallel", "2", "--number", "9", "--db", db);
        List<Path> specs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            List<String> f = flags(dir.resolve("o" + i), load.toArray(String[]::new));
            f.addAll(List.of("--shard", i + "/2", "--run-group", "sg"));
            specs.add(save("shard" + i + ".json", dryRunPerf(f)));
        }
        CliHarness.Run noGroup = CliHarness.run(specs.getFirst().toString());
        assertThat(noGroup.exit()).isEqualTo(2);
        assertThat(noGroup.err().strip()).contains("shard0.json: /shard 0/2 is one shard of a run group: give "
                + "--run-group G").doesNotContain("\n");
        CliHarness.Run other = CliHarness.run(specs.getFirst().toString(), "--shard", "1/2", "--run-group", "sg");
        assertThat(other.exit()).isEqualTo(2);
        assertThat(other.err().strip()).contains("--shard 1/2: ").contains("is already shard 0/2");
        // --start-at in the past: each shard starts at once, so they can run one after the other here
        for (int i = 0; i < 2; i++) {
            CliHarness.Run ran = CliHarness.run(specs.get(i).toString(), "--run-group", "sg", "--start-at", "1000",
                    "--no-client-warmup");
            assertThat(ran.exit()).as(ran.err()).isZero();
            assertThat(ran.err()).contains("Shard " + i + "/2 of run group 'sg'");
        }
        CliHarness.Run merge = CliHarness.main("runs", "merge", "sg", "--json", "--db", db);
        assertThat(merge.exit()).as(merge.err()).isZero();
        JsonNode m = JSON.readTree(merge.out());
        assertThat(m.path("partial").asBoolean()).as(merge.out()).isFalse();
        assertThat(m.at("/points/0/summary/Total Requests").asLong()).isEqualTo(9);
        assertThat(m.path("request_count").asLong()).isEqualTo(9);
    }

    @Test
    void aSpecOfTwoTargetsAndTwoWorkloadsRunsEachWithThePointsFiles() throws Exception {
        ObjectNode spec = (ObjectNode) dryRunPerf(flags("--parallel", "1", "2", "--number", "2", "3", "--no-db"));
        ObjectNode t2 = ((ObjectNode) spec.at("/targets/0")).deepCopy().put("name", "second");
        ((ArrayNode) spec.get("targets")).add(t2);
        ((ObjectNode) spec.at("/targets/0")).put("name", "first");
        ObjectNode w2 = ((ObjectNode) spec.at("/workloads/0")).deepCopy().put("name", "other");
        ((ArrayNode) spec.get("workloads")).add(w2);
        ((ObjectNode) spec.at("/workloads/0")).put("name", "rand");
        ArrayNode points = (ArrayNode) spec.get("points");
        ObjectNode p2 = ((ObjectNode) points.get(0)).deepCopy().put("target", 1).put("workload", 1);
        points.add(p2);
        Path file = save("two.json", spec);
        CliHarness.Run ran = CliHarness.run(file.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        Path root = Path.of(spec.at("/outputs/root").asText());
        for (String[] p : new String[][]{{"first/rand", "parallel_1_number_2"}, {"first/rand", "parallel_2_number_3"},
                {"second/other", "parallel_1_number_2"}}) {
            Path point = root.resolve(p[0]).resolve(p[1]);
            for (String f : List.of("benchmark_summary.json", "benchmark_percentile.json", "benchmark_args.json",
                    "requests.jsonl")) {
                assertThat(point.resolve(f)).as(p[0] + "/" + p[1]).exists();
            }
            int total = JSON.readTree(point.resolve("benchmark_summary.json").toFile()).path("Total Requests").asInt();
            assertThat(total).isEqualTo(p[1].endsWith("_2") ? 2 : 3);
        }
        assertThat(root.resolve("first/rand/performance_summary.txt")).exists();
        assertThat(root.resolve("second/other/performance_summary.txt")).exists();
    }
}
