package io.unibench.engine.sla;

import io.unibench.BadInputException;
import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The search on results made by the real aggregation from records of known latency: every answer is known. */
class SlaTunerTest {
    private static final long MS = 1_000_000;

    /** A run of 4 requests of {@code latencyMs} each (TTFT half of it), {@code failed} of them failing. */
    private static RunResult run(double latencyMs, int failed) {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 4; i++) {
            long end = (long) (latencyMs * MS);
            boolean ok = i >= failed;
            m.accept(new RequestRecord(new Position(i, "r" + i, null, 0, false),
                    new Timing(true, 0, Moments.ABSENT, 0, 0, end / 2, end / 2, end, new long[] {end / 2, end}),
                    new Tokens(10, 2, -1, null, RequestRecord.TokenSource.SERVER, -1, -1),
                    new Outcome(ok, ok ? null : "http_500", ok ? 200 : 500, null, null, null), PhaseTimes.NONE, null));
        }
        return m.result(new RunInfo("p", 1, -1, 4));
    }

    private static final class Probe implements SlaProbe {
        final List<Integer> calls = new ArrayList<>();
        final IntToDoubleFunction latencyMs;
        final double jitterMs;

        Probe(IntToDoubleFunction latencyMs, double jitterMs) {
            this.latencyMs = latencyMs;
            this.jitterMs = jitterMs;
        }

        @Override
        public RunResult run(int value, int run) {
            calls.add(value);
            return SlaTunerTest.run(latencyMs.applyAsDouble(value) + (run % 2) * jitterMs, 0);
        }
    }

    private static SlaTuning tune(String params, int lower, int upper, int runs, SlaProbe probe, int start) throws Exception {
        return new SlaTuner("parallel", SlaParams.parse(params), lower, upper, runs, probe).tune(start);
    }

    @Test
    void findsTheLargestValueMeetingTheCriterionByDoublingThenBisecting() throws Exception {
        Probe probe = new Probe(v -> 10.0 * v, 0); // latency 10 ms per unit: <= 0.35 s holds up to 35
        SlaTuning t = tune("{\"avg_latency\": \"<=0.35\"}", 1, 65536, 1, probe, 1);
        assertThat(t.selections()).singleElement().satisfies(s -> {
            assertThat(s.maxSatisfied()).isEqualTo(35);
            assertThat(s.criteria()).isEqualTo("avg_latency <= 0.35 s");
            assertThat(s.note()).contains("parallel 36 does not hold", "1 run per value");
        });
        assertThat(probe.calls).containsExactly(1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 34, 35);
        assertThat(t.probes()).extracting(ProbeResult::value).isSorted();
    }

    @Test
    void eachProbeIsToldWhatIsDecidedNotAShareOfAnUnknownTotal() throws Exception {
        Probe probe = new Probe(v -> 10.0 * v, 0);
        List<SlaTuner.Progress> told = new ArrayList<>();
        new SlaTuner("parallel", SlaParams.parse("{\"avg_latency\": \"<=0.35\"}"), 1, 65536, 1, probe)
                .tune(1, told::add);
        assertThat(told).extracting(SlaTuner.Progress::value).containsExactlyElementsOf(probe.calls);
        assertThat(told).extracting(SlaTuner.Progress::runsDone).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        // every bracket holds the answer (35), and it narrows
        assertThat(told).allSatisfy(p -> {
            assertThat(p.held() == null || p.held() <= 35).as(p.describe()).isTrue();
            assertThat(p.failed() == null || p.failed() > 35).as(p.describe()).isTrue();
        });
        assertThat(told.get(0).describe()).isEqualTo("probe 1: parallel 1, run 1 of 1; 0 value(s) done; none held yet, "
                + "none failed yet: the limit is in [1, 65536] or none");
        assertThat(told.get(7).describe()).isEqualTo("probe 8: parallel 48, run 1 of 1; 7 value(s) done; holds at 32, "
                + "fails at 64: the limit is in [32, 63]");
        assertThat(told.getLast().describe()).endsWith("holds at 34, fails at 36: the limit is in [34, 35]");
    }

    @Test
    void fromAboveItHalvesAndUnitsAreExplicit() throws Exception {
        Probe probe = new Probe(v -> 10.0 * v, 0);
        SlaTuning t = tune("{\"p99_latency\": \"<350ms\", \"avg_ttft\": \"≤ 0.2s\"}", 1, 65536, 1, probe, 100);
        // ttft = latency / 2 <= 200 ms holds up to 40; latency < 350 ms up to 34
        assertThat(t.selections().getFirst().maxSatisfied()).isEqualTo(34);
        assertThat(probe.calls.subList(0, 3)).containsExactly(100, 50, 25);
    }

    @Test
    void boundsAndTheSuccessGate() throws Exception {
        assertThat(tune("{\"avg_latency\": \"<=0.005\"}", 1, 64, 1, new Probe(v -> 10.0 * v, 0), 4).selections()
                .getFirst()).satisfies(s -> {
                    assertThat(s.maxSatisfied()).isNull();
                    assertThat(s.note()).startsWith("Failed at the lower bound (1)");
                });
        assertThat(tune("{\"avg_latency\": \"<=1000\"}", 1, 16, 1, new Probe(v -> 10.0 * v, 0), 1).selections()
                .getFirst()).satisfies(s -> {
                    assertThat(s.maxSatisfied()).isEqualTo(16);
                    assertThat(s.note()).startsWith("Holds at the upper bound (16)");
                });
        // one failed request at 8 and above: latency is fine, success is not
        SlaProbe failing = (value, run) -> run(1, value >= 8 ? 1 : 0);
        assertThat(tune("{\"avg_latency\": \"<=1\"}", 1, 64, 1, failing, 1).selections().getFirst().maxSatisfied())
                .isEqualTo(7);
    }

    @Test
    void everyGroupIsTunedOnItsOwnAndValuesRunOnce() throws Exception {
        Probe probe = new Probe(v -> 10.0 * v, 0);
        SlaTuning t = tune("[{\"avg_latency\": \"<=0.35\"}, {\"avg_latency\": \"<=0.2\"}]", 1, 65536, 2, probe, 1);
        assertThat(t.selections()).extracting(SlaTuning.Selection::maxSatisfied).containsExactly(35, 20);
        // each value's two runs happen once, whichever group asked first
        assertThat(probe.calls.stream().distinct().count() * 2).isEqualTo(probe.calls.size());
    }

    @Test
    void runsThatDisagreeAtTheBoundaryAreReportedAsWithinSpread() throws Exception {
        // run 1 of every value is 50 ms slower: means 10v + 25 hold up to 32; at 32 and 33 one run holds, one misses
        Probe probe = new Probe(v -> 10.0 * v, 50);
        SlaTuning.Selection s = tune("{\"avg_latency\": \"<=0.345\"}", 1, 65536, 2, probe, 1).selections().getFirst();
        assertThat(s.maxSatisfied()).isEqualTo(32);
        assertThat(s.note()).contains("within run-to-run spread", "indistinguishable by 2 runs", "parallel 32:",
                "parallel 33:", "avg_latency 0.320 s–0.370 s", "raise --sla-num-runs");
        // without the jitter the same boundary is firm
        SlaTuning.Selection firm = tune("{\"avg_latency\": \"<=0.345\"}", 1, 65536, 2, new Probe(v -> 10.0 * v + 25, 0),
                1).selections().getFirst();
        assertThat(firm.maxSatisfied()).isEqualTo(32);
        assertThat(firm.note()).doesNotContain("spread");
    }

    @Test
    void maxFindsThePeakOfASinglePeakedMetric() throws Exception {
        // rps = 4 requests / latency: latency 10 ms at 1..20, then growing: rps falls after 20, rises before
        Probe probe = new Probe(v -> v <= 20 ? 1000.0 / v : 50.0 + (v - 20) * 5, 0);
        SlaTuning.Selection s = tune("{\"rps\": \"max\"}", 1, 1024, 1, probe, 1).selections().getFirst();
        assertThat(s.maxSatisfied()).isEqualTo(20);
        assertThat(s.note()).startsWith("Best rps:");
    }

    @Test
    void goodputIsAMetricOfItsOwn() throws Exception {
        // goodput rises to 30 req/s at 12, then falls: the value serving the most requests within the objectives
        io.unibench.metrics.GoodputSlo slo = new io.unibench.metrics.GoodputSlo(100.0, null, null);
        SlaProbe probe = (value, run) -> run(10, 0).withGoodput(new io.unibench.metrics.Goodput(slo, 4,
                value <= 12 ? 2.5 * value : Math.max(0, 30 - 2.0 * (value - 12))));
        SlaTuning.Selection s = tune("{\"goodput\": \"max\"}", 1, 256, 1, probe, 1).selections().getFirst();
        assertThat(s.maxSatisfied()).isEqualTo(12);
        assertThat(s.note()).startsWith("Best goodput: 30.00 req/s");
        // a run without --goodput has no such metric: no value qualifies
        assertThat(tune("{\"goodput\": \">=1\"}", 1, 8, 1, (v, r) -> run(10, 0), 1).selections().getFirst()
                .maxSatisfied()).isNull();
    }

    @Test
    void aStopEndsTheSearchWithWhatRan() throws Exception {
        int[] calls = {0};
        SlaProbe stopsAtThird = (value, run) -> ++calls[0] >= 3 ? null : run(1, 0);
        SlaTuning t = tune("{\"avg_latency\": \"<=1\"}", 1, 64, 1, stopsAtThird, 1);
        assertThat(t.stopped()).isTrue();
        assertThat(t.probes()).extracting(ProbeResult::value).containsExactly(1, 2);
        assertThat(t.selections()).isEmpty();
    }

    @Test
    void paramsAreCheckedWithTheFlagNamed() {
        for (String bad : List.of("{", "[]", "{\"p98_latency\": \"<=1\"}", "{\"avg_latency\": \"==1\"}",
                "{\"avg_latency\": \"<=fast\"}", "[{\"rps\": \"max\"}, {\"tps\": \"max\"}]", "{\"rps\": \"max\", \"tps\": \"<=1\"}",
                "[1]", "{}", "{\"rps\": 10}")) {
            assertThatThrownBy(() -> SlaParams.parse(bad)).as(bad).isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith("--sla-params");
        }
        SlaParams p = SlaParams.parse("{\"avg_ttft\": \"<=500\", \"p99_tpot\": \"<50ms\", \"tps\": \">=1000\"}");
        assertThat(p.groups().getFirst()).extracting(SlaCriterion::threshold).containsExactly(500_000.0, 50.0, 1000.0);
        assertThat(p.notes()).singleElement().asString().contains("avg_ttft", "read as 500 seconds", "500ms");
    }
}
