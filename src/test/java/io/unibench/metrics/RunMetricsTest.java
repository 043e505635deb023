package io.unibench.metrics;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class RunMetricsTest {
    private static final RunInfo INFO = new RunInfo("parallel_4_number_4", 4, -1, 4);

    /** 11 tokens in 11 chunks 100 ms apart; TTFT 100 ms, first chunk 50 ms, latency 1.1 s, TPOT 100 ms. */
    static RequestRecord a() {
        return record().index(0).startMs(0).headersMs(40).firstChunkMs(50)
                .chunksMs(100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100).endMs(1100)
                .tokens(100, 11).build();
    }

    /** 9 tokens in 5 chunks 400 ms apart (2 tokens per chunk); TTFT 200 ms, latency 1.8 s, TPOT 200 ms. */
    static RequestRecord b() {
        return record().index(1).startMs(200).headersMs(210).firstChunkMs(220)
                .chunksMs(400, 800, 1200, 1600, 2000).endMs(2000)
                .tokens(200, 9).cached(50).build();
    }

    /** One-token reply counted by the client tokenizer; TTFT 30 ms, latency 40 ms, no TPOT. */
    static RequestRecord c() {
        return record().index(2).startMs(500).headersMs(505).firstChunkMs(510).chunksMs(530).endMs(540)
                .tokens(50, 1).cached(0).source(RequestRecord.TokenSource.TOKENIZER).build();
    }

    /** Read timeout: starts at 100 ms, fails at 2500 ms (extends the wall window). */
    static RequestRecord d() {
        return record().index(3).startMs(100).endMs(2500).failed("timeout_read", 0, "no byte for 2 s").build();
    }

    static RunResult threePlusOneFailure() {
        RunMetrics m = new RunMetrics();
        for (RequestRecord r : List.of(c(), a(), d(), b())) m.accept(r);
        return m.result(INFO);
    }

    @Test
    void requestsCancelledByTheStopAreNeitherSuccessesNorFailures() {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 3; i++) m.accept(record().index(i).startMs(0).chunksMs(10).endMs(20).tokens(5, 1).build());
        m.accept(record().index(3).startMs(0).endMs(5).failed("http_5xx", 500, "boom").build());
        m.accept(record().index(4).startMs(0).endMs(30).failed(Outcome.CANCELLED, 0, "cancelled").build());
        m.accept(record().index(5).startMs(0).endMs(30).failed(Outcome.CANCELLED, 0, "cancelled").build());
        RunResult r = m.result(new RunInfo("x", 4, -1, 6));
        Summary s = r.summary();
        assertThat(s.requests().totalRequests()).isEqualTo(6);
        assertThat(s.requests().successRequests()).isEqualTo(3);
        assertThat(s.requests().failedRequests()).isEqualTo(1);
        assertThat(s.requests().cancelledRequests()).isEqualTo(2);
        assertThat(s.requests().successRatePercent()).isEqualTo(75.0); // 3 of the 4 that ended
        assertThat(r.errors()).containsExactly(Map.entry("http_5xx", 1L)); // the errors add up to Failed Requests
        assertThat(s.toMap()).containsEntry(Summary.CANCELLED_REQUESTS, 2L);
        LiveStats live = m.live(); // the progress line agrees
        assertThat(live.failed()).isEqualTo(1);
        assertThat(live.cancelled()).isEqualTo(2);
    }

    @Test
    void summaryOfThreeSuccessesAndOneFailure() {
        Summary s = threePlusOneFailure().summary();
        // wall = max end (2500, the failure) − min start (0)
        assertThat(s.load().testDurationSeconds()).isEqualTo(2.5);
        assertThat(s.load().concurrency()).isEqualTo(4);
        assertThat(s.load().requestRate()).isEqualTo(-1);
        assertThat(s.requests().totalRequests()).isEqualTo(4);
        assertThat(s.requests().successRequests()).isEqualTo(3);
        assertThat(s.requests().failedRequests()).isEqualTo(1);
        assertThat(s.requests().streamRequests()).isEqualTo(4);
        assertThat(s.requests().nonStreamRequests()).isZero();
        assertThat(s.throughput().reqThroughput()).isEqualTo(1.2); // 3 / 2.5
        assertThat(s.latency().avgLatencySeconds()).isEqualTo(0.98); // (1.1 + 1.8 + 0.04) / 3
        assertThat(s.tokens().avgInputTokens()).isEqualTo(116.6667); // 350 / 3
        assertThat(s.throughput().outputThroughput()).isEqualTo(8.4); // 21 / 2.5
        assertThat(s.throughput().totalThroughput()).isEqualTo(148.4); // 371 / 2.5
        assertThat(s.latency().avgTtftMs()).isEqualTo(110.0); // (100 + 200 + 30) / 3
        assertThat(s.latency().avgTpotMs()).isEqualTo(150.0); // (100 + 200) / 2: the one-token reply is left out
        assertThat(s.latency().avgItlMs()).isEqualTo(185.71); // (10·100 + 4·400) / 14 intervals
        assertThat(s.tokens().avgOutputTokens()).isEqualTo(7.0); // 21 / 3
        assertThat(s.throughput().inputThroughput()).isNull(); // a generation run: not measured, not 0
        assertThat(s.multiTurn().avgTurnsPerRequest()).isNull(); // single-turn
        assertThat(s.cache().kvCacheHitRatePercent()).isEqualTo(20.0); // (50 + 0) / (200 + 50); A reported none
        assertThat(s.multiTurn().avgFirstTurnTtftMs()).isNull();
        assertThat(s.speculative().avgDecodedTokensPerIter()).isEqualTo(2.0); // only B has more than 1 token per chunk
        assertThat(s.speculative().specAcceptRate()).isEqualTo(0.5); // 1 − 1/2
        assertThat(s.requests().successRatePercent()).isEqualTo(75.0);
        assertThat(s.tokens().totalInputTokens()).isEqualTo(350);
        assertThat(s.tokens().totalOutputTokens()).isEqualTo(21);
        assertThat(s.cache().totalCachedTokens()).isEqualTo(50);
        assertThat(s.latency().avgFirstChunkMs()).isEqualTo(26.67); // (50 + 20 + 10) / 3
        assertThat(s.latency().avgItlPerTokenMs()).isEqualTo(128.57); // (10·100 + 4·(400/2)) / 14
        assertThat(s.tokens().tokenCountSource()).isEqualTo("mixed: server 2, client tokenizer 1");
        assertThat(s.tokens().tokenCountsNotFromServer()).isTrue();
        assertThat(s.queueing().scheduled()).isFalse();
    }

    @Test
    void summaryMapHasEvalscopeKeysFirstInOrder() {
        Map<String, Object> m = threePlusOneFailure().summary().toMap();
        assertThat(new ArrayList<>(m.keySet()).subList(0, 18)).containsExactly(
                "Test Duration (s)", "Concurrency", "Request Rate (req/s)", "Total Requests", "Success Requests",
                "Failed Requests", "Stream Requests", "Non-Stream Requests", "Req Throughput (req/s)",
                "Avg Latency (s)", "Avg Input Tokens", "Output Throughput (tok/s)", "Total Throughput (tok/s)",
                "Avg TTFT (ms)", "Avg TPOT (ms)", "Avg ITL (ms)", "Avg Output Tokens", "Input Throughput (tok/s)");
        assertThat(m).containsEntry("KV Cache Hit Rate (%)", 20.0)
                .containsEntry("Avg First Chunk (ms)", 26.67)
                .containsEntry("Avg ITL per Token (ms)", 128.57)
                .containsEntry("Total Requests", 4L)
                .containsEntry("Concurrency", 4L)
                .doesNotContainKey("Avg Turns/Request")
                .doesNotContainKey("Avg Queue Delay (ms)");
    }

    @Test
    void percentileCellsByHand() {
        RunResult r = threePlusOneFailure();
        assertThat(r.percentiles()).extracting(PercentileRow::label).containsExactly(
                "min", "1%", "5%", "10%", "25%", "50%", "75%", "90%", "95%", "99%", "max");
        assertThat(r.percentiles().getFirst().values().keySet()).startsWith(
                "Latency (s)", "TTFT (ms)", "ITL (ms)", "TPOT (ms)", "Input tokens", "Output tokens",
                "Output (tok/s)", "Total (tok/s)", "Decode (tok/s)");
        // latency sorted [0.04, 1.1, 1.8]: 25% → floor(0.75)=0, 50% → floor(1.5)=1, 99% → floor(2.97)=2
        assertThat(r.percentile("min", "Latency (s)")).isEqualTo(0.04);
        assertThat(r.percentile("25%", "Latency (s)")).isEqualTo(0.04);
        assertThat(r.percentile("50%", "Latency (s)")).isEqualTo(1.1);
        assertThat(r.percentile("99%", "Latency (s)")).isEqualTo(1.8);
        assertThat(r.percentile("50%", "TTFT (ms)")).isEqualTo(100.0);
        // ITL: 10 × 100 then 4 × 400 (n = 14): 50% → index 7 = 100, 75% → index 10 = 400
        assertThat(r.percentile("50%", "ITL (ms)")).isEqualTo(100.0);
        assertThat(r.percentile("75%", "ITL (ms)")).isEqualTo(400.0);
        // TPOT [100, 200]: 25% → index 0, 50% → index 1
        assertThat(r.percentile("25%", "TPOT (ms)")).isEqualTo(100.0);
        assertThat(r.percentile("50%", "TPOT (ms)")).isEqualTo(200.0);
        assertThat(r.percentile("50%", "Input tokens")).isEqualTo(100.0);
        assertThat(r.percentile("50%", "Output tokens")).isEqualTo(9.0);
        // output tok/s per request: 11/1.1 = 10, 9/1.8 = 5, 1/0.04 = 25
        assertThat(r.percentile("50%", "Output (tok/s)")).isEqualTo(10.0);
        assertThat(r.percentile("max", "Output (tok/s)")).isEqualTo(25.0);
        // total tok/s: 111/1.1 = 100.909…, 209/1.8 = 116.111…, 51/0.04 = 1275
        assertThat(r.percentile("50%", "Total (tok/s)")).isEqualTo(116.11);
        // decode tok/s = 1000 / TPOT ms: [5, 10]
        assertThat(r.percentile("50%", "Decode (tok/s)")).isEqualTo(10.0);
        assertThat(r.percentile("50%", "First Chunk (ms)")).isEqualTo(20.0);
        // per-token ITL: 10 × 100 then 4 × 200: 90% → index 12 = 200
        assertThat(r.percentile("90%", "ITL per Token (ms)")).isEqualTo(200.0);
        assertThat(r.percentile("50%", "ITL per Token (ms)")).isEqualTo(100.0);
    }

    @Test
    void errorsCountedWithSample() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).endMs(10).failed("http_429", 429, "rate limited").build());
        m.accept(record().index(1).startMs(0).endMs(10).failed("http_500", 500, "boom").build());
        m.accept(record().index(2).startMs(0).endMs(10).failed("http_429", 429, "again").build());
        RunResult r = m.result(INFO);
        assertThat(r.errors()).containsExactly(Map.entry("http_429", 2L), Map.entry("http_500", 1L));
        assertThat(r.sampleErrors()).containsEntry("http_429", "rate limited").containsEntry("http_500", "boom");
        // nothing succeeded: rates are −1 as in evalscope, undefined means are null
        Summary s = r.summary();
        assertThat(s.throughput().reqThroughput()).isEqualTo(-1);
        assertThat(s.throughput().outputThroughput()).isEqualTo(-1);
        assertThat(s.latency().avgLatencySeconds()).isEqualTo(-1);
        assertThat(s.latency().avgTtftMs()).isNull();
        assertThat(s.tokens().tokenCountSource()).isNull();
        assertThat(r.percentile("50%", "Latency (s)")).isNull();
        assertThat(r.workload().nSamples()).isZero();
    }

    @Test
    void oneTokenRepliesAreExcludedFromTpot() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).firstChunkMs(10).chunksMs(20).endMs(25).tokens(10, 1).build());
        m.accept(record().index(1).startMs(0).firstChunkMs(10).chunksMs(20).endMs(25).tokens(10, 0).build());
        RunResult only = m.result(INFO);
        assertThat(only.summary().latency().avgTpotMs()).isNull(); // evalscope would say 0.0
        assertThat(only.percentile("50%", "TPOT (ms)")).isNull();
        assertThat(only.percentile("50%", "Decode (tok/s)")).isNull();

        // 3 tokens, TTFT 20 ms, end 120 ms → TPOT (0.12 − 0.02) / 2 = 50 ms, not (50 + 0 + 0) / 3
        m.accept(record().index(2).startMs(0).firstChunkMs(10).chunksMs(20, 70, 120).endMs(120).tokens(10, 3).build());
        assertThat(m.result(INFO).summary().latency().avgTpotMs()).isEqualTo(50.0);
    }

    @Test
    void perTokenItlDividesByTokensPerChunk() {
        RunMetrics m = new RunMetrics();
        // 5 tokens in 3 chunks: (5 − 1) / (3 − 1) = 2 tokens per chunk; chunk intervals 100 and 300 ms
        m.accept(record().index(0).startMs(0).firstChunkMs(5).chunksMs(10, 110, 410).endMs(410).tokens(8, 5).build());
        RunResult r = m.result(INFO);
        assertThat(r.summary().latency().avgItlMs()).isEqualTo(200.0); // (100 + 300) / 2
        assertThat(r.summary().latency().avgItlPerTokenMs()).isEqualTo(100.0); // (50 + 150) / 2
        assertThat(r.percentile("min", "ITL per Token (ms)")).isEqualTo(50.0);
        assertThat(r.percentile("max", "ITL per Token (ms)")).isEqualTo(150.0);
        assertThat(r.percentile("max", "ITL (ms)")).isEqualTo(300.0);
    }

    @Test
    void secondsColumnsKeepFourDecimalsOthersTwo() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).firstChunkMs(1).chunksMs(12.3456, 123.456).endMs(123.456).tokens(3, 2).build());
        RunResult r = m.result(INFO);
        assertThat(r.percentile("50%", "Latency (s)")).isEqualTo(0.1235); // 0.123456 s; evalscope would write 0.12
        assertThat(r.percentile("50%", "TTFT (ms)")).isEqualTo(12.35);
        assertThat(r.summary().latency().avgLatencySeconds()).isEqualTo(0.1235);
    }

    @Test
    void nonStreamedRunUsesLatencyAsTtftAndHasNoTpotOrItl() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).nonStream().startMs(0).headersMs(300).firstChunkMs(400).endMs(400).tokens(10, 20).build());
        m.accept(record().index(1).nonStream().startMs(0).headersMs(500).firstChunkMs(600).endMs(600).tokens(10, 20).build());
        Summary s = m.result(INFO).summary();
        assertThat(s.latency().avgTtftMs()).isEqualTo(500.0);
        assertThat(s.latency().avgFirstChunkMs()).isEqualTo(500.0);
        assertThat(s.latency().avgTpotMs()).isNull();
        assertThat(s.latency().avgItlMs()).isNull();
        assertThat(s.requests().nonStreamRequests()).isEqualTo(2);
        assertThat(s.tokens().tokenCountSource()).isEqualTo("server");
    }

    @Test
    void scheduledRunReportsQueueDelay() {
        RunMetrics m = new RunMetrics();
        // scheduled at 0, sent at 30 (30 ms queue), first token at 130, end 530
        m.accept(record().index(0).scheduledMs(0).startMs(30).firstChunkMs(100).chunksMs(130, 530).endMs(530)
                .tokens(10, 2).build());
        // scheduled at 100, sent at 110 (10 ms queue), first token 160, end 310
        m.accept(record().index(1).scheduledMs(100).startMs(110).firstChunkMs(150).chunksMs(160, 310).endMs(310)
                .tokens(10, 2).build());
        RunResult r = m.result(new RunInfo("rate_5_number_2", -1, 5, 2));
        Summary s = r.summary();
        assertThat(s.queueing().scheduled()).isTrue();
        assertThat(s.queueing().avgQueueDelayMs()).isEqualTo(20.0); // (30 + 10) / 2
        assertThat(s.queueing().avgLatencyInclQueueSeconds()).isEqualTo(0.37); // (0.53 + 0.21) / 2
        assertThat(s.queueing().avgTtftInclQueueMs()).isEqualTo(95.0); // (130 + 60) / 2
        assertThat(s.latency().avgLatencySeconds()).isEqualTo(0.35); // (0.5 + 0.2) / 2, queue not included
        assertThat(s.toMap()).containsKeys("Avg Queue Delay (ms)", "Avg Latency incl. Queue (s)", "Avg TTFT incl. Queue (ms)");
        assertThat(r.percentile("max", "Queue Delay (ms)")).isEqualTo(30.0);
        assertThat(r.percentile("min", "TTFT incl. Queue (ms)")).isEqualTo(60.0);
        assertThat(r.percentile("max", "Latency incl. Queue (s)")).isEqualTo(0.53);
    }

    @Test
    void multiTurnKeys() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).conversation("c1", 0).startMs(0).chunksMs(100, 200).endMs(200).tokens(10, 2).cached(0).build());
        m.accept(record().index(1).conversation("c1", 1).startMs(300).chunksMs(340, 400).endMs(400).tokens(22, 2).cached(12).build());
        Summary s = m.result(INFO).summary();
        assertThat(s.multiTurn().avgTurnsPerRequest()).isEqualTo(1.5); // (1 + 2) / 2
        assertThat(s.multiTurn().avgFirstTurnTtftMs()).isEqualTo(100.0);
        assertThat(s.multiTurn().avgSubsequentTurnTtftMs()).isEqualTo(40.0);
        assertThat(s.cache().kvCacheHitRatePercent()).isEqualTo(37.5); // 12 / 32
    }

    @Test
    void timelineAnchorsAtFirstSuccessFedAndWorkloadWindows() {
        RunResult r = threePlusOneFailure(); // fed C, A, D, B
        WorkloadTimeline tl = r.timeline();
        assertThat(tl.wallStartSeconds()).isCloseTo(TestRecords.ms(500) / 1e9, within(1e-9)); // C's start
        assertThat(tl.points()).hasSize(3);
        assertThat(tl.points().get(0).t()).isCloseTo(0.04, within(1e-9)); // C ends 540
        assertThat(tl.points().get(1).t()).isCloseTo(0.6, within(1e-9)); // A ends 1100
        assertThat(tl.points().get(2)).isEqualTo(new WorkloadTimeline.Point(tl.points().get(2).t(), 21, 300, 50));
        // new prompt: C 50 − 0, A 100 − 0 (cached not reported), B 200 − 50
        WorkloadThroughput w = r.workload();
        assertThat(w.nSamples()).isEqualTo(3);
        assertThat(w.wallTimeSeconds()).isEqualTo(1.5); // last point: B ends 2000 − 500
        WorkloadThroughput.Row completion = w.row("Completion tok/s");
        assertThat(completion.overall()).isCloseTo(21 / 1.5, within(1e-9));
        assertThat(completion.lastWindow()).isEqualTo(completion.overall()); // wall ≤ 30 s
        // steady: anchor = latest point with t ≤ 0.3 → C (t 0.04, 1 completion token)
        assertThat(completion.steadyState()).isCloseTo(20 / 1.46, within(1e-9));
        assertThat(w.row("Total Prompt tok/s").overall()).isCloseTo(350 / 1.5, within(1e-9));
        assertThat(w.row("Cached Prompt tok/s").overall()).isCloseTo(50 / 1.5, within(1e-9));
        assertThat(w.row("New Prompt tok/s").steadyState()).isCloseTo(250 / 1.46, within(1e-9));
    }

    @Test
    void workloadLastWindowAndSteadyAnchorsOnLongRun() {
        RunMetrics m = new RunMetrics();
        double[] endsSeconds = {10, 20, 40, 50};
        for (int i = 0; i < endsSeconds.length; i++) {
            m.accept(record().index(i).startMs(0).chunksMs(endsSeconds[i] * 1000 - 100, endsSeconds[i] * 1000)
                    .endMs(endsSeconds[i] * 1000).tokens(100, 10).build());
        }
        WorkloadThroughput w = m.result(INFO).workload();
        WorkloadThroughput.Row c = w.row("Completion tok/s");
        assertThat(c.overall()).isCloseTo(40 / 50.0, within(1e-12));
        // last 30 s: target 50 − 30 = 20 → anchor t = 20 (20 tokens) → (40 − 20) / 30
        assertThat(c.lastWindow()).isCloseTo(20 / 30.0, within(1e-12));
        // steady: target 0.2 · 50 = 10 → anchor t = 10 (10 tokens) → (40 − 10) / 40
        assertThat(c.steadyState()).isCloseTo(30 / 40.0, within(1e-12));
    }

    @Test
    void steadyFallsBackToOverallWhenAnchorIsLastPoint() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).startMs(0).chunksMs(500, 1000).endMs(1000).tokens(100, 10).build());
        WorkloadThroughput.Row c = m.result(INFO).workload().row("Completion tok/s");
        assertThat(c.overall()).isCloseTo(10.0, within(1e-12));
        assertThat(c.steadyState()).isEqualTo(c.overall());
        assertThat(c.lastWindow()).isEqualTo(c.overall());
    }

    @Test
    void pastTheOldCapOf262144SamplesItlPercentilesAreStillTheSortedValues() {
        // 1,100 replies of 257 chunks: 282,700 intervals, past the histogram cap this package had (262,144)
        RunMetrics m = new RunMetrics();
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        double[] all = new double[1100 * 256];
        int n = 0;
        for (int i = 0; i < 1100; i++) {
            double[] chunks = new double[257];
            double t = 10 + i;
            for (int c = 0; c < chunks.length; c++) {
                if (c > 0) {
                    double gap = 1 + rnd.nextInt(40_000) / 1000.0; // 1 … 41 ms in µs steps
                    t += gap;
                }
                chunks[c] = t;
            }
            RequestRecord r = record().index(i).startMs(i).firstChunkMs(chunks[0]).chunksMs(chunks)
                    .endMs(chunks[256]).tokens(10, 257).build();
            for (int c = 0; c < r.interChunkCount(); c++) all[n++] = r.interChunkSeconds(c) * 1000;
            m.accept(r);
        }
        assertThat(n).isEqualTo(all.length).isGreaterThan(1 << 18);
        RunResult result = m.result(INFO);
        java.util.Arrays.sort(all);

        assertThat(result.summary().stats().percentileMethod()).isEqualTo(Summary.PERCENTILES_EXACT);
        assertColumnIsOfTheSorted(result, PercentileRow.ITL, all);
        assertThat(result.summary().latency().avgItlMs())
                .isEqualTo(Rounding.round(java.util.Arrays.stream(all).sum() / all.length, 2));
    }

    @Test
    void aRunOf300000RequestsReportsTheExactPercentilesOfItsLatencies() {
        RunMetrics m = new RunMetrics();
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        int requests = 300_000;
        double[] latency = new double[requests];
        double[] ttft = new double[requests];
        for (int i = 0; i < requests; i++) {
            double first = 1 + rnd.nextInt(500_000) / 1000.0; // ms, µs steps
            double end = first + rnd.nextInt(2_000_000) / 1000.0;
            RequestRecord r = record().index(i).startMs(i).firstChunkMs(first + i).chunksMs(first + i, end + i)
                    .endMs(end + i).tokens(10, 2).build();
            latency[i] = r.latencySeconds();
            ttft[i] = r.ttftSeconds() * 1000;
            m.accept(r);
        }
        RunResult result = m.result(INFO);
        java.util.Arrays.sort(latency);
        java.util.Arrays.sort(ttft);
        assertThat(result.summary().stats().percentileMethod()).isEqualTo(Summary.PERCENTILES_EXACT);
        assertColumnIsOfTheSorted(result, PercentileRow.LATENCY, latency);
        assertColumnIsOfTheSorted(result, PercentileRow.TTFT, ttft);
    }

    /** Every row of the column is {@code sorted}'s value at that rank, rounded as the table rounds the column. */
    private static void assertColumnIsOfTheSorted(RunResult result, String column, double[] sorted) {
        for (int i = 0; i < PercentileRow.POINTS.length; i++) {
            PercentileRow row = result.percentiles().get(i);
            assertThat(row.value(column)).as("%s %s", column, row.label()).isEqualTo(Rounding.round(
                    Percentiles.nearestRankHigh(sorted, PercentileRow.POINTS[i]), PercentileRow.decimals(column)));
        }
    }

    @Test
    void smallRunsReportExactPercentiles() {
        assertThat(threePlusOneFailure().summary().stats().percentileMethod()).isEqualTo(Summary.PERCENTILES_EXACT);
    }

    @Test
    void liveStatsAreCheapRunningFigures() {
        RunMetrics m = new RunMetrics();
        for (RequestRecord r : List.of(a(), b(), c(), d())) m.accept(r);
        LiveStats live = m.live();
        assertThat(live.total()).isEqualTo(4);
        assertThat(live.succeeded()).isEqualTo(3);
        assertThat(live.failed()).isEqualTo(1);
        assertThat(live.elapsedSeconds()).isCloseTo(2.5, within(1e-12));
        assertThat(live.requestsPerSecond()).isCloseTo(1.2, within(1e-12));
        assertThat(live.avgTtftMs()).isCloseTo(110, within(1e-9));
        assertThat(live.outputTokensPerSecond()).isCloseTo(8.4, within(1e-12));
        assertThat(live.toMap()).containsEntry("Total Requests", 4L);
        assertThat(m.total()).isEqualTo(4);
        assertThat(m.succeeded()).isEqualTo(3);
        assertThat(new RunMetrics().live().toMap().get("Avg Latency (s)")).isNull();
    }

    @Test
    void concurrentAcceptKeepsExactTotals() throws Exception {
        RunMetrics m = new RunMetrics();
        int threads = 4;
        int perThread = 2_500;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        int k = base + i;
                        TestRecords rec = record().index(k).startMs(k).chunksMs(k + 10, k + 20, k + 30).endMs(k + 30)
                                .tokens(7, 3);
                        if (k % 10 == 0) rec.failed("http_500", 500, "x");
                        m.accept(rec.build());
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) f.get();
        } finally {
            pool.shutdownNow();
        }
        RunResult r = m.result(INFO);
        long total = (long) threads * perThread;
        long failed = total / 10;
        assertThat(r.summary().requests().totalRequests()).isEqualTo(total);
        assertThat(r.summary().requests().failedRequests()).isEqualTo(failed);
        assertThat(r.summary().tokens().totalOutputTokens()).isEqualTo(3 * (total - failed));
        assertThat(r.summary().tokens().totalInputTokens()).isEqualTo(7 * (total - failed));
        assertThat(r.timeline().points()).hasSize((int) (total - failed));
        assertThat(r.timeline().points().getLast().cumCompletion()).isEqualTo(3 * (total - failed));
        assertThat(r.errors()).containsEntry("http_500", failed);
        assertThat(r.summary().latency().avgItlMs()).isEqualTo(10.0);
    }

    /**
     * {@code Summary.toMap} of a scheduled multi-turn run with failures, cancellations, cached and estimated
     * counts, whole, against the golden file: keys, order, values and their types stay as they are.
     */
    @Test
    void summaryMapIsTheGoldenFile() {
        RunMetrics m = new RunMetrics();
        io.unibench.store.TestStores.records(40, TestRecords.ms(0), 7).forEach(m::accept);
        m.accept(record().index(40).startMs(5).endMs(9).failed(Outcome.CANCELLED, 0, "stopped").build());
        m.accept(record().index(41).conversation("conv-0", 1).lastTurn().scheduledMs(9).startMs(10).firstChunkMs(15)
                .chunksMs(20, 30, 40).endMs(40).tokens(120, 5).estimatedCached(105).build());
        StringBuilder text = new StringBuilder();
        m.result(new RunInfo("rate_8_number_42", 8, 8, 42)).summary().toMap().forEach((k, v) -> text.append(k)
                .append('\t').append(v).append('\t').append(v == null ? "null" : v.getClass().getSimpleName())
                .append('\n'));
        io.unibench.Golden.assertMatches("summary.tsv", text.toString());
    }

    @Test
    void theCachedFiguresSourceIsTheOneMemberOrNamedAsMixed() {
        assertThat(RunMetrics.cachedTokensSource(Map.of())).isNull();
        assertThat(RunMetrics.cachedTokensSource(Map.of("prompt_cache_hit_tokens", 4L)))
                .isEqualTo("prompt_cache_hit_tokens");
        assertThat(RunMetrics.cachedTokensSource(Map.of("client estimate", 3L,
                "prompt_tokens_details.cached_tokens", 12L, "timings.cache_n", 3L)))
                .isEqualTo("mixed: prompt_tokens_details.cached_tokens 12, client estimate 3, timings.cache_n 3");
        // a record's own label: its member; a server figure stored before members were kept is "server"
        Tokens deepseek = new Tokens(10, 2, 6, RequestRecord.CacheSource.SERVER, RequestRecord.TokenSource.SERVER, -1,
                -1, "prompt_cache_hit_tokens");
        assertThat(deepseek.cachedSourceLabel()).isEqualTo("prompt_cache_hit_tokens");
        assertThat(deepseek.withCached(6, RequestRecord.CacheSource.ESTIMATE).cachedSourceLabel())
                .isEqualTo("client estimate");
        assertThat(new Tokens(10, 2, 6, RequestRecord.CacheSource.SERVER, RequestRecord.TokenSource.SERVER, -1, -1)
                .cachedSourceLabel()).isEqualTo("server");
        assertThat(Tokens.counted(10, 2, RequestRecord.TokenSource.SERVER).cachedSourceLabel()).isNull();
    }
}
