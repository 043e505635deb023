package io.unibench.engine.live;

import io.unibench.engine.Clock;
import io.unibench.engine.ManualClock;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.TestRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

@Timeout(30) // a hang guard only
class LiveRecorderTest {
    static final Snapshot.ClientLoad LOAD = new Snapshot.ClientLoad(42.0, 0.5, null);

    static RequestRecord ok(int i, double ttftMs, double latencyMs, int tokens) {
        return record().index(i).startMs(0).firstChunkMs(ttftMs).chunksMs(ttftMs).endMs(latencyMs)
                .tokens(10, tokens).build();
    }

    @Test
    void aSnapshotCountsTheOutcomesAndRatesOfThePointSoFar() {
        ManualClock clock = new ManualClock();
        AtomicInteger inFlight = new AtomicInteger(7);
        List<Snapshot> published = new CopyOnWriteArrayList<>();
        LiveRecorder live = new LiveRecorder(3, clock, inFlight::get, () -> LOAD, published::add);
        for (int i = 0; i < 90; i++) live.accept(ok(i, 10, 100, 20));
        for (int i = 0; i < 6; i++) live.accept(record().index(100 + i).startMs(0).endMs(5)
                .failed("http_429", 429, "slow down").build());
        live.accept(record().index(200).startMs(0).endMs(5).failed("timeout_read", 0, "read").build());
        live.accept(record().index(201).startMs(0).endMs(5).failed(Outcome.CANCELLED, 0, "stop").build());
        clock.advance(2_000_000_000L);

        Snapshot s = live.tick();
        assertThat(published).containsExactly(s);
        assertThat(s.point()).isEqualTo(3);
        assertThat(s.elapsedSeconds()).isEqualTo(2.0);
        assertThat(s.completed()).isEqualTo(98);
        assertThat(s.succeeded()).isEqualTo(90);
        assertThat(s.cancelled()).isEqualTo(1);
        assertThat(s.failedByClass()).containsExactly(Map.entry("http_429", 6L), Map.entry("timeout_read", 1L));
        assertThat(s.failed()).isEqualTo(7);
        assertThat(s.inFlight()).isEqualTo(7);
        assertThat(s.requestsPerSecond()).isEqualTo(45.0);
        assertThat(s.outputTokensPerSecond()).isEqualTo(900.0);
        assertThat(s.client()).isEqualTo(LOAD);
    }

    @Test
    void percentilesAreOverEveryIntervalOfThePointNotTheLastOne() {
        ManualClock clock = new ManualClock();
        LiveRecorder live = new LiveRecorder(0, clock, () -> 0, () -> Snapshot.ClientLoad.UNKNOWN, s -> {});
        Snapshot empty = live.tick();
        assertThat(empty.ttftMs()).isEqualTo(Snapshot.Quantiles.NONE);
        assertThat(empty.requestsPerSecond()).isNaN();

        for (int i = 0; i < 98; i++) live.accept(ok(i, 2, 50, 5));
        clock.advance(1_000_000_000L);
        Snapshot first = live.tick();
        assertThat(first.ttftMs().p50()).isCloseTo(2.0, within(0.01));
        assertThat(first.latencyMs().p99()).isCloseTo(50.0, within(0.05));

        live.accept(ok(98, 400, 900, 5));
        live.accept(ok(99, 400, 900, 5));
        clock.advance(1_000_000_000L);
        Snapshot second = live.tick();
        // 100 samples over both intervals: p50 and p95 still the fast ones, p99 the slow tail (within 3 digits).
        assertThat(second.ttftMs().p50()).isCloseTo(2.0, within(0.01));
        assertThat(second.ttftMs().p95()).isCloseTo(2.0, within(0.01));
        assertThat(second.ttftMs().p99()).isCloseTo(400.0, within(0.5));
        assertThat(second.latencyMs().p99()).isCloseTo(900.0, within(1.0));
        assertThat(second.succeeded()).isEqualTo(100);
    }

    /** Issue 30: TTFCT beside TTFT in the live snapshot, once a reply reasoned before its answer; none before. */
    @Test
    void aReplyThatReasonedFirstGivesTheSnapshotItsTtfct() {
        LiveRecorder live = new LiveRecorder(0, new ManualClock(), () -> 0, () -> Snapshot.ClientLoad.UNKNOWN, s -> {});
        live.accept(ok(0, 10, 100, 5));
        Snapshot plain = live.tick();
        assertThat(plain.reasoning()).isFalse();
        assertThat(plain.ttfctMs()).isEqualTo(Snapshot.Quantiles.NONE);

        RequestRecord r = ok(1, 10, 100, 5);
        var t = r.timing();
        long content = t.firstTokenNanos() + 50_000_000L; // the answer 50 ms after the first reasoning token
        live.accept(new RequestRecord(r.position(), new io.unibench.metrics.Timing(t.stream(), t.startEpochMillis(),
                t.scheduledNanos(), t.startNanos(), t.headersNanos(), t.firstChunkNanos(), t.firstTokenNanos(),
                t.endNanos(), t.tokenChunkNanos(), content), r.tokens(), r.outcome(), r.phases(), r.serverTimings()));
        Snapshot reasoned = live.tick();
        assertThat(reasoned.reasoning()).isTrue();
        assertThat(reasoned.ttfctMs().p50()).isCloseTo(60.0, within(0.1));
        assertThat(reasoned.ttftMs().p99()).isCloseTo(10.0, within(0.05));
    }

    @Test
    void aNonStreamedReplysTtftIsItsLatencyAndAFailureHasNeither() {
        LiveRecorder live = new LiveRecorder(0, new ManualClock(), () -> 0, () -> Snapshot.ClientLoad.UNKNOWN, s -> {});
        live.accept(record().nonStream().startMs(0).firstChunkMs(30).endMs(30).tokens(5, 5).build());
        live.accept(record().index(1).startMs(0).endMs(3000).failed("timeout_read", 0, "read").build());
        Snapshot s = live.tick();
        assertThat(s.ttftMs().p50()).isCloseTo(30.0, within(0.05));
        assertThat(s.latencyMs().p99()).isCloseTo(30.0, within(0.05));
    }

    @Test
    void tickingPublishesEveryPeriodAndCloseAddsTheFinalSnapshot() throws Exception {
        GatedClock clock = new GatedClock();
        List<Snapshot> published = new CopyOnWriteArrayList<>();
        Semaphore tick = new Semaphore(0);
        LiveRecorder live = new LiveRecorder(1, clock, () -> 0, () -> Snapshot.ClientLoad.UNKNOWN, s -> {
            published.add(s);
            tick.release();
        });
        live.startTicking(Duration.ofSeconds(1));
        live.accept(ok(0, 1, 2, 3));
        clock.pass();
        tick.acquire();
        live.accept(ok(1, 1, 2, 3));
        clock.pass();
        tick.acquire();
        live.close();
        live.close(); // idempotent: no second final snapshot
        assertThat(published).extracting(Snapshot::elapsedSeconds).containsExactly(1.0, 2.0, 2.0);
        assertThat(published).extracting(Snapshot::succeeded).containsExactly(1L, 2L, 2L);
    }

    /** A clock whose waits end only when the test lets one pass (then time is at the deadline), or on interrupt. */
    static final class GatedClock implements Clock {
        private final Semaphore gate = new Semaphore(0);
        private volatile long now = TestRecords.BASE;

        void pass() {
            gate.release();
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public boolean awaitUntil(long deadlineNanos) {
            try {
                gate.acquire();
                now = deadlineNanos;
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
