package io.unibench.metrics;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Per-trace and per-turn-position aggregation, with every figure computed by hand. */
class TraceMetricsTest {
    private static final RunInfo INFO = new RunInfo("x", 2, -1, 2);

    @Test
    void perTraceTimesFollowEvalscopesDefinitionsWithLinearPercentiles() {
        RunMetrics m = new RunMetrics();
        // trace A: turn 1 at 0 ms, first token 100, end 200 with 11 tokens → decode (11−1)/0.1 s = 100 tok/s;
        //          turn 2 at 300, first token 350, end 450 with 21 tokens → 20/0.1 = 200 tok/s.
        m.accept(record().index(0).conversation("A", 0).startMs(0).chunksMs(100, 200).endMs(200)
                .tokens(100, 11).cached(0).build());
        m.accept(record().index(1).conversation("A", 1).lastTurn().startMs(300).chunksMs(350, 450).endMs(450)
                .tokens(200, 21).cached(96).build());
        // trace B: one turn at 1000, first token 1040, end 1100, 1 token (no decode rate)
        m.accept(record().index(2).conversation("B", 0).lastTurn().startMs(1000).chunksMs(1040).endMs(1100)
                .tokens(50, 1).cached(0).build());
        RunResult r = m.result(INFO);
        TraceSummary t = r.traces();
        assertThat(t.nTraces()).isEqualTo(2);
        assertThat(t.completedTraces()).isEqualTo(2);
        // latency: A = 0.45 s, B = 0.1 s → mean 0.275, p90 = 0.1 + 0.9·0.35 = 0.415
        TraceSummary.Row latency = t.row(TraceSummary.LATENCY);
        assertThat(latency.mean()).isEqualTo(0.275);
        assertThat(latency.min()).isEqualTo(0.1);
        assertThat(latency.p90()).isCloseTo(0.415, within(1e-9));
        assertThat(latency.max()).isEqualTo(0.45);
        // first-turn TTFT: A 0.1, B 0.04; TTFAT: A = 0.35 (turn 2's first token), B = 0.04
        assertThat(t.row(TraceSummary.FIRST_TURN_TTFT).mean()).isEqualTo(0.07);
        assertThat(t.row(TraceSummary.TTFAT).max()).isEqualTo(0.35);
        assertThat(t.row(TraceSummary.TTFAT).min()).isEqualTo(0.04);
        // decode TPS: only A defines it, mean of 100 and 200
        TraceSummary.Row decode = t.row(TraceSummary.DECODE_TPS);
        assertThat(decode.n()).isEqualTo(1);
        assertThat(decode.mean()).isCloseTo(150.0, within(1e-6));
        // cache: A = 96/300, B = 0/50; eligible A = 96 / (100 + 11)
        assertThat(t.row(TraceSummary.CACHE_HIT_RATE).max()).isCloseTo(32.0, within(1e-9));
        assertThat(t.row(TraceSummary.ELIGIBLE_CACHE_HIT_RATE).mean()).isCloseTo(100.0 * 96 / 111, within(1e-4));

        // by position: turn 1 has A and B (TTFT 100 and 40 ms), turn 2 only A
        assertThat(r.turnPositions()).hasSize(2);
        TurnPositionRow first = r.turnPositions().get(0);
        assertThat(first.requests()).isEqualTo(2);
        assertThat(first.avgTtftMs()).isEqualTo(70.0);
        assertThat(first.p50TtftMs()).isEqualTo(100.0); // nearest rank, higher: sorted[floor(2·0.5)]
        assertThat(first.cacheHitPercent()).isEqualTo(0.0);
        assertThat(r.turnPositions().get(1).cacheHitPercent()).isEqualTo(48.0);

        Summary s = r.summary();
        assertThat(s.multiTurn().avgTurnsPerRequest()).isCloseTo(4.0 / 3, within(1e-4));
        assertThat(s.multiTurn().avgFirstTurnTtftMs()).isEqualTo(70.0);
        assertThat(s.multiTurn().avgSubsequentTurnTtftMs()).isEqualTo(50.0);
        assertThat(s.multiTurn().completedTraces()).isEqualTo(2);
        assertThat(s.cache().cacheHitSource()).isEqualTo("server");
    }

