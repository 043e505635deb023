package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.Rounding;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.ShardRegistry;
import io.unibench.store.ShardRow;
import io.unibench.store.StoreLocation;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A sharded run as its users run it: N separate JVMs run {@code perf --shard I/N --run-group G} against one simulator
 * on loopback, sharing one store (a SQLite file, or the PostgreSQL server of {@code UNIBENCH_TEST_PG_URL}); then
 * {@code runs merge G --json}. The merged run is compared with one process running the same spec and with the
 * union of the shards' own {@code requests.jsonl} files; a shard killed with SIGKILL makes it partial.
 */
class ShardedRunEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SHARDS = 4;
    private static final int CONVERSATIONS = 60;
    private static final int TURNS = 2;
    @TempDir
    Path tmp;

    private String db(String kind) throws Exception {
        return db(kind, tmp);
    }

    /** The store every shard JVM writes to: a SQLite file in {@code dir}, or a new PostgreSQL schema. */
    static String db(String kind, Path dir) throws Exception {
        if (kind.equals("sqlite")) return dir.resolve("shared.db").toString();
        return TestStores.postgres().location().jdbcUrl(); // dropped with the test server's cluster (.ci/run)
    }

    private static List<String> spec(String url) {
        return List.of("perf", "--url", url, "--model", "unibench-sim", "--multi-turn", "--min-turns", "" + TURNS,
                "--max-turns", "" + TURNS, "--number", "" + CONVERSATIONS, "--parallel", "8", "--max-tokens", "6",
                "--min-prompt-length", "12", "--max-prompt-length", "12", "--extra-args", "{\"ignore_eos\": true}",
                "--sleep-interval", "0", "--no-timestamp", "--name", "s");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void fourShardProcessesMergeIntoTheOneProcessRunExactly(String kind) throws Exception {
        String db = db(kind);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1).withSeed(3))) {
            String url = sim.baseUrl() + "/v1/chat/completions";
            List<Process> shards = new ArrayList<>();
            for (int i = 0; i < SHARDS; i++) {
                List<String> args = new ArrayList<>(spec(url));
                args.addAll(List.of("--shard", i + "/" + SHARDS, "--run-group", "g4", "--db", db,
                        "--outputs-dir", tmp.resolve("shard-" + i).toString()));
                shards.add(jvm(args, tmp.resolve("shard-" + i + ".txt")));
            }
            for (int i = 0; i < SHARDS; i++) {
                assertThat(shards.get(i).waitFor(180, TimeUnit.SECONDS)).isTrue();
                assertThat(shards.get(i).exitValue()).as(console(i)).isZero();
            }
            List<String> one = new ArrayList<>(spec(url));
            one.addAll(List.of("--db", tmp.resolve("one.db").toString(), "--outputs-dir", tmp.resolve("one").toString()));
            CliHarness.Run single = CliHarness.main(one.toArray(String[]::new));
            assertThat(single.exit()).as(single.err()).isZero();
            CliHarness.Run merge = CliHarness.main("runs", "merge", "g4", "--json", "--db", db);
            assertThat(merge.exit()).as(merge.err()).isZero();

            JsonNode m = JSON.readTree(merge.out());
            // whole: a shard's self-check verdict (client-bound, which this shared 2-core machine may give with four
            // clients and the simulator on it) is said beside and is not partial (GroupMergeTest injects one)
            assertThat(m.path("partial_reasons")).isEmpty();
            assertThat(m.path("partial").asBoolean()).isFalse();
            assertThat(m.path("client_bound")).allMatch(r -> r.asText().matches("shard \\d/\\d: "
                    + ShardRow.CLIENT_BOUND + ": .*"));
            assertThat(m.path("shards")).hasSize(SHARDS);
            for (JsonNode s : m.path("shards")) {
                assertThat(s.path("status").asText()).isEqualTo("finished");
                assertThat(s.path("selfcheck").asText()).matches(ShardRow.SELF_CHECK_OK + "|" + ShardRow.CLIENT_BOUND + ": .*");
            }
            JsonNode summary = m.at("/points/0/summary");
            JsonNode oneSummary = onePointSummary(tmp.resolve("one.db"));
            for (String key : List.of("Total Requests", "Success Requests", "Failed Requests", "Concurrency")) {
                assertThat(summary.path(key).asLong()).as(key).isEqualTo(oneSummary.path(key).asLong());
            }
            assertThat(summary.path("Total Requests").asLong()).isEqualTo(CONVERSATIONS * TURNS);
            assertThat(m.path("request_count").asLong()).isEqualTo(CONVERSATIONS * TURNS);
            // per-trace table across shards: every conversation of every shard, none twice
            assertThat(m.at("/points/0/traces/n_traces").asInt()).isEqualTo(CONVERSATIONS);
            assertThat(m.at("/points/0/traces/n_completed_traces").asInt()).isEqualTo(CONVERSATIONS);

            // the merged percentiles are those of the union of the shards' requests.jsonl, exactly
            List<JsonNode> union = new ArrayList<>();
            for (int i = 0; i < SHARDS; i++) union.addAll(jsonl(tmp.resolve("shard-" + i)));
            assertThat(union).hasSize(CONVERSATIONS * TURNS);
            assertPercentiles(m.at("/points/0/percentiles"), union, "Latency (s)", "latency_s", 1, 4);
            assertPercentiles(m.at("/points/0/percentiles"), union, "TTFT (ms)", "ttft_s", 1000, 2);
            assertPercentiles(m.at("/points/0/percentiles"), union, "Output tokens", "completion_tokens", 1, 2);
            // the text form says the same group and shards
            CliHarness.Run text = CliHarness.main("runs", "merge", "g4", "--db", db);
            assertThat(text.out()).contains("Run group g4: 4 of 4 shards", "group:g4 (merged from 4 of 4 shards)");

            // nobody ran `runs merge` for this: the last shard to end stored the merged run, exactly one of the four
            long storers = 0;
            for (int i = 0; i < SHARDS; i++) {
                if (console(i).contains("every shard has ended; merged run group:g4 stored")) storers++;
            }
            assertThat(storers).as(console(0) + console(1) + console(2) + console(3)).isEqualTo(1);
            try (RunStore s = RunStore.open(StoreLocation.resolve(db, Map.of()))) {
                // listed once, instead of its four shards
                assertThat(s.list(io.unibench.store.RunFilter.all(10))).extracting(io.unibench.store.RunRow::runId)
                        .containsExactly("group:g4");
                io.unibench.store.StoredRun stored = s.run("group:g4");
                assertThat(stored.row().requestCount()).isEqualTo(CONVERSATIONS * TURNS);
                assertThat(stored.points().getFirst().percentiles()).isEqualTo(m.at("/points/0/percentiles"));
                assertThat(stored.points().getFirst().summary().path("Total Requests").asLong())
                        .isEqualTo(CONVERSATIONS * TURNS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aKilledShardMakesTheMergedRunPartialWithTheReason(String kind) throws Exception {
        String db = db(kind);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(2).withSeed(5))) {
            String url = sim.baseUrl() + "/v1/chat/completions";
            List<Process> shards = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                shards.add(jvm(List.of("perf", "--url", url, "--model", "unibench-sim", "--number", "100000",
                        "--parallel", "4", "--duration", i == 0 ? "4" : "60", "--max-tokens", "8",
                        "--min-prompt-length", "8", "--max-prompt-length", "8", "--shard", i + "/2", "--run-group", "gk",
                        "--db", db, "--outputs-dir", tmp.resolve("k-" + i).toString(), "--no-timestamp"),
                        tmp.resolve("shard-" + i + ".txt")));
            }
            try {
                // at most 90 s until the second shard has committed some requests (its writer commits every 0.5 s)
                long stored = 0;
                for (int i = 0; i < 900 && stored < 20 && shards.get(1).isAlive(); i++) {
                    LockSupport.parkNanos(100_000_000L);
                    stored = storedBy(db, "gk", 1);
                }
                assertThat(stored).as(console(1)).isGreaterThanOrEqualTo(20);
                shards.get(1).destroyForcibly(); // SIGKILL: no hook, no finish
                assertThat(shards.get(1).waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(shards.get(0).waitFor(120, TimeUnit.SECONDS)).isTrue();
                assertThat(shards.get(0).exitValue()).as(console(0)).isZero();
            } finally {
                shards.forEach(Process::destroyForcibly);
            }
            CliHarness.Run merge = CliHarness.main("runs", "merge", "gk", "--json", "--db", db);
            assertThat(merge.exit()).as(merge.err()).isZero();
            JsonNode m = JSON.readTree(merge.out());
            assertThat(m.path("partial").asBoolean()).isTrue();
            assertThat(m.path("status").asText()).isEqualTo("partial");
            assertThat(m.path("partial_reasons")).hasSize(1);
            assertThat(m.path("partial_reasons").get(0).asText()).matches("shard 1/2: run \\S+ is interrupted "
                    + "\\(its process ended before the shard finished\\); \\d+ requests stored");
            // what the killed shard committed is in the merged run
            long killed = m.at("/shards/1/requests").asLong();
            long survivor = m.at("/shards/0/requests").asLong();
            assertThat(killed).isGreaterThanOrEqualTo(20);
            assertThat(m.at("/points/0/summary/Total Requests").asLong()).isEqualTo(killed + survivor);

            // stored partial without `runs merge`: by shard 0 when it ended after the kill, else by the service's poll
            StoreLocation loc = StoreLocation.resolve(db, Map.of());
            if (!console(0).contains("merged run group:gk stored")) {
                assertThat(io.unibench.store.MergedRuns.mergeOpenGroups(loc, io.unibench.store.Owner.current(),
                        System.currentTimeMillis(), (g, e) -> { throw new AssertionError(e); })).hasSize(1);
            }
            try (RunStore s = RunStore.open(loc)) {
                io.unibench.store.RunRow row = s.run("group:gk").row();
                assertThat(row.status()).isEqualTo(io.unibench.store.RunRow.PARTIAL);
                // running when shard 0 merged at its end; interrupted once a later start recovered the killed run
                assertThat(row.statusReason()).matches("(.*; )?shard 1/2: run \\S+ is (running|interrupted) \\(its "
                        + "process ended before the shard finished\\); \\d+ requests stored(; .*)?");
                assertThat(row.requestCount()).isEqualTo(killed + survivor);
            }
        }
    }

    private static long storedBy(String db, String group, int index) throws Exception {
        StoreLocation loc = StoreLocation.resolve(db, Map.of());
        try (ShardRegistry r = ShardRegistry.open(loc); RunStore s = RunStore.open(loc)) {
            for (ShardRow row : r.shards(group)) {
                if (row.index() != index) continue;
                String run = r.runOf(row);
                return run == null ? 0 : s.run(run).row().requestCount();
            }
            return 0;
        }
    }

    private static JsonNode onePointSummary(Path db) throws Exception {
        try (RunStore s = RunStore.open(StoreLocation.sqlite(db))) {
            String id = s.list(io.unibench.store.RunFilter.all(1)).getFirst().runId();
            return s.run(id).points().getFirst().summary();
        }
    }

    /** Every row's value equals sorted[floor(n·p/100)] (min and max the extremes), rounded as the table rounds. */
    static void assertPercentiles(JsonNode rows, List<JsonNode> requests, String column, String field,
                                          double scale, int decimals) {
        double[] v = requests.stream().filter(r -> r.path("success").asBoolean()).map(r -> r.get(field))
                .filter(n -> n != null && !n.isNull()).mapToDouble(n -> n.asDouble() * scale).sorted().toArray();
        assertThat(v).isNotEmpty();
        double[] points = {0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100};
        for (int i = 0; i < points.length; i++) {
            int k = (int) Math.min(v.length - 1, Math.floor(v.length * points[i] / 100));
            double want = points[i] == 0 ? v[0] : v[k];
            assertThat(rows.get(i).path(column).asDouble()).as("%s at %s%%", column, points[i])
                    .isEqualTo(Rounding.round(want, decimals));
        }
    }

    static List<JsonNode> jsonl(Path dir) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().equals("requests.jsonl")).toList()) {
                for (String line : Files.readAllLines(f)) out.add(JSON.readTree(line));
            }
        }
        return out;
    }

    static Process jvm(List<String> args, Path console) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(Arrays.asList(java, "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(console.toFile());
        pb.environment().remove("UNIBENCH_DB");
        return pb.start();
    }

    private String console(int shard) {
        try {
            return Files.readString(tmp.resolve("shard-" + shard + ".txt"));
        } catch (IOException e) {
            return "no console: " + e;
        }
    }
}
