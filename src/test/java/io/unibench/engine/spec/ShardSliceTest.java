package io.unibench.engine.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.engine.ArrivalSchedule;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@link RunSpec#slice}: the one function every front end shards a run with. Over many seeded whole specs and shard
 * counts, the N slices together are the whole: every request index of every point in exactly one shard, the counts,
 * concurrencies and rates summing to the whole point's, a trace's rows each sent once at its recorded time; what
 * cannot be sliced is one line naming --shard.
 */
class ShardSliceTest {
    private static final RunSpec.Target TARGET = new RunSpec.Target("t", "http://127.0.0.1:1/v1/chat/completions",
            false, "m", ApiFormat.CHAT, Map.of(), RunSpec.ApiKey.NONE, new RunSpec.Timeouts(null, null, null), 4,
            null, false);
    private static final RunSpec.Workload WORKLOAD = new RunSpec.Workload("w", false, "random", null, null, 8, 16, null);

    private static RunSpec spec(List<RunSpec.Point> points) {
        return new RunSpec("s", List.of(TARGET), List.of(WORKLOAD), points, new RunSpec.Outputs(Path.of("out")),
                new RunSpec.History(false, null, List.of()), 7);
    }

    /** A seeded point of every kind the front ends make, each at least {@code n} wide. */
    private static RunSpec.Point randomPoint(SplittableRandom r, int n) {
        int number = n + r.nextInt(60);
        int parallel = n + r.nextInt(20);
        double rate = 0.5 + r.nextInt(400) / 4.0;
        LoadPlan plan = switch (r.nextInt(7)) {
            case 0 -> new LoadPlan(parallel, number, 0, null, r.nextInt(3));
            case 1 -> LoadPlan.openLoop(number, rate, null, r.nextInt(3));
            case 2 -> new LoadPlan(parallel, number, rate, null, 0).withArrivals(ArrivalShape.gamma(0.5));
            case 3 -> LoadPlan.openLoop(number, rate, null, 0).withArrivals(ArrivalShape.ramp(
                    new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.linear, 1 + r.nextInt(5), 10 + r.nextInt(50)), 1));
            case 4 -> new LoadPlan(parallel, Integer.MAX_VALUE, 0, Duration.ofSeconds(3), 0); // held by time
            case 5 -> LoadPlan.openLoop(number, rate, null, 0).withArrivals(ArrivalShape.recorded(times(r, number)));
            default -> new LoadPlan(parallel, number, 0, Duration.ofSeconds(2), 0);
        };
        return new RunSpec.Point(plan.label(), 0, 0, plan, Duration.ofMillis(r.nextInt(3)));
    }

    private static long[] times(SplittableRandom r, int count) {
        long[] t = new long[count];
        long at = r.nextLong(1_000_000); // a trace whose first row is not at 0
        for (int i = 0; i < count; i++) t[i] = at += r.nextLong(5_000_000);
        return t;
    }

    @Test
    void theSlicesOfEverySpecTogetherAreTheWholeExactlyOnce() {
        SplittableRandom r = new SplittableRandom(28);
        for (int round = 0; round < 300; round++) {
            int n = 1 + r.nextInt(7);
            List<RunSpec.Point> points = new ArrayList<>();
            for (int i = 1 + r.nextInt(4); i > 0; i--) points.add(randomPoint(r, n));
            RunSpec whole = spec(points);
            List<RunSpec> shards = new ArrayList<>();
            for (int i = 0; i < n; i++) shards.add(whole.slice(new Shard(i, n)));
            for (int p = 0; p < points.size(); p++) assertPointCovered(whole.points().get(p), shards, p, n);
            for (RunSpec s : shards) {
                assertThat(s.targets()).isEqualTo(whole.targets());
                assertThat(s.workloads()).isEqualTo(whole.workloads());
                assertThat(s.shard().count()).isEqualTo(n);
            }
        }
    }

    private static void assertPointCovered(RunSpec.Point whole, List<RunSpec> shards, int p, int n) {
        LoadPlan w = whole.plan();
        boolean held = w.number() == Integer.MAX_VALUE;
        boolean trace = w.arrivals() instanceof ArrivalShape.Recorded;
        BitSet sent = new BitSet();
        long number = 0;
        int parallel = 0;
        double rate = 0;
        long[] starts = new long[n];
        for (int i = 0; i < n; i++) {
            RunSpec.Point mine = shards.get(i).points().get(p);
            LoadPlan m = mine.plan();
            String what = "point " + whole.label() + " shard " + i + "/" + n;
            assertThat(mine.pauseAfter()).as(what).isEqualTo(whole.pauseAfter());
            assertThat(m.openLoop()).as(what).isEqualTo(w.openLoop());
            assertThat(m.duration()).as(what).isEqualTo(w.duration());
            assertThat(m.arrivals().getClass()).as(what).isEqualTo(w.arrivals().getClass());
            assertThat(m.warmup()).as(what).isEqualTo(w.warmup());
            if (n == 1) {
                assertThat(mine).as(what).isEqualTo(whole); // one shard is the whole run
                continue;
            }
            assertThat(mine.slice()).as(what).isNotNull();
            assertThat(mine.wholeNumber()).as(what).isEqualTo(w.number());
            rate += m.rate();
            if (!w.openLoop()) parallel += m.parallel();
            else assertThat(m.parallel()).as(what).isEqualTo(Math.max(1, m.number() + m.warmup()));
            if (held) {
                assertThat(m.number()).as(what).isEqualTo(Integer.MAX_VALUE);
                starts[i] = mine.firstRequest();
                continue;
            }
            number += m.number();
            for (int j = 0; j < m.number(); j++) {
                long index = mine.firstRequest() + (long) j * mine.slice().stride();
                assertThat(index).as(what).isLessThan(w.number());
                assertThat(sent.get((int) index)).as("%s: request %d twice", what, index).isFalse();
                sent.set((int) index);
            }
            if (trace) {
                long[] all = ((ArrivalShape.Recorded) w.arrivals()).offsetsNanos();
                ArrivalSchedule s = m.arrivals().schedule(0, m.number(), m.rate(), new SplittableRandom(i));
                for (int j = 0; j < m.number(); j++) {
                    // each row at its recorded time from the whole point's start, whichever shard sends it
                    long row = mine.firstRequest() + (long) j * n;
                    assertThat(s.offsetNanos(j)).as(what).isEqualTo(all[(int) row] - all[0]);
                }
            }
            if (w.arrivals() instanceof ArrivalShape.RampUp ramp) {
                ArrivalShape.Ramp mr = ((ArrivalShape.RampUp) m.arrivals()).ramp();
                assertThat(mr.startRps() * n).as(what).isCloseTo(ramp.ramp().startRps(), within(1e-9));
                assertThat(mr.endRps() * n).as(what).isCloseTo(ramp.ramp().endRps(), within(1e-9));
            }
        }
        if (n == 1) return;
        if (held) {
            // a held point has no count: each shard's indices start at its 1/N of the range, all apart
            assertThat(java.util.Arrays.stream(starts).distinct().count()).isEqualTo(n);
        } else {
            assertThat(number).as(whole.label()).isEqualTo(w.number());
            assertThat(sent.cardinality()).as("%s: no request lost", whole.label()).isEqualTo(w.number());
        }
        if (!w.openLoop()) assertThat(parallel).as(whole.label()).isEqualTo(w.parallel());
        assertThat(rate).as(whole.label()).isCloseTo(w.rate(), within(1e-9 * Math.max(1, Math.abs(w.rate()))));
    }

    @Test
    void whatCannotBeSlicedIsOneLineNamingTheFlag() {
        RunSpec few = spec(List.of(new RunSpec.Point("p", 0, 0, new LoadPlan(8, 3, 0, null, 0), Duration.ZERO)));
        assertThatThrownBy(() -> few.slice(new Shard(1, 4))).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 1/4: point 'p' sends 3 requests, fewer than the 4 shards; each shard needs at least 1");
        RunSpec narrow = spec(List.of(new RunSpec.Point("p", 0, 0, new LoadPlan(2, 30, 0, null, 0), Duration.ZERO)));
        assertThatThrownBy(() -> narrow.slice(new Shard(0, 3))).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 0/3: point 'p' runs 2 at once, fewer than the 3 shards; each shard needs at least 1");
        LoadPlan trace = new LoadPlan(1, 4, 2, null, 1, true).withArrivals(ArrivalShape.recorded(new long[]{0, 1, 2, 3, 4}));
        RunSpec warm = spec(List.of(new RunSpec.Point("t", 0, 0, trace, Duration.ZERO)));
        assertThatThrownBy(() -> warm.slice(new Shard(0, 2))).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--shard 0/2: point 't' replays a trace after 1 warm-up requests");
        RunSpec sliced = spec(List.of(new RunSpec.Point("p", 0, 0, new LoadPlan(8, 30, 0, null, 0), Duration.ZERO)))
                .slice(new Shard(0, 2));
        assertThatThrownBy(() -> sliced.slice(new Shard(1, 2))).isInstanceOf(BadInputException.class)
                .hasMessage("--shard 1/2: the spec is already shard 0/2 of its group; slice the whole run's spec");
        for (var e : List.of(few, narrow, warm, sliced)) {
            assertThat(e.slice(Shard.WHOLE)).isSameAs(e); // the whole run is not sliced, whatever it is
        }
    }

    @Test
    void aSlicedSpecIsWrittenAndReadBackWithItsSlices() {
        RunSpec whole = spec(List.of(new RunSpec.Point("parallel_4_number_10", 0, 0, new LoadPlan(4, 10, 0, null, 0),
                Duration.ZERO)));
        RunSpec mine = whole.slice(new Shard(2, 3));
        assertThat(mine.points().getFirst().label()).isEqualTo("parallel_1_number_3"); // named by its own load
        assertThat(mine.points().getFirst().slice()).isEqualTo(new RunSpec.Slice(7, 1, 10));
        RunSpec back = RunSpecJson.read(RunSpecJson.toJson(mine), "spec.json");
        assertThat(back.points()).isEqualTo(mine.points());
        assertThat(back.shard()).isEqualTo(new Shard(2, 3));
        assertThat(RunSpecJson.read(RunSpecJson.toJson(whole), "spec.json").points().getFirst().slice()).isNull();
    }

    @Test
    void aSlicePicksItsItemsEvenOfAnEndlessList() {
        List<Integer> endless = new java.util.AbstractList<>() {
            @Override
            public Integer get(int i) {
                return i;
            }

            @Override
            public int size() {
                return Integer.MAX_VALUE; // a level's prompts drawn for as long as it is held
            }
        };
        List<Integer> mine = new RunSpec.Slice(2, 3, 100).pick(endless);
        assertThat(mine.subList(0, 3)).containsExactly(0, 3, 6); // the span from its first, every third
        assertThat(mine.size()).isEqualTo((int) ((Integer.MAX_VALUE + 2L) / 3));
        assertThat(new RunSpec.Slice(2, 3, 100).span(4)).isEqualTo(10);
    }
}