    @Test
    void abandonedConversationsKeepTheirSuccessfulTurnsAsAPartialTrace() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).conversation("A", 0).startMs(0).chunksMs(10, 20).endMs(20).tokens(10, 2)
                .estimatedCached(0).build());
        m.accept(record().index(1).conversation("A", 1).lastTurn().startMs(30).endMs(40)
                .failed("http_5xx", 500, "boom").build());
        RunResult r = m.result(INFO);
        assertThat(r.traces().nTraces()).isEqualTo(1);
        assertThat(r.traces().completedTraces()).isZero();
        assertThat(r.traces().abandonedTraces()).isEqualTo(1);
        assertThat(r.turnPositions().get(1).requests()).isEqualTo(1);
        assertThat(r.turnPositions().get(1).succeeded()).isZero();
        assertThat(r.summary().cache().cacheHitSource()).isEqualTo("estimated");
    }

    @Test
    void everyConversationThatSentATurnIsATraceSoTracesAreCompletedPlusAbandoned() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).conversation("A", 0).lastTurn().startMs(0).chunksMs(10).endMs(20).tokens(10, 1)
                .cached(0).build());
        // B's first turn failed: abandoned without a successful turn, still a trace
        m.accept(record().index(1).conversation("B", 0).lastTurn().startMs(0).endMs(5)
                .failed("http_5xx", 500, "boom").build());
        // C: turn 1 succeeded, then the run stopped before its second (last) turn was sent
        m.accept(record().index(2).conversation("C", 0).startMs(0).chunksMs(10).endMs(20).tokens(10, 1)
                .cached(0).build());
        TraceSummary t = m.result(INFO).traces();
        assertThat(t.completedTraces()).isEqualTo(1);
        assertThat(t.abandonedTraces()).isEqualTo(2);
        assertThat(t.nTraces()).isEqualTo(t.completedTraces() + t.abandonedTraces()).isEqualTo(3);
        // the figures come from the two conversations with a successful turn
        assertThat(t.row(TraceSummary.LATENCY).n()).isEqualTo(2);
    }

    @Test
    void eligibleCacheHitsBeyondThePreviousTurnsContextDoNotCount() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).conversation("A", 0).startMs(0).chunksMs(10).endMs(20).tokens(100, 10)
                .cached(64).build()); // a prefix another conversation left: counts in Cache Hit Rate only
        m.accept(record().index(1).conversation("A", 1).lastTurn().startMs(30).chunksMs(40).endMs(50)
                .tokens(200, 10).cached(176).build()); // 176 cached > eligible 110
        TraceSummary t = m.result(INFO).traces();
        assertThat(t.row(TraceSummary.ELIGIBLE_CACHE_HIT_RATE).max()).isEqualTo(100.0);
        assertThat(t.row(TraceSummary.CACHE_HIT_RATE).max()).isCloseTo(100.0 * 240 / 300, within(1e-9));
    }

    /** Property: over random conversations, whatever the server reports, Eligible Cache Hit Rate stays in [0, 100]. */
    @Test
    void eligibleCacheHitRateNeverExceedsOneHundredPercent() {
        java.util.SplittableRandom rng = new java.util.SplittableRandom(14);
        for (int run = 0; run < 200; run++) {
            RunMetrics m = new RunMetrics();
            int index = 0;
            for (int c = 0; c < 5; c++) {
                int turns = 1 + rng.nextInt(6);
                double at = 0;
                for (int turn = 0; turn < turns; turn++) {
                    int prompt = 1 + rng.nextInt(4000);
                    m.accept(record().index(index++).conversation("c" + c, turn).startMs(at).chunksMs(at + 5)
                            .endMs(at + 10).tokens(prompt, 1 + rng.nextInt(500)).cached(rng.nextInt(prompt + 1))
                            .build());
                    at += 20;
                }
            }
            TraceSummary.Row eligible = m.result(INFO).traces().row(TraceSummary.ELIGIBLE_CACHE_HIT_RATE);
            if (eligible.n() == 0) continue;
            assertThat(eligible.max()).as("run %d", run).isLessThanOrEqualTo(100.0);
            assertThat(eligible.min()).as("run %d", run).isGreaterThanOrEqualTo(0.0);
        }
    }

    @Test
    void singleTurnRunsHaveNoTraces() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).chunksMs(10).endMs(20).tokens(10, 1).build());
        RunResult r = m.result(INFO);
        assertThat(r.traces()).isNull();
        assertThat(r.multiTurn()).isFalse();
        assertThat(r.turnPositions()).isEmpty();
        assertThat(r.summary().toMap()).doesNotContainKeys(Summary.COMPLETED_TRACES, Summary.AVG_TURNS);
    }
}
