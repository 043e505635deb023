package io.unibench.store;

import static io.unibench.Moments.ABSENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unibench.BadInputException;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@link GroupMerge} and {@link ShardRegistry} on both stores: shards whose clocks disagree land on one timeline,
 * the merged figures are those of the union of their requests, and every problem makes the merge partial with its
 * reason. The shards' runs are written through the store's own API, with records built so that each request's epoch
 * start is its moment on its shard's (possibly skewed) clock.
 */
class GroupMergeTest {
    static final long TRUE_EPOCH_MS = 1_780_000_000_000L; // where shard 0's point starts, true time
    @TempDir
    Path tmp;

    private TestStores.Backend backend(String kind) throws Exception {
        return TestStores.of(kind, tmp);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void measuresAnInjectedClockOffsetAgainstTheDatabase(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind); ShardRegistry r = ShardRegistry.open(b.location())) {
            long skew = 5_000_000L; // this "process" runs 5 s ahead
            ClockOffset c = r.measureOffset(() -> micros(Instant.now()) + skew);
            // SQLite's clock has whole milliseconds: allow one beyond the round trip's bound
            assertThat(Math.abs(c.offsetMicros() - skew)).isLessThanOrEqualTo(c.rttMicros() / 2 + 1_000);
            ClockOffset none = r.measureOffset(() -> micros(Instant.now()));
            assertThat(Math.abs(none.offsetMicros())).isLessThanOrEqualTo(none.rttMicros() / 2 + 1_000);
        }
    }

    /**
     * SQLite's clock keeps whole milliseconds; read through julianday's double it came back a few µs off them
     * (1796236078351991), and an offset fell outside its bound (1,009 > 1,003 µs, once in a loaded run).
     */
    @org.junit.jupiter.api.Test
    void sqlitesClockIsReadInWholeMilliseconds() throws Exception {
        try (TestStores.Backend b = backend("sqlite"); ShardRegistry r = ShardRegistry.open(b.location())) {
            for (int i = 0; i < 20; i++) assertThat(r.databaseNowMicros() % 1_000).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void mergesShardsWithSkewedClocksOntoOneTimelineFromTheUnionOfTheirRequests(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            // shard 1 starts 400 ms after shard 0 in true time, but its clock is 7 s ahead (and says so)
            List<RequestRecord> a = records(0, 300, 11);
            List<RequestRecord> c = records(1, 200, 12);
            store(b.location(), "g1", 0, 2, 0, new ClockOffset(0, 200), TRUE_EPOCH_MS, a, "ok");
            store(b.location(), "g1", 1, 2, 300, new ClockOffset(7_000_000, 300), TRUE_EPOCH_MS + 400 + 7_000, c, "ok");

            MergedGroup g = GroupMerge.merge(b.location(), "g1");

            assertThat(g.partialReasons()).isEmpty();
            // each origin is estimated from whole-millisecond epoch starts: within a few µs with hundreds of requests
            long shiftNanos = g.shards().get(1).shiftNanos();
            assertThat(g.shards().getFirst().shiftNanos()).isZero();
            assertThat(shiftNanos).isBetween(400_000_000L - 100_000, 400_000_000L + 100_000);
            assertThat(g.startedAt()).isBetween(TRUE_EPOCH_MS - 1, TRUE_EPOCH_MS);
            // the union on that timeline, fed in end order, is what one process would have recorded
            List<RequestRecord> union = new ArrayList<>(a);
            for (RequestRecord r : c) union.add(shift(r, 300, shiftNanos));
            union.sort(java.util.Comparator.comparingLong((RequestRecord r) -> r.timing().endNanos()));
            RunMetrics expected = new RunMetrics();
            union.forEach(expected::accept);
            RunResult want = expected.result(new RunInfo("parallel_8_number_500", 8, -1, 500));
            RunResult got = g.points().getFirst().result();
            assertThat(got.info()).isEqualTo(want.info());
            assertThat(got.summary().requests().totalRequests()).isEqualTo(500);
            assertThat(got.summary().requests().successRequests()).isEqualTo(want.summary().requests().successRequests());
            assertThat(got.summary().load().testDurationSeconds()).isEqualTo(want.summary().load().testDurationSeconds());
            // 7 s of skew uncorrected would stretch the wall time past 7 s
            assertThat(got.summary().load().testDurationSeconds()).isLessThan(2.0);
            assertThat(got.summary().throughput().reqThroughput()).isEqualTo(want.summary().throughput().reqThroughput());
            assertThat(got.errors()).isEqualTo(want.errors()).containsEntry("http_429", 100L);
            assertThat(rows(got)).isEqualTo(rows(want));
            assertThat(g.points().getFirst().percentiles()).hasSize(PercentileRow.LABELS.size());
            assertThat(g.points().getFirst().summary().path("Shards").asInt()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aMergePastTheOldCapOf262144RequestsGivesThePercentilesOfTheSortedRawValues(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            int perShard = 170_000; // 272,000 successes in all: every column past 262,144 samples
            List<RequestRecord> a = records(0, perShard, 21);
            List<RequestRecord> c = records(1, perShard, 22);
            store(b.location(), "gx", 0, 2, 0, new ClockOffset(0, 100), TRUE_EPOCH_MS, a, "ok");
            store(b.location(), "gx", 1, 2, perShard, new ClockOffset(0, 100), TRUE_EPOCH_MS, c, "ok");

            RunResult got = GroupMerge.merge(b.location(), "gx").points().getFirst().result();

            List<Double> latency = new ArrayList<>();
            List<Double> ttft = new ArrayList<>();
            for (List<RequestRecord> shard : List.of(a, c)) {
                for (RequestRecord r : shard) {
                    if (!r.success()) continue;
                    latency.add(r.latencySeconds());
                    ttft.add(r.ttftSeconds() * 1000);
                }
            }
            double[] lat = latency.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double[] tt = ttft.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            assertThat(lat.length).isGreaterThan(1 << 18);
            assertThat(got.summary().requests().totalRequests()).isEqualTo(2L * perShard);
            assertThat(got.summary().stats().percentileMethod()).isEqualTo(io.unibench.metrics.Summary.PERCENTILES_EXACT);
            for (int i = 0; i < PercentileRow.POINTS.length; i++) {
                PercentileRow row = got.percentiles().get(i);
                assertThat(row.value(PercentileRow.LATENCY)).as(row.label())
                        .isEqualTo(io.unibench.metrics.Rounding.round(
                                io.unibench.metrics.Percentiles.nearestRankHigh(lat, PercentileRow.POINTS[i]), 4));
                assertThat(row.value(PercentileRow.TTFT)).as(row.label())
                        .isEqualTo(io.unibench.metrics.Rounding.round(
                                io.unibench.metrics.Percentiles.nearestRankHigh(tt, PercentileRow.POINTS[i]), 2));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void everyShardFinishedEveryRequestButOneWasClientBoundIsAWholeMergeWithThatVerdict(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            // the self-check's verdicts as the shards recorded them: injected, whatever this machine's load
            store(b.location(), "g3", 0, 2, 0, new ClockOffset(0, 100), TRUE_EPOCH_MS, records(0, 40, 1),
                    "client-bound: Warning: the client may be the bottleneck (timing lag p99 9.1 ms > 5.0 ms); the "
                            + "machine ran the CPUs at ≤ 23% speed for 6.9% of the run");
            store(b.location(), "g3", 1, 2, 40, new ClockOffset(0, 100), TRUE_EPOCH_MS, records(1, 40, 2), "ok");

            MergedGroup g = GroupMerge.merge(b.location(), "g3");

            assertThat(g.partial()).as("no request is missing").isFalse();
            assertThat(g.partialReasons()).isEmpty();
            assertThat(g.clientBound()).containsExactly("shard 0/2: client-bound: Warning: the client may be the "
                    + "bottleneck (timing lag p99 9.1 ms > 5.0 ms); the machine ran the CPUs at ≤ 23% speed for 6.9% "
                    + "of the run");
            assertThat(g.points().getFirst().summary().path("Partial").asBoolean()).isFalse();
            assertThat(g.points().getFirst().result().summary().requests().totalRequests()).isEqualTo(80);

            MergedRuns.Result stored = MergedRuns.mergeWhenDone(b.location(), "g3", Owner.current(), TRUE_EPOCH_MS + 5_000);
            assertThat(stored.kind()).isEqualTo(MergedRuns.Result.Kind.STORED);
            assertThat(stored.why()).isNull();
            try (RunStore s = RunStore.open(b.location())) {
                RunRow row = s.run("group:g3").row();
                assertThat(row.status()).isEqualTo(RunRow.FINISHED);
                assertThat(row.statusReason()).isNull();
            }
            assertThat(MergedRuns.group(b.location(), "group:g3").partialReasons()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aMissingOrFailedShardMakesThePartialMergeSayWhyAndAClientBoundOneIsSaidBeside(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind)) {
            store(b.location(), "g2", 0, 3, 0, new ClockOffset(0, 100), TRUE_EPOCH_MS, records(0, 50, 1),
                    "client-bound: client CPU avg 91% of 2 cores > 50%");
            store(b.location(), "g2", 2, 3, 100, new ClockOffset(0, 100), TRUE_EPOCH_MS, records(2, 50, 2), null);

            MergedGroup g = GroupMerge.merge(b.location(), "g2");

            assertThat(g.partial()).isTrue();
            assertThat(g.partialReasons()).hasSize(2);
            assertThat(g.partialReasons().getFirst()).isEqualTo("shard 1/3: never registered");
            assertThat(g.partialReasons().get(1)).matches("shard 2/3: run \\S+ is failed; 50 requests stored");
            assertThat(g.clientBound()).containsExactly("shard 0/3: client-bound: client CPU avg 91% of 2 cores > 50%");
            assertThat(g.points().getFirst().result().summary().requests().totalRequests()).isEqualTo(100);
            assertThat(g.points().getFirst().summary().path("Partial").asBoolean()).isTrue();
            // a shard's run deleted from the store since: said, not a failure of the merge
            try (RunStore s = RunStore.open(b.location())) {
                String deleted = g.shards().get(1).runId();
                s.deleteRun(deleted, false);
                assertThat(GroupMerge.merge(b.location(), "g2").partialReasons())
                        .contains("shard 2/3: its run " + deleted + " was deleted");
            }
            assertThatThrownBy(() -> GroupMerge.merge(b.location(), "nope")).isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith("run group 'nope': no shard registered in ");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void aShardIndexRegistersOnceAndAGroupHasOneShardCount(String kind) throws Exception {
        try (TestStores.Backend b = backend(kind); ShardRegistry r = ShardRegistry.open(b.location())) {
            Owner me = Owner.current();
            r.register("g3", 0, 2, 0, new ClockOffset(0, 1), me);
            assertThatThrownBy(() -> r.register("g3", 0, 2, 0, new ClockOffset(0, 1), me))
                    .isInstanceOf(BadInputException.class).hasMessageContaining("already has shard 0");
            assertThatThrownBy(() -> r.register("g3", 1, 3, 0, new ClockOffset(0, 1), me))
                    .isInstanceOf(BadInputException.class).hasMessageContaining("has 2 shards");
            assertThat(r.registered("g3")).isEqualTo(1);
            r.register("g3", 1, 2, 5, new ClockOffset(0, 1), me);
            assertThat(r.registered("g3")).isEqualTo(2);
        }
    }

    /** Shard {@code index}'s run: registered, its records stored, finished with the verdict (null: failed). */
    static void store(StoreLocation loc, String group, int index, int count, long first, ClockOffset clock,
                              long localOriginMs, List<RequestRecord> records, String verdict) throws Exception {
        try (ShardRegistry r = ShardRegistry.open(loc); RunStore s = RunStore.open(loc)) {
            r.register(group, index, count, first, clock, Owner.current());
            String run = s.createRun(new RunStart("shard-" + index, List.of("t"), "m", "http://127.0.0.1:1/v1",
                    ResultJson.MAPPER.createObjectNode(), Map.of()), Owner.current(), localOriginMs);
            int n = records.size();
            s.addPoint(run, 0, new RunInfo("parallel_4_number_" + n, 4, -1, n), localOriginMs);
            List<RequestRecord> epoch = new ArrayList<>();
            for (RequestRecord rec : records) epoch.add(withEpoch(rec, localOriginMs + rec.timing().startNanos() / 1_000_000));
            s.insertRequests(run, 0, 0, epoch, localOriginMs);
            s.finishRun(run, verdict == null ? RunRow.FAILED : RunRow.FINISHED, localOriginMs + 2_000);
            r.finish(group, index, run, verdict == null ? RunRow.FAILED : RunRow.FINISHED, verdict);
        }
    }

    /** Closed-loop-looking records of one shard, moments from its point's start; every fifth a 429. */
    static List<RequestRecord> records(int shard, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<RequestRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = i * 3_000_000L + rnd.nextLong(1_000_000);
            boolean ok = i % 5 != 4;
            int completion = ok ? 2 + rnd.nextInt(30) : -1;
            long[] chunks = new long[ok ? completion : 0];
            long t = start + 15_000_000L + rnd.nextLong(10_000_000L);
            for (int k = 0; k < chunks.length; k++) {
                chunks[k] = t;
                t += 3_000_000L + rnd.nextLong(4_000_000L);
            }
            long end = ok ? t : start + 2_000_000L;
            out.add(new RequestRecord(new Position(i, "s" + shard + "-" + i, null, 0, false),
                    new Timing(true, 0, ABSENT, start, start + 5_000_000L, ok ? chunks[0] : ABSENT,
                            ok ? chunks[0] : ABSENT, end, chunks),
                    new Tokens(100 + rnd.nextInt(100), completion, ok ? rnd.nextInt(50) : -1,
                            ok ? RequestRecord.CacheSource.SERVER : null, RequestRecord.TokenSource.SERVER, -1, -1),
                    new Outcome(ok, ok ? null : "http_429", ok ? 200 : 429, ok ? null : "slow down", null,
                            ok ? "length" : null),
                    PhaseTimes.NONE, null));
        }
        return out;
    }

    private static RequestRecord withEpoch(RequestRecord r, long epochMs) {
        return new ShardTimeline(0, 0, 0, -epochMs + r.timing().startEpochMillis()).place(r);
    }

    private static RequestRecord shift(RequestRecord r, long firstIndex, long nanos) {
        return new ShardTimeline(0, firstIndex, nanos, 0).place(r);
    }

    private static List<Map<String, Object>> rows(RunResult r) {
        return PercentileRow.toMaps(r.percentiles());
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }
}
