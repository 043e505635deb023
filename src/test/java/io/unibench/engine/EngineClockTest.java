package io.unibench.engine;

import io.unibench.client.ApiFormat;
import io.unibench.client.ClientResult;
import io.unibench.client.GenerationParams;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.workload.Conversation;
import io.unibench.workload.Prompt;
import io.unibench.workload.Turn;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The load loops on a {@link ManualClock} behind a server of exact service time: every figure is exact, so a
 * regression in how the engine takes time (coordinated omission, deadlines) fails here whatever the machine's speed.
 */
class EngineClockTest {
    private static final long SERVICE_NANOS = 10_000_000; // S = 10 ms per request
    private static final GenerationParams PARAMS =
            new GenerationParams("m", ApiFormat.CHAT, 4, 4, null, 0.0, null, null, null, null, true, null);
    private static final RecordFactory RECORDS = new RecordFactory(new CharEstimateTokenizer(4), false);

    /**
     * A server with one slot, S ns per request, on the manual clock: a request starts when it is sent, the clock moves
     * S on (the sender is busy that long) and the reply is complete. Only meaningful with one request in flight.
     */
    private static Sender serialServer(ManualClock clock) {
        return (body, stream, id) -> {
            long start = clock.nanoTime();
            clock.advance(SERVICE_NANOS);
            long end = clock.nanoTime();
            return CompletableFuture.completedFuture(new ClientResult(true, start, start + 1, start + 2, start + 2,
                    end, new long[] {start + 2, end}, 200, "ab", "", null, "stop", null, null));
        };
    }

    private static RequestFactory requests() {
        return new RequestFactory(List.of(Prompt.ofText("hello", -1, -1)), PARAMS, 1, "t");
    }

    private static List<RequestRecord> sorted(List<RequestRecord> records) {
        return records.stream().sorted(Comparator.comparingLong(rec -> rec.position().index())).toList();
    }

    /**
     * Open loop saturated: arrivals come twice as fast as one slot serves them. Queueing theory (Lindley's recursion,
     * one server): request k starts at max(its scheduled moment, the end of request k−1), and its queue delay is that
     * start minus its schedule — measured from the schedule, never from the moment a slot freed (coordinated
     * omission). The schedule is the engine's own: the measured phase draws it from seed + 1.
     */
    @Test
    void openLoopQueueDelaysAreTheOnesQueueingTheoryGivesWhenArrivalsOutpaceTheServer() throws Exception {
        ManualClock clock = new ManualClock();
        long anchor = clock.nanoTime();
        int n = 40;
        double rate = 2e9 / SERVICE_NANOS; // mean gap A = S / 2
        List<RequestRecord> records = Collections.synchronizedList(new ArrayList<>());
        StopSignal stop = new StopSignal();
        RunOutcome outcome = new BenchmarkRunner(serialServer(clock), RECORDS, stop, RequestHooks.NONE, clock)
                .run(new LoadPlan(1, n, rate, null, 0), requests(), List.<RecordSink>of(records::add), 7);
        assertThat(outcome.sent()).isEqualTo(n);

        PoissonSchedule schedule = new PoissonSchedule(n, rate, new SplittableRandom(7 + 1));
        List<RequestRecord> got = sorted(records);
        long previousEnd = Long.MIN_VALUE;
        for (int k = 0; k < n; k++) {
            long scheduled = anchor + schedule.offsetNanos(k);
            long start = Math.max(scheduled, previousEnd);
            RequestRecord r = got.get(k);
            assertThat(r.timing().scheduledNanos()).as("scheduled %d", k).isEqualTo(scheduled);
            assertThat(r.timing().startNanos()).as("start %d", k).isEqualTo(start);
            assertThat(r.queueDelaySeconds()).as("queue delay %d", k).isEqualTo((start - scheduled) / 1e9);
            assertThat(r.scheduledLatencySeconds()).as("latency incl. queue %d", k)
                    .isEqualTo((start + SERVICE_NANOS - scheduled) / 1e9);
            previousEnd = start + SERVICE_NANOS;
        }
        // saturated: the backlog grows by about S − A per request, so the last one waited about n·S/2
        double lastDelay = got.getLast().queueDelaySeconds();
        assertThat(lastDelay).isGreaterThan(0.5 * n * SERVICE_NANOS / 2 / 1e9);
        // the whole run took n·S: the server was never idle once the queue formed
        assertThat(got.getLast().timing().endNanos() - got.getFirst().timing().startNanos())
                .isEqualTo(n * SERVICE_NANOS);
    }

