package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineSamplerTest {
    private static final long SECOND = 1_000_000_000L;

    /** Success i starts at i s and ends 0.5 s later with 10 completion tokens, 100 prompt tokens of which 40 cached. */
    private static TimelineSampler fed(int limit, int successes) {
        TimelineSampler s = new TimelineSampler(limit);
        for (int i = 0; i < successes; i++) s.add(i * SECOND, i * SECOND + SECOND / 2, 10, 100, 40);
        return s;
    }

    @Test
    void everySuccessIsAPointUpToTheLimit() {
        WorkloadTimeline t = fed(8, 8).snapshot();
        assertThat(t.points()).hasSize(8);
        assertThat(t.sampledEvery()).isEqualTo(1);
        assertThat(t.successes()).isEqualTo(8);
        assertThat(t.wallStartSeconds()).isEqualTo(0.0);
        assertThat(t.points().get(3)).isEqualTo(new WorkloadTimeline.Point(3.5, 40, 240, 160));
    }

    /** Threads record about in finish order; the timeline is the finish-order one whatever order they recorded in. */
    @Test
    void successesRecordedOutOfFinishOrderTakeTheirPlaceByEndTime() {
        long[][] requests = new long[20][];
        java.util.SplittableRandom rng = new java.util.SplittableRandom(3);
        for (int i = 0; i < requests.length; i++) {
            long start = i * SECOND / 10;
            requests[i] = new long[] {start, start + rng.nextLong(1, 3 * SECOND), 1 + rng.nextInt(50)};
        }
        TimelineSampler inFinishOrder = new TimelineSampler(64);
        java.util.Arrays.stream(requests).sorted(java.util.Comparator.comparingLong(r -> r[1]))
                .forEach(r -> inFinishOrder.add(r[0], r[1], (int) r[2], 100, 40));
        TimelineSampler inIssueOrder = new TimelineSampler(64);
        for (long[] r : requests) inIssueOrder.add(r[0], r[1], (int) r[2], 100, 40);
        WorkloadTimeline expected = inFinishOrder.snapshot();
        assertThat(inIssueOrder.snapshot()).isEqualTo(expected);
        assertThat(expected.points()).isSortedAccordingTo(java.util.Comparator.comparingDouble(WorkloadTimeline.Point::t));
    }

    @Test
    void pastTheLimitEveryNthSuccessIsKeptPlusTheLatest() {
        WorkloadTimeline t = fed(8, 100).snapshot();
        // 100 successes into 8 slots: stride 16 keeps successes 0, 16, 32, 48, 64, 80, 96, then the latest (99)
        assertThat(t.sampledEvery()).isEqualTo(16);
        assertThat(t.successes()).isEqualTo(100);
        List<Double> times = t.points().stream().map(WorkloadTimeline.Point::t).toList();
        assertThat(times).containsExactly(0.5, 16.5, 32.5, 48.5, 64.5, 80.5, 96.5, 99.5);
        WorkloadTimeline.Point last = t.points().getLast();
        assertThat(last).isEqualTo(new WorkloadTimeline.Point(99.5, 1000, 6000, 4000)); // exact totals
    }

    @Test
    void theLatestIsNotRepeatedWhenItWasKept() {
        WorkloadTimeline t = fed(8, 97).snapshot(); // success 96 is the latest and a multiple of 16
        assertThat(t.points().getLast().t()).isEqualTo(96.5);
        assertThat(t.points()).hasSize(7);
    }

    @Test
    void throughputOverASampledTimelineCountsEverySuccess() {
        WorkloadThroughput w = WorkloadThroughput.of(fed(8, 100).snapshot());
        assertThat(w.nSamples()).isEqualTo(100);
        assertThat(w.wallTimeSeconds()).isEqualTo(99.5);
        assertThat(w.row("Completion tok/s").overall()).isEqualTo(1000 / 99.5); // origin → latest: exact
    }
}
