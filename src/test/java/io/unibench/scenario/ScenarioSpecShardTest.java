package io.unibench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.BadInputException;
import io.unibench.engine.ArrivalSchedule;
import io.unibench.engine.Shard;
import io.unibench.engine.spec.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A scenario file's points as shard I/N runs them: together the N shards are the file's every level, exactly. */
class ScenarioSpecShardTest {
    @TempDir
    Path dir;

    private BenchConfig load(String concurrency) throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, """
                provider: {name: p, base_url: sim, model: m}
                concurrency: %s
                scenarios:
                  - {name: a, type: chat, prompt: hi, rounds: 23}
                  - {name: b, type: chat, prompt: ho, rounds: 9}
                """.formatted(concurrency));
        return ScenarioFile.load(file, Map.of());
    }

    private static RunSpec spec(BenchConfig c, Shard shard) {
        return ScenarioSpec.of(c, Map.of("p", "http://127.0.0.1:1/v1/chat/completions"), Path.of("out"),
                new RunSpec.History(false, null, List.of()), shard);
    }

    @Test
    void everyLevelsConcurrencyAndRequestsAreSplitWithNothingLostOrTwice() throws Exception {
        BenchConfig c = load("{levels: [5, 7, 12]}");
        RunSpec whole = spec(c, Shard.WHOLE);
        for (int n = 1; n <= 5; n++) {
            int[] parallel = new int[whole.points().size()];
            int[] number = new int[whole.points().size()];
            for (int i = 0; i < n; i++) {
                RunSpec s = spec(c, new Shard(i, n));
                assertThat(s.points()).hasSameSizeAs(whole.points());
                for (int p = 0; p < parallel.length; p++) {
                    parallel[p] += s.points().get(p).plan().parallel();
                    number[p] += s.points().get(p).plan().number();
                    assertThat(s.points().get(p).pauseAfter()).isEqualTo(whole.points().get(p).pauseAfter());
                }
            }
            for (int p = 0; p < parallel.length; p++) {
                assertThat(parallel[p]).as("N=%d point %d", n, p).isEqualTo(whole.points().get(p).plan().parallel());
                assertThat(number[p]).as("N=%d point %d", n, p).isEqualTo(whole.points().get(p).plan().number());
            }
        }
        assertThat(whole.points()).extracting(pt -> pt.plan().number()).containsExactly(23, 23, 23, 9, 9, 9);
    }

    @Test
    void aLevelHeldByTimeKeepsItsHoldOnEveryShard() throws Exception {
        BenchConfig c = load("{levels: [4, 8], ramp_interval_sec: 3}");
        RunSpec s = spec(c, new Shard(1, 4));
        assertThat(s.points()).extracting(pt -> pt.plan().parallel()).containsExactly(1, 2, 1, 2);
        assertThat(s.points()).extracting(pt -> pt.plan().number()).containsOnly(Integer.MAX_VALUE);
        assertThat(s.points()).extracting(pt -> pt.plan().duration().toSeconds()).containsOnly(3L);
    }

    private BenchConfig loadFile(String yaml) throws Exception {
        Path file = dir.resolve("loads.yaml");
        Files.writeString(file, yaml);
        return ScenarioFile.load(file, Map.of());
    }

    @Test
    void aRequestRateLevelIsSplitAsPerfSplitsRateSoTheShardsSumToTheFilesLevel() throws Exception {
        BenchConfig c = loadFile("""
                provider: {name: p, base_url: sim, model: m}
                request_rate: {levels: [4, 10], requests_per_level: 23, max_concurrency: 7}
                scenarios:
                  - {name: a, type: chat, prompt: hi}
                """);
        RunSpec whole = spec(c, Shard.WHOLE);
        assertThat(whole.points()).extracting(RunSpec.Point::label).containsExactly("p/a/rate_4", "p/a/rate_10");
        for (int n = 1; n <= 5; n++) {
            double[] rate = new double[2];
            int[] number = new int[2];
            int[] parallel = new int[2];
            for (int i = 0; i < n; i++) {
                RunSpec s = spec(c, new Shard(i, n));
                // the file's level names: the merge lines the shards' levels up by them
                assertThat(s.points()).extracting(RunSpec.Point::label).containsExactly("p/a/rate_4", "p/a/rate_10");
                for (int p = 0; p < 2; p++) {
                    assertThat(s.points().get(p).plan().rate()).isEqualTo(new Shard(i, n).rate(whole.points().get(p).plan().rate()));
                    rate[p] += s.points().get(p).plan().rate();
                    number[p] += s.points().get(p).plan().number();
                    parallel[p] += s.points().get(p).plan().parallel();
                }
            }
            for (int p = 0; p < 2; p++) {
                assertThat(rate[p]).as("N=%d λ of point %d", n, p).isCloseTo(whole.points().get(p).plan().rate(), within(1e-9));
                assertThat(number[p]).as("N=%d", n).isEqualTo(23);
                assertThat(parallel[p]).as("N=%d", n).isEqualTo(7);
            }
        }
    }

    @Test
    void aRampsRatesAreSplitToo() throws Exception {
        BenchConfig c = loadFile("""
                provider: {name: p, base_url: sim, model: m}
                request_rate: {requests_per_level: 40, ramp_up: {strategy: linear, start_rps: 2, end_rps: 8}}
                scenarios:
                  - {name: a, type: chat, prompt: hi}
                """);
        RunSpec.Point whole = spec(c, Shard.WHOLE).points().getFirst();
        RunSpec.Point half = spec(c, new Shard(1, 2)).points().getFirst();
        assertThat(half.label()).isEqualTo(whole.label());
        // each shard's ramp runs at half the rates over half the requests: the same span of time as the whole's
        // (the mean last arrival over 200 seeds; unsplit rates would end it in half the time)
        double mean = 0;
        for (int seed = 0; seed < 200; seed++) {
            ArrivalSchedule x = half.plan().arrivals().schedule(0, 20, half.plan().rate(), new SplittableRandom(seed));
            mean += x.offsetNanos(19) / 200.0;
        }
        double wholeMean = 0;
        for (int seed = 0; seed < 200; seed++) {
            ArrivalSchedule x = whole.plan().arrivals().schedule(0, 40, whole.plan().rate(), new SplittableRandom(seed));
            wholeMean += x.offsetNanos(39) / 200.0;
        }
        assertThat(half.plan().number()).isEqualTo(20);
        assertThat(mean).isCloseTo(wholeMean, within(0.15 * wholeMean));
    }

    @Test
    void aTracesRowsAreDealtToTheShardsAndKeepTheirRecordedTimes() throws Exception {
        Path trace = dir.resolve("trace.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        long[] ms = {0, 40, 45, 200, 210, 215, 900};
        for (long t : ms) lines.add("{\"timestamp\": " + t + ", \"input_length\": 64, \"output_length\": 2, \"hash_ids\": [" + t + "]}");
        Files.write(trace, lines);
        BenchConfig c = loadFile("""
                provider: {name: p, base_url: sim, model: m}
                scenarios:
                  - {name: t, type: chat, dataset: mooncake_trace, dataset_path: %s, trace_speedup: 2}
                """.formatted(trace));
        RunSpec.Point whole = spec(c, Shard.WHOLE).points().getFirst();
        // more shards than rows: refused by the engine's slice, as perf's trace is (one shard would send nothing)
        assertThatThrownBy(() -> spec(c, new Shard(0, ms.length + 1))).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 0/8: point 'p/t/trace' replays 7 trace rows, fewer than the 8 shards; each shard "
                        + "needs at least 1");
        for (int n = 1; n <= ms.length; n++) {
            BitSet sent = new BitSet();
            double rate = 0;
            for (int i = 0; i < n; i++) {
                Shard shard = new Shard(i, n);
                RunSpec.Point pt = spec(c, shard).points().getFirst();
                assertThat(pt.label()).isEqualTo("p/t/trace");
                int count = pt.plan().number();
                assertThat(count).isEqualTo(shard.share(ms.length));
                rate += pt.plan().rate();
                if (count == 0) continue;
                ArrivalSchedule times = pt.plan().arrivals().schedule(0, count, pt.plan().rate(), new SplittableRandom(i));
                for (int j = 0; j < count; j++) {
                    int row = (int) shard.dealt(j);
                    assertThat(sent.get(row)).as("row %d twice (N=%d)", row, n).isFalse();
                    sent.set(row);
                    // at its recorded time from the trace's start (speed-up 2), not from the shard's first row
                    assertThat(times.offsetNanos(j)).as("row %d of shard %s", row, shard).isEqualTo(ms[row] * 1_000_000 / 2);
                }
            }
            assertThat(sent.cardinality()).as("no row lost (N=%d)", n).isEqualTo(ms.length);
            assertThat(rate).isCloseTo(whole.plan().rate(), within(1e-9));
        }
    }

    @Test
    void slaAutoTuneIsRefusedUnderShardWithTheReason() throws Exception {
        BenchConfig c = loadFile("""
                provider: {name: p, base_url: sim, model: m}
                sla_auto_tune: {params: {p99_latency: "<=0.3"}}
                scenarios:
                  - {name: a, type: chat, prompt: hi}
                """);
        assertThatThrownBy(() -> spec(c, new Shard(0, 2))).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 0/2: " + ScenarioSpec.SLA_UNSHARDED).hasMessageNotContaining("\n");
    }
}