    @Test
    void closedLoopDurationStopsStartsAtTheDeadlineOfTheInjectedClock() throws Exception {
        ManualClock clock = new ManualClock();
        List<RequestRecord> records = Collections.synchronizedList(new ArrayList<>());
        // 105 ms at 10 ms a request: requests start at 0, 10, …, 100 ms, and none after the deadline
        RunOutcome outcome = new BenchmarkRunner(serialServer(clock), RECORDS, new StopSignal(), RequestHooks.NONE,
                clock).run(new LoadPlan(1, 1000, 0, Duration.ofMillis(105), 0), requests(),
                List.<RecordSink>of(records::add), 1);
        assertThat(outcome.sent()).isEqualTo(11);
        assertThat(outcome.hitDuration()).isTrue();
        assertThat(records).hasSize(11).allMatch(r -> Double.isNaN(r.queueDelaySeconds()));
    }

    @Test
    void aWorkerThatThrowsStopsTheRunLoudlyAfterRecordingWhatRan() {
        ManualClock clock = new ManualClock();
        List<RequestRecord> records = Collections.synchronizedList(new ArrayList<>());
        RecordSink failsOnThird = r -> {
            if (r.position().index() == 2) throw new IllegalStateException("sink bug");
            records.add(r);
        };
        BenchmarkRunner runner = new BenchmarkRunner(serialServer(clock), RECORDS, new StopSignal(),
                RequestHooks.NONE, clock);
        assertThatThrownBy(() -> runner.run(new LoadPlan(1, 100, 0, null, 0), requests(), List.of(failsOnThird), 1))
                .isInstanceOf(RunFailedException.class)
                .hasMessageContaining("java.lang.IllegalStateException: sink bug")
                .hasMessageContaining("EngineClockTest");
        // one worker: it died on request 2, and nothing ran after it (no silent run at lower concurrency)
        assertThat(records).extracting(rec -> rec.position().index()).containsExactly(0L, 1L);
    }

    @Test
    void openLoopSinkFailureStopsDispatchAndFailsTheRun() {
        ManualClock clock = new ManualClock();
        List<Long> seen = Collections.synchronizedList(new ArrayList<>());
        RecordSink broken = r -> {
            seen.add(r.position().index());
            throw new IllegalStateException("sink bug");
        };
        BenchmarkRunner runner = new BenchmarkRunner(serialServer(clock), RECORDS, new StopSignal(),
                RequestHooks.NONE, clock);
        // 1,000 requests at 1 per 10 ms of manual time: without the stop it would dispatch them all
        assertThatThrownBy(() -> runner.run(new LoadPlan(1, 1000, 100, null, 0), requests(), List.of(broken), 1))
                .isInstanceOf(RunFailedException.class).hasMessageContaining("sink bug");
        assertThat(seen).isNotEmpty();
    }

    @Test
    void aMultiTurnWorkerThatThrowsStopsTheRunLoudly() {
        ManualClock clock = new ManualClock();
        List<RequestRecord> records = Collections.synchronizedList(new ArrayList<>());
        RecordSink failsOnThird = r -> {
            if (records.size() == 2) throw new IllegalStateException("sink bug");
            records.add(r);
        };
        List<Conversation> pool = List.of(new Conversation("c", List.of(Turn.user("a"), Turn.user("b"))));
        MultiTurnRunner runner = new MultiTurnRunner(serialServer(clock), clock, RECORDS, new StopSignal(), null,
                RequestHooks.NONE, null);
        assertThatThrownBy(() -> runner.run(new MultiTurnPlan(new LoadPlan(1, 50, -1, null, 0),
                        MultiTurnPlan.RateMode.THINK, null), new ConversationPool(pool),
                new ConversationRequests(PARAMS, 1, "t"), List.of(failsOnThird), 1))
                .isInstanceOf(RunFailedException.class).hasMessageContaining("sink bug");
        // the only worker died in conversation 2: no later conversation started
        assertThat(records).extracting(rec -> rec.position().conversationId()).containsExactly("bench-0", "bench-0");
    }
}
