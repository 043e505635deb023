package io.unibench.report.scenario;

import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.CostMeter;
import io.unibench.metrics.RunMetrics;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KneeFinderTest {
    private static final CostMeter.Totals NONE = new CostMeter.Totals(0, 0, 0, 0);

    /** A level of {@code n} successes, each {@code latencyMs} long, spread evenly over one second of wall time. */
    private static ScenarioResults.Level level(int concurrency, int n, long latencyMs) {
        RunMetrics m = new RunMetrics();
        long wall = 1_000_000_000L;
        for (int i = 0; i < n; i++) {
            long start = i * (wall - latencyMs * 1_000_000L) / Math.max(1, n - 1);
            long end = start + latencyMs * 1_000_000L;
            m.accept(new RequestRecord(Position.single(i, "r" + i),
                    new Timing(false, 0, Moments.ABSENT, start, start, end, end, end, new long[0]),
                    Tokens.counted(10, 5, RequestRecord.TokenSource.SERVER), Outcome.ok(200, "stop"), PhaseTimes.NONE,
                    null));
        }
        return new ScenarioResults.Level(concurrency, m.result(new RunInfo("c" + concurrency, concurrency, -1, n)), NONE);
    }

    @Test
    void kneeIsTheLevelAfterWhichThroughputStopsGrowing() {
        List<ScenarioResults.Level> levels = List.of(level(1, 10, 100), level(2, 20, 100), level(4, 21, 190),
                level(8, 21, 380));
        KneeFinder.Knee k = KneeFinder.find(levels, new KneeFinder.Rule(10, null));
        assertThat(k).isNotNull();
        assertThat(k.concurrency()).isEqualTo(2);
        assertThat(k.reason()).isEqualTo("throughput +5.0% from concurrency 2 to 4 (below 10%)");
    }

    @Test
    void latencyBoundComesFirstWhenPassedEarlier() {
        List<ScenarioResults.Level> levels = List.of(level(1, 10, 100), level(2, 20, 300), level(4, 40, 600));
        KneeFinder.Knee k = KneeFinder.find(levels, new KneeFinder.Rule(10, 250.0));
        assertThat(k.concurrency()).isEqualTo(2);
        assertThat(k.reason()).isEqualTo("p95 latency 300 ms passes the 250 ms bound");
    }

    @Test
    void noKneeWhileThroughputKeepsGrowing() {
        assertThat(KneeFinder.find(List.of(level(1, 10, 100), level(2, 20, 100)), new KneeFinder.Rule(10, null))).isNull();
    }
}
