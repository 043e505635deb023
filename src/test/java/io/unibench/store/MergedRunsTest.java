package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.RunInfo;
import io.unibench.metrics.PercentileRow;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@link MergedRuns} on both stores: a group's merged run is stored once its last shard has ended — not before,
 * exactly once however many processes try at once, again never — and then stands for its shards in the run list.
 * A shard whose process died without ending counts as ended, and makes the stored merge partial.
 */
class MergedRunsTest {
    private static final long NOW = GroupMergeTest.TRUE_EPOCH_MS + 60_000;
    @TempDir
    Path tmp;

    private TestStores.Backend backend(String kind) throws Exception {
        return TestStores.of(kind, tmp);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void theLastShardToEndStoresTheMergedRunOnceAndTheListShowsItInsteadOfTheShards(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            StoreLocation loc = b.location();
            GroupMergeTest.store(loc, "m1", 0, 2, 0, new ClockOffset(0, 100), GroupMergeTest.TRUE_EPOCH_MS,
                    GroupMergeTest.records(0, 120, 1), "ok");
            try (ShardRegistry r = ShardRegistry.open(loc)) {
                r.register("m1", 1, 2, 120, new ClockOffset(0, 100), Owner.current());
            }
            MergedRuns.Result early = MergedRuns.mergeWhenDone(loc, "m1", Owner.current(), NOW);
            assertThat(early.kind()).isEqualTo(MergedRuns.Result.Kind.NOT_YET);
            assertThat(early.why()).isEqualTo("shard 1/2 still running");
            try (RunStore s = RunStore.open(loc)) {
                assertThat(s.list(RunFilter.all(10))).hasSize(1); // shard 0's run, alone
            }
            finishShard(loc, "m1", 1, GroupMergeTest.records(1, 80, 2));

            MergedRuns.Result stored = MergedRuns.mergeWhenDone(loc, "m1", Owner.current(), NOW);
            assertThat(stored.kind()).isEqualTo(MergedRuns.Result.Kind.STORED);
            assertThat(stored.runId()).isEqualTo("group:m1");
            assertThat(stored.why()).isNull();
            assertThat(MergedRuns.mergeWhenDone(loc, "m1", Owner.current(), NOW).kind())
                    .isEqualTo(MergedRuns.Result.Kind.ALREADY);
            assertThat(MergedRuns.mergeOpenGroups(loc, Owner.current(), NOW, (g, e) -> { throw new AssertionError(e); }))
                    .isEmpty();

            MergedGroup want = GroupMerge.merge(loc, "m1");
            try (RunStore s = RunStore.open(loc)) {
                List<RunRow> listed = s.list(RunFilter.all(10));
                assertThat(listed).extracting(RunRow::runId).containsExactly("group:m1");
                RunRow row = listed.getFirst();
                assertThat(row.status()).isEqualTo(RunRow.FINISHED);
                assertThat(row.requestCount()).isEqualTo(200);
                assertThat(row.successCount()).isEqualTo(want.points().getFirst().result().summary().requests().successRequests());
                StoredRun run = s.run("group:m1");
                assertThat(run.points()).hasSize(1);
                StoredPoint p = run.points().getFirst();
                assertThat(p.summary().path("Total Requests").asLong()).isEqualTo(200);
                assertThat(p.summary().path("Run Group").asText()).isEqualTo("m1");
                assertThat(p.percentiles()).isEqualTo(want.points().getFirst().percentiles());
                assertThat(p.percentiles()).hasSize(PercentileRow.LABELS.size());
                assertThat(run.config().path("run_group").asText()).isEqualTo("m1");
                // `runs report group:m1`: the merged run holds no requests; its report comes from its shards' rows,
                // read as one union in the order the merge took them: the very same percentiles
                assertThat(StoredReports.results(s, run)).singleElement()
                        .satisfies(x -> assertThat(x.summary().requests().totalRequests()).isEqualTo(200))
                        .satisfies(x -> assertThat(ResultJson.read(ResultJson.percentiles(x)))
                                .isEqualTo(want.points().getFirst().percentiles()))
                        .satisfies(x -> assertThat(ResultJson.read(ResultJson.workload(x)))
                                .isEqualTo(p.workload()));
                // its downloads and charts: the union of the shards' rows, group-wide indices, none twice or lost
                List<Long> indices = new ArrayList<>();
                s.forEachRequest("group:m1", 0, r -> indices.add(r.position().index()));
                assertThat(indices).hasSize(200).isSorted().doesNotHaveDuplicates().startsWith(0L).endsWith(199L);
                java.io.ByteArrayOutputStream jsonl = new java.io.ByteArrayOutputStream();
                RunExport.requestsJsonl(s, run, jsonl);
                assertThat(jsonl.toString().strip().split("\n")).hasSize(200);
                java.io.StringWriter csv = new java.io.StringWriter();
                RunExport.requestsCsv(s, run, csv);
                assertThat(csv.toString().split("\r\n")).hasSize(201);
                List<RunStore.RequestSample> dots = s.sampleRequests("group:m1", 0, 200, 50);
                assertThat(dots).hasSizeBetween(49, 51).isSortedAccordingTo(
                        java.util.Comparator.comparingLong(RunStore.RequestSample::index));
                assertThat(dots).anyMatch(d -> d.index() < 120).anyMatch(d -> d.index() >= 120);
                // shard 1's rows on the group's timeline: moved by its shift, as the merge placed them
                List<Long> starts = new ArrayList<>();
                s.forEachRequest("group:m1", 0, r -> starts.add(r.timing().startNanos()));
                List<Long> own = new ArrayList<>();
                s.forEachRequest(want.shards().get(1).runId(), 0, r -> own.add(r.timing().startNanos()));
                long shift = want.shards().get(1).shiftNanos();
                assertThat(starts.subList(120, 200)).isEqualTo(own.stream().map(t -> t + shift).toList());
                // the shards' runs stay stored (and can be shown), only the list leaves them out
                for (MergedGroup.Shard shard : want.shards()) assertThat(s.run(shard.runId()).row().status()).isEqualTo("finished");
            }
            MergedRuns.Group g = MergedRuns.group(loc, "group:m1");
            assertThat(g.partialReasons()).isEmpty();
            assertThat(g.shards()).extracting(m -> m.row().label()).containsExactly("0/2", "1/2");
            assertThat(g.shards()).extracting(m -> m.run().requestCount()).containsExactly(120L, 80L);
            assertThat(MergedRuns.group(loc, want.shards().getFirst().runId())).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void ofFourProcessesEndingAtOnceExactlyOneStoresTheMerge(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            StoreLocation loc = b.location();
            for (int i = 0; i < 2; i++) {
                GroupMergeTest.store(loc, "m2", i, 2, i * 50L, new ClockOffset(0, 100), GroupMergeTest.TRUE_EPOCH_MS,
                        GroupMergeTest.records(i, 50, i + 7), "ok");
            }
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Callable<MergedRuns.Result>> calls = new ArrayList<>();
                for (int i = 0; i < 4; i++) calls.add(() -> MergedRuns.mergeWhenDone(loc, "m2", Owner.current(), NOW));
                List<MergedRuns.Result.Kind> kinds = new ArrayList<>();
                for (Future<MergedRuns.Result> f : pool.invokeAll(calls)) kinds.add(f.get().kind());
                assertThat(kinds).containsOnlyOnce(MergedRuns.Result.Kind.STORED)
                        .containsOnly(MergedRuns.Result.Kind.STORED, MergedRuns.Result.Kind.ALREADY);
            } finally {
                pool.shutdownNow();
            }
            try (RunStore s = RunStore.open(loc)) {
                assertThat(s.list(RunFilter.all(10))).extracting(RunRow::runId).containsExactly("group:m2");
                assertThat(s.run("group:m2").points()).hasSize(1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aShardWhoseProcessDiedCountsAsEndedAndTheServicesPollStoresAPartialMerge(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            StoreLocation loc = b.location();
            GroupMergeTest.store(loc, "m3", 0, 2, 0, new ClockOffset(0, 100), GroupMergeTest.TRUE_EPOCH_MS,
                    GroupMergeTest.records(0, 60, 3), "ok");
            Process gone = new ProcessBuilder("true").start();
            gone.waitFor();
            Owner dead = new Owner(Owner.current().host(), gone.pid(), 0);
            try (ShardRegistry r = ShardRegistry.open(loc); RunStore s = RunStore.open(loc)) {
                r.register("m3", 1, 2, 60, new ClockOffset(0, 100), dead);
                r.started("m3", 1);
                String run = s.createRun(new RunStart("shard-1", List.of(), "m", "http://127.0.0.1:1/v1",
                        ResultJson.MAPPER.createObjectNode(), Map.of()), dead, System.currentTimeMillis() + 1_000);
                // killed before it linked its run: the merge finds the run by its owner, started after registering
                s.addPoint(run, 0, new RunInfo("parallel_4_number_60", 4, -1, 60), System.currentTimeMillis());
            }
            List<String> failures = new ArrayList<>();
            List<MergedRuns.Result> stored = MergedRuns.mergeOpenGroups(loc, Owner.current(), NOW,
                    (g, e) -> failures.add(g + ": " + e));
            assertThat(failures).isEmpty();
            assertThat(stored).hasSize(1);
            assertThat(stored.getFirst().runId()).isEqualTo("group:m3");
            assertThat(stored.getFirst().why()).matches("shard 1/2: run \\S+ is running \\(its process ended before "
                    + "the shard finished\\); 0 requests stored");
            try (RunStore s = RunStore.open(loc)) {
                RunRow row = s.run("group:m3").row();
                assertThat(row.status()).isEqualTo(RunRow.PARTIAL);
                assertThat(row.statusReason()).isEqualTo(stored.getFirst().why());
            }
            assertThat(MergedRuns.group(loc, "group:m3").partialReasons()).containsExactly(stored.getFirst().why());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aGroupAShardNeverJoinedIsStoredOnlyWhenAskedAndThenOnlyOnce(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            StoreLocation loc = b.location();
            GroupMergeTest.store(loc, "m4", 0, 2, 0, new ClockOffset(0, 100), GroupMergeTest.TRUE_EPOCH_MS,
                    GroupMergeTest.records(0, 40, 4), "ok");
            assertThat(MergedRuns.mergeWhenDone(loc, "m4", Owner.current(), NOW).why())
                    .isEqualTo("1 of 2 shards registered");
            MergedRuns.Result r = MergedRuns.store(loc, "m4", Owner.current(), NOW); // runs merge m4 --store
            assertThat(r.kind()).isEqualTo(MergedRuns.Result.Kind.STORED);
            assertThat(r.why()).isEqualTo("shard 1/2: never registered");
            assertThat(MergedRuns.store(loc, "m4", Owner.current(), NOW).kind()).isEqualTo(MergedRuns.Result.Kind.ALREADY);
            try (RunStore s = RunStore.open(loc)) {
                assertThat(s.run("group:m4").row().status()).isEqualTo(RunRow.PARTIAL);
            }
            // an unknown group: bad input, and no claim is left behind
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MergedRuns.store(loc, "nope", Owner.current(), NOW))
                    .isInstanceOf(io.unibench.BadInputException.class);
            assertThat(MergedRuns.group(loc, "group:nope")).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void deletingTheMergedRunReleasesItsClaimSoTheGroupIsMergedAgainOrWithItsShardsIsGoneAndItsNameFree(String kind)
            throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            StoreLocation loc = b.location();
            for (int i = 0; i < 2; i++) {
                GroupMergeTest.store(loc, "m5", i, 2, i * 30L, new ClockOffset(0, 100), GroupMergeTest.TRUE_EPOCH_MS,
                        GroupMergeTest.records(i, 30, i + 20), "ok");
            }
            assertThat(MergedRuns.mergeWhenDone(loc, "m5", Owner.current(), NOW).kind()).isEqualTo(MergedRuns.Result.Kind.STORED);
            List<String> shardRuns = GroupMerge.merge(loc, "m5").shards().stream().map(MergedGroup.Shard::runId).toList();
            try (RunStore s = RunStore.open(loc)) {
                // the merge alone: its claim released, the shards' runs listed again until it is merged anew
                RunStore.Deletion d = s.deleteRun("group:m5", true);
                assertThat(d.runIds()).containsExactly("group:m5");
                assertThat(d.releasedGroup()).isEqualTo("m5");
                assertThat(s.list(RunFilter.all(10))).extracting(RunRow::runId).containsExactlyInAnyOrderElementsOf(shardRuns);
            }
            // the service's poll (and `runs merge m5 --store`) stores it again (a claim left behind answered "already")
            assertThat(MergedRuns.mergeOpenGroups(loc, Owner.current(), NOW, (g, e) -> { throw new AssertionError(e); }))
                    .extracting(MergedRuns.Result::runId).containsExactly("group:m5");
            // a claim left without its run (deleted by a build that kept claims) is released by the next merge
            try (Database db = Database.open(loc)) {
                db.write(c -> Sql.update(c, "DELETE FROM runs WHERE run_id = 'group:m5'"));
            }
            assertThat(MergedRuns.store(loc, "m5", Owner.current(), NOW).kind()).isEqualTo(MergedRuns.Result.Kind.STORED);
            try (RunStore s = RunStore.open(loc)) {
                List<Long> indices = new ArrayList<>();
                s.forEachRequest("group:m5", 0, r -> indices.add(r.position().index()));
                assertThat(indices).hasSize(60).doesNotHaveDuplicates();
                // the whole sharded run: the merge, its shards' runs and registrations; nothing is left of m5
                assertThat(s.deletedWith("group:m5", false)).extracting(RunRow::runId)
                        .containsExactlyInAnyOrderElementsOf(java.util.stream.Stream.concat(
                                java.util.stream.Stream.of("group:m5"), shardRuns.stream()).toList());
                RunStore.Deletion d = s.deleteRun("group:m5", false);
                assertThat(d.runIds()).hasSize(3).first().isEqualTo("group:m5");
                assertThat(s.list(RunFilter.all(10))).isEmpty();
            }
            try (ShardRegistry r = ShardRegistry.open(loc)) {
                assertThat(r.shards("m5")).isEmpty();
                r.register("m5", 0, 1, 0, new ClockOffset(0, 100), Owner.current()); // the name is free again
            }
        }
    }

    /** A shard that registered earlier ends now: its run stored and finished, its row marked finished. */
    private static void finishShard(StoreLocation loc, String group, int index, List<io.unibench.metrics.RequestRecord> records)
            throws Exception {
        try (ShardRegistry r = ShardRegistry.open(loc); RunStore s = RunStore.open(loc)) {
            String run = s.createRun(new RunStart("shard-" + index, List.of("t"), "m", "http://127.0.0.1:1/v1",
                    ResultJson.MAPPER.createObjectNode(), Map.of()), Owner.current(), GroupMergeTest.TRUE_EPOCH_MS);
            s.addPoint(run, 0, new RunInfo("parallel_4_number_" + records.size(), 4, -1, records.size()),
                    GroupMergeTest.TRUE_EPOCH_MS);
            List<io.unibench.metrics.RequestRecord> epoch = new ArrayList<>();
            for (var rec : records) {
                epoch.add(new ShardTimeline(0, 0, 0, -GroupMergeTest.TRUE_EPOCH_MS - rec.timing().startNanos() / 1_000_000
                        + rec.timing().startEpochMillis()).place(rec));
            }
            s.insertRequests(run, 0, 0, epoch, GroupMergeTest.TRUE_EPOCH_MS);
            s.finishRun(run, RunRow.FINISHED, GroupMergeTest.TRUE_EPOCH_MS + 2_000);
            r.finish(group, index, run, RunRow.FINISHED, "ok");
        }
    }
}
