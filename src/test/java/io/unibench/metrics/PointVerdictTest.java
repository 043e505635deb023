package io.unibench.metrics;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each reason of the verdict from hand-made records (no clock, no machine): and a healthy point is valid. */
class PointVerdictTest {

    /** A latency in ms that varies the same way in both halves: 100…149 ms. */
    private static double latency(int i) {
        return 100 + (i * 37) % 50;
    }

    /**
     * A closed loop: {@code workers} workers each sending {@code perWorker} requests one after another, {@code gapMs}
     * after the previous one ended; latencies from {@link #latency} plus {@code extraMs} in the second half.
     */
    private static List<RequestRecord> closedLoop(int workers, int perWorker, double gapMs, double secondHalfExtraMs) {
        List<RequestRecord> out = new ArrayList<>();
        int index = 0;
        for (int w = 0; w < workers; w++) {
            double t = w * 0.01;
            for (int k = 0; k < perWorker; k++) {
                double lat = latency(index) + (k >= perWorker / 2 ? secondHalfExtraMs : 0);
                out.add(record().index(index++).startMs(t).firstChunkMs(t + 20).chunksMs(t + 30, t + lat)
                        .endMs(t + lat).tokens(100, 2).build());
                t += lat + gapMs;
            }
        }
        return out;
    }

