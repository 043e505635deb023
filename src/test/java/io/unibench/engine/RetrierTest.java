package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.engine.spec.RunSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --retry-on}: which replies are sent again, after how long, how often; waits injected, no sleeping. */
class RetrierTest {
    private static final RunSpec.Retry POLICY = new RunSpec.Retry(List.of(429, 503), 3, Duration.ofMillis(500),
            Duration.ofSeconds(30));

    /** Answers from a script, in order; counts what it was sent. */
    private static final class Script implements Sender {
        final Deque<ClientResult> replies = new ArrayDeque<>();
        int sent;

        Script then(ClientResult r) {
            replies.add(r);
            return this;
        }

        @Override
        public CompletableFuture<ClientResult> send(byte[] body, boolean stream, String id) {
            sent++;
            return CompletableFuture.completedFuture(replies.size() > 1 ? replies.poll() : replies.peek());
        }
    }

    /** Waits that end at once, each recorded. */
    private static final class Waits implements Retrier.Waiter {
        final List<Long> nanos = new ArrayList<>();

        @Override
        public CompletableFuture<Void> after(long n) {
            nanos.add(n);
            return CompletableFuture.completedFuture(null);
        }
    }

    static ClientResult refused(int status, String retryAfter) {
        return new ClientResult(true, 0, 1, Moments.ABSENT, Moments.ABSENT, 2, new long[0], status, "", "", null, null,
                ErrorClass.ofStatus(status), "slow down", null, null, null, Moments.ABSENT, retryAfter);
    }

    static ClientResult ok() {
        return new ClientResult(true, 10, 11, 12, 12, 20, new long[] {12}, 200, "hi", "", null, "stop", null, null);
    }

    private static Retrier retrier(Waits waits, long seed) {
        return new Retrier(POLICY, seed, waits, new StopSignal(), () -> 0L);
    }

    @Test
    void aRefusalIsSentAgainAfterItsRetryAfterOrAJitteredBackOffAndTheRecordSaysHowOftenAndHowLong() {
        Script server = new Script().then(refused(429, "2")).then(refused(503, null)).then(ok());
        Waits waits = new Waits();
        ClientResult r = retrier(waits, 7).wrap(server).send(new byte[0], true, "r").join();
        assertThat(r.success()).isTrue();
        assertThat(server.sent).isEqualTo(3);
        assertThat(waits.nanos).hasSize(2);
        assertThat(waits.nanos.get(0)).isEqualTo(2_000_000_000L); // the server's advice, exactly
        // the second retry (k = 1) without advice: 0.5 s · 2¹ = 1 s, jittered between half and all of it
        assertThat(waits.nanos.get(1)).isBetween(500_000_000L, 1_000_000_000L);
        assertThat(r.retries()).isEqualTo(2);
        assertThat(r.retryWaitNanos()).isEqualTo(waits.nanos.get(0) + waits.nanos.get(1));
    }

    @Test
    void retriesAreBoundedAndTheLastRefusalIsTheResult() {
        Script server = new Script().then(refused(429, null));
        Waits waits = new Waits();
        ClientResult r = retrier(waits, 1).wrap(server).send(new byte[0], true, "r").join();
        assertThat(server.sent).isEqualTo(4); // once, then 3 retries
        assertThat(r.httpStatus()).isEqualTo(429);
        assertThat(r.retries()).isEqualTo(3);
        // exponential: k-th retry's back-off is 0.5 s · 2^k, jittered into [half, all]
        for (int k = 0; k < 3; k++) {
            long full = 500_000_000L << k;
            assertThat(waits.nanos.get(k)).isBetween(full / 2, full);
        }
    }

    @Test
    void theJitterIsSeededAndTheBackOffCapped() {
        Waits a = new Waits();
        Waits b = new Waits();
        retrier(a, 42).wrap(new Script().then(refused(429, null))).send(new byte[0], true, "r").join();
        retrier(b, 42).wrap(new Script().then(refused(429, null))).send(new byte[0], true, "r").join();
        assertThat(a.nanos).isEqualTo(b.nanos);
        Retrier capped = new Retrier(new RunSpec.Retry(List.of(429), 100, Duration.ofSeconds(1), Duration.ofSeconds(4)),
                3, new Waits(), new StopSignal(), () -> 0L);
        assertThat(capped.waitNanos(40, null)).isBetween(2_000_000_000L, 4_000_000_000L);
    }

    @Test
    void onlyTheListedStatusesAreRetriedAndAnAdviceBeyondTheCapIsNotWaitedFor() {
        Script server = new Script().then(refused(500, null));
        Waits waits = new Waits();
        ClientResult r = retrier(waits, 1).wrap(server).send(new byte[0], true, "r").join();
        assertThat(server.sent).isEqualTo(1);
        assertThat(r.retries()).isZero();
        Script slow = new Script().then(refused(429, "120")).then(ok());
        r = retrier(waits, 1).wrap(slow).send(new byte[0], true, "r").join();
        assertThat(slow.sent).isEqualTo(1); // 120 s > the 30 s cap: the refusal is the result
        assertThat(r.httpStatus()).isEqualTo(429);
        assertThat(waits.nanos).isEmpty();
    }

    @Test
    void anHttpDateRetryAfterIsReadAgainstTheWallClock() {
        Retrier r = new Retrier(POLICY, 1, new Waits(), new StopSignal(), () -> 1_445_412_480_000L - 5_000);
        // Wed, 21 Oct 2015 07:28:00 GMT = 1445412480000 ms: 5 s from the injected "now"
        assertThat(r.retryAfterNanos("Wed, 21 Oct 2015 07:28:00 GMT")).isEqualTo(5_000_000_000L);
        assertThat(r.retryAfterNanos("soon")).isEqualTo(-1);
    }

    @Test
    void aStopEndsTheRetries() {
        StopSignal stop = new StopSignal();
        stop.stop();
        Script server = new Script().then(refused(429, "0")).then(ok());
        ClientResult r = new Retrier(POLICY, 1, new Waits(), stop, () -> 0L).wrap(server).send(new byte[0], true, "r")
                .join();
        assertThat(server.sent).isEqualTo(1);
        assertThat(r.httpStatus()).isEqualTo(429);
    }
}