    /** An open loop offered 100 req/s (every 10 ms), each request sent {@code sendEveryMs} apart at the earliest. */
    private static List<RequestRecord> openLoop(int n, double sendEveryMs) {
        List<RequestRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double scheduled = i * 10.0;
            double start = Math.max(scheduled + 0.5, i * sendEveryMs);
            double lat = latency(i);
            out.add(record().index(i).scheduledMs(scheduled).startMs(start).firstChunkMs(start + 20)
                    .chunksMs(start + 30, start + lat).endMs(start + lat).tokens(100, 2).build());
        }
        return out;
    }

    private static PointVerdict judge(List<RequestRecord> records, int concurrency, String clientBound,
                                      PointVerdict.Limits limits) {
        RunMetrics metrics = new RunMetrics();
        LoadDelivery delivery = new LoadDelivery();
        for (RequestRecord r : records) {
            metrics.accept(r);
            delivery.accept(r);
        }
        RunResult result = metrics.result(new RunInfo("p", concurrency, -1, records.size()));
        return PointVerdict.judge(result, delivery.reading(concurrency), concurrency, clientBound, limits);
    }

    private static PointVerdict judge(List<RequestRecord> records, int concurrency) {
        return judge(records, concurrency, null, PointVerdict.Limits.DEFAULT);
    }

    @Test
    void aHealthyClosedLoopIsValid() {
        PointVerdict v = judge(closedLoop(4, 100, 0.1, 0), 4);
        assertThat(v.verdict()).isEqualTo("valid");
        assertThat(v.reasons()).isEmpty();
        assertThat(v.meanInFlight()).isCloseTo(4.0, within(0.05));
        assertThat(v.offeredRate()).isNull();
        assertThat(v.dispatchLagP99Ms()).isNull();
        assertThat(v.toMap()).containsEntry("Verdict", "valid").containsEntry("Verdict Reasons", null)
                .containsKeys("Offered Rate (req/s)", "Delivered Rate (req/s)", "Dispatch Lag p99 (ms)",
                        "Mean In-Flight");
    }

    @Test
    void aHealthyOpenLoopIsValid() {
        PointVerdict v = judge(openLoop(400, 0), 64);
        assertThat(v.verdict()).isEqualTo("valid");
        assertThat(v.offeredRate()).isCloseTo(100.0, within(0.01));
        assertThat(v.deliveredRate()).isCloseTo(100.0, within(0.01));
        assertThat(v.dispatchLagP99Ms()).isCloseTo(0.5, within(0.01));
    }

    @Test
    void theSelfChecksJudgementIsClientBound() {
        PointVerdict v = judge(closedLoop(4, 100, 0.1, 0), 4, "client CPU avg 91% of 2 cores > 40%; timing lag p99 "
                + "21.0 ms > 5.0 ms", PointVerdict.Limits.DEFAULT);
        assertThat(v.verdict()).isEqualTo("client-bound");
        assertThat(v.reasons()).containsExactly("client-bound: client CPU avg 91% of 2 cores > 40%; timing lag p99 "
                + "21.0 ms > 5.0 ms");
    }

    @Test
    void aSaturatedOpenLoopDidNotDeliverItsLoad() {
        // offered 100 req/s, sent at most every 20 ms: 50 req/s, each later than the one before
        PointVerdict v = judge(openLoop(400, 20), 64);
        assertThat(v.verdict()).isEqualTo("load-not-delivered");
        assertThat(v.offeredRate()).isCloseTo(100.0, within(0.01));
        assertThat(v.deliveredRate()).isCloseTo(50.0, within(0.01));
        assertThat(v.dispatchLagP99Ms()).isGreaterThan(3900);
        assertThat(v.reasons().getFirst()).startsWith("load-not-delivered: delivered 50.00 req/s < offered 100.00 req/s "
                + "− 5%, dispatch lag p99 ");
    }

    @Test
    void aLateButFullRateOpenLoopIsNotDeliveredByItsLagAlone() {
        List<RequestRecord> late = new ArrayList<>();
        for (RequestRecord r : openLoop(400, 0)) { // every request 150 ms late: the rate is kept, the lag is not
            Timing t = r.timing();
            long shift = 150_000_000L;
            late.add(new RequestRecord(r.position(), new Timing(t.stream(), t.startEpochMillis(), t.scheduledNanos(),
                    t.startNanos() + shift, t.headersNanos(), t.firstChunkNanos() + shift, t.firstTokenNanos() + shift,
                    t.endNanos() + shift, shifted(t.tokenChunkNanos(), shift)), r.tokens(), r.outcome(), r.phases(),
                    r.serverTimings()));
        }
        PointVerdict v = judge(late, 64);
        assertThat(v.verdict()).isEqualTo("load-not-delivered");
        assertThat(v.reasons()).containsExactly("load-not-delivered: dispatch lag p99 150.5 ms > 100 ms");
    }

    private static long[] shifted(long[] a, long by) {
        long[] out = a.clone();
        for (int i = 0; i < out.length; i++) out[i] += by;
        return out;
    }

    @Test
    void aClosedLoopWhoseWorkersIdleDidNotDeliverItsConcurrency() {
        // 4 workers, each idle as long as it waits for a reply: about 2 in flight on average
        PointVerdict v = judge(closedLoop(4, 100, 125, 0), 4);
        assertThat(v.verdict()).isEqualTo("load-not-delivered");
        assertThat(v.meanInFlight()).isBetween(1.8, 2.2);
        assertThat(v.reasons().getFirst()).startsWith("load-not-delivered: mean in-flight ")
                .contains("< 90% of the concurrency 4 over the steady ");
    }

    @Test
    void aClosedLoopOfAFewSendsPerWorkerIsNotJudgedOnItsInFlight() {
        // the same idle workers, but 2 sends each: the window's edges outweigh the load, so no delivery reason
        PointVerdict v = judge(closedLoop(4, 2, 125, 0), 4);
        assertThat(v.meanInFlight()).isLessThan(4 * 0.9);
        assertThat(v.reasons()).noneMatch(r -> r.startsWith("load-not-delivered"));
    }

    @Test
    void tenRequestsAreTooFewForTheReportedPercentilesIntervals() {
        PointVerdict v = judge(closedLoop(1, 10, 0.1, 0), 1);
        assertThat(v.verdict()).isEqualTo("too-few-samples");
        assertThat(v.reasons()).containsExactly("too-few-samples: p1, p5, p10, p25, p75, p90, p95, p99 need up to "
                + ConfidenceIntervals.minimumSamples(0.99) + " successful requests for a 95% CI, the point has 10");
    }

    @Test
    void aLevelShiftBetweenTheHalvesIsNotSteady() {
        PointVerdict v = judge(closedLoop(4, 100, 0.1, 200), 4);
        assertThat(v.verdict()).isEqualTo("not-steady");
        assertThat(v.reasons().getFirst()).startsWith("not-steady: median latency 95% CI first half [0.1")
                .contains("second half [0.3").endsWith("do not overlap");
    }

    @Test
    void errorsOverTheLimit() {
        List<RequestRecord> records = new ArrayList<>(closedLoop(4, 100, 0.1, 0));
        for (int i = 0; i < 30; i++) { // 30 of 430 = 7.0 %: over the default 5 %, under --max-error-rate 10
            double t = 1000 + i;
            records.add(record().index(1000 + i).startMs(t).endMs(t + 5).failed("http_500", 500, "boom").build());
        }
        PointVerdict v = judge(records, 4);
        assertThat(v.verdict()).isEqualTo("errors");
        assertThat(v.reasons()).containsExactly("errors: 30 of 430 requests failed (7.0%) > 5%");
        assertThat(judge(records, 4, null, PointVerdict.Limits.DEFAULT.withMaxErrorRatePercent(10.0)).verdict())
                .isEqualTo("valid");
    }

    @Test
    void reasonsAreJoinedInTheirOrder() {
        List<RequestRecord> records = new ArrayList<>(closedLoop(1, 10, 0.1, 0));
        records.add(record().index(99).startMs(50).endMs(51).failed("http_500", 500, "boom").build());
        PointVerdict v = judge(records, 1, "figures", PointVerdict.Limits.DEFAULT);
        assertThat(v.verdict()).isEqualTo("client-bound; too-few-samples; errors");
        assertThat(v.line()).startsWith("Verdict: client-bound; too-few-samples; errors (client-bound: figures; "
                + "too-few-samples: ");
    }

    @Test
    void aRunsVerdictIsTheUnionOfItsPoints() {
        assertThat(PointVerdict.combine(List.of("valid", "valid"))).isEqualTo("valid");
        assertThat(PointVerdict.combine(List.of("errors", "valid", "client-bound; errors"))).isEqualTo(
                "client-bound; errors");
        assertThat(PointVerdict.combine(java.util.Arrays.asList(null, null))).isNull();
        assertThat(PointVerdict.reasonsOf("too-few-samples; not-steady")).containsExactly("too-few-samples",
                "not-steady");
        assertThat(PointVerdict.isValid("valid")).isTrue();
        assertThat(PointVerdict.isValid(null)).isFalse();
    }
}
