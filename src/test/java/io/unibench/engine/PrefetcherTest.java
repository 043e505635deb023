package io.unibench.engine;

import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class PrefetcherTest {
    private static final long LONG = TimeUnit.MINUTES.toNanos(5); // a bound the tests never reach

    private final AtomicInteger made = new AtomicInteger();

    private PreparedRequest make(long sequence, int bytes) {
        made.incrementAndGet();
        return new PreparedRequest(sequence, "r-" + sequence, new byte[bytes], true, Prompt.ofText("x", -1, -1));
    }

    @Test
    void fillsUpToItsRequestBoundBeforeAnythingIsTaken() {
        try (Prefetcher p = new Prefetcher(s -> make(s, 10), 100, 4, Long.MAX_VALUE)) {
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(4);
            for (long s = 0; s < 100; s++) assertThat(p.take(s).sequence()).isEqualTo(s);
            assertThat(made.get()).isEqualTo(100); // each once, by the thread or the taker
        }
    }

    @Test
    void fillsUpToItsByteBound() {
        try (Prefetcher p = new Prefetcher(s -> make(s, 100), 100, 1000, 250)) {
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(3); // stops once 250 bytes are reached: 300
        }
    }

    @Test
    void aPlansAheadBoundKeepsFewerThanTheWindowPrepared() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Prefetcher p = new Prefetcher(s -> {
            if (s == 0) {
                started.countDown();
                await(release);
            }
            return make(s, 10);
        }, 1000, 100, Long.MAX_VALUE)) {
            started.await();
            p.setAhead(5);
            release.countDown();
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(5);
            assertThat(p.peakReady()).isEqualTo(5);
        }
    }

    /**
     * The thread refills in batches: a take does not wake it until half the window is taken (a wake-up per request
     * was a system call on the taker and a context switch on the thread), then it fills the window again.
     */
    @Test
    void theThreadRefillsOnlyOnceHalfTheWindowIsTaken() {
        try (Prefetcher p = new Prefetcher(s -> make(s, 10), 1000, 8, Long.MAX_VALUE)) {
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(8);
            for (long s = 0; s < 3; s++) p.take(s);
            p.awaitFilled(); // at once: the thread rests with 5 of 8 ready
            assertThat(made.get()).isEqualTo(8);
            p.take(3); // 4 of 8 ready: half taken
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(12); // refilled to 8 ready
            for (long s = 4; s < 1000; s++) assertThat(p.take(s).sequence()).isEqualTo(s);
            assertThat(made.get()).isEqualTo(1000);
            assertThat(p.peakReady()).isEqualTo(8);
        }
    }

    @Test
    void theFirstBatchIsAllThatIsWaitedFor() {
        CountDownLatch rest = new CountDownLatch(1);
        try (Prefetcher p = new Prefetcher(s -> {
            if (s >= 5) await(rest); // the rest of the window is slow to make
            return make(s, 10);
        }, 1000, 100, Long.MAX_VALUE)) {
            assertThat(p.awaitReady(5, LONG)).isEqualTo(5); // returns while the sixth is in the making
            rest.countDown();
        }
    }

    @Test
    void aRunThatFitsIsMadeBeforeItStartsAndTakenInOrder() {
        try (Prefetcher p = new Prefetcher(s -> make(s, 10), 50, 1000, Long.MAX_VALUE)) {
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(50);
            for (long s = 0; s < 50; s++) assertThat(p.take(s).sequence()).isEqualTo(s);
            assertThat(p.take(50).sequence()).isEqualTo(50); // beyond the range: made by the taker
            assertThat(p.waits().count()).isZero(); // every one was ready
        }
    }

    /** The dispatcher catches up with a slow producer: it waits for the request in the making, and that is counted. */
    @Test
    void aTakerThatCatchesUpWithASlowProducerWaitsAndTheWaitIsCounted() throws Exception {
        CountDownLatch making = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Prefetcher p = new Prefetcher(s -> {
            if (s == 0) {
                making.countDown();
                await(release); // slow: the taker arrives first
            }
            return make(s, 10);
        }, 10, 4, Long.MAX_VALUE)) {
            making.await();
            AtomicReference<PreparedRequest> got = new AtomicReference<>();
            Thread taker = Thread.ofVirtual().start(() -> got.set(p.take(0)));
            while (p.waits().count() == 0) Thread.onSpinWait(); // the taker is waiting for it
            assertThat(taker.isAlive()).isTrue();
            release.countDown();
            taker.join();
            assertThat(got.get().sequence()).isZero();
            assertThat(made.get()).isGreaterThanOrEqualTo(1);
            assertThat(p.waits().count()).isEqualTo(1);
            assertThat(p.waits().nanos()).isPositive();
            p.awaitFilled();
            // ready by now, whatever the interleaving: the thread rests with 1..4 made (0 taken before the window
            // filled) or with 1..3 (0 still in it when it filled: it refills only once half the window is taken, so
            // 4 may be in the making when it is asked for; that wait would be a true one, not this test's)
            for (long s = 1; s < 4; s++) p.take(s);
            assertThat(p.waits().count()).isEqualTo(1);
        }
    }

    /** A taker ahead of the thread makes its request itself (a wait too) and the thread skips it. */
    @Test
    void aTakerAheadOfTheThreadMakesItsOwnAndTheThreadSkipsIt() {
        CountDownLatch release = new CountDownLatch(1);
        ConcurrentHashMap<Long, Integer> makes = new ConcurrentHashMap<>();
        try (Prefetcher p = new Prefetcher(s -> {
            makes.merge(s, 1, Integer::sum);
            if (s == 0) await(release);
            return make(s, 10);
        }, 10, 4, Long.MAX_VALUE)) {
            assertThat(p.take(3).sequence()).isEqualTo(3); // the thread is still on 0
            assertThat(p.waits().count()).isEqualTo(1);
            release.countDown();
            for (long s : new long[] {0, 1, 2, 4, 5, 6, 7, 8, 9}) assertThat(p.take(s).sequence()).isEqualTo(s);
            assertThat(makes).hasSize(10);
            assertThat(makes.values()).allMatch(n -> n == 1);
        }
    }

    /** Memory is flat: however slowly requests are taken, no more than the window waits prepared. */
    @Test
    void theWindowNeverExceedsItsBound() {
        AtomicLong taken = new AtomicLong();
        AtomicInteger worst = new AtomicInteger();
        int window = 16;
        try (Prefetcher p = new Prefetcher(s -> {
            // when the thread starts request s, requests taken.get() .. s-1 are waiting prepared
            worst.accumulateAndGet((int) (s - taken.get()), Math::max);
            return make(s, 10);
        }, 5_000, window, Long.MAX_VALUE)) {
            for (long s = 0; s < 5_000; s++) {
                if (s % 100 == 0) p.awaitFilled(); // let the thread run as far ahead as it may
                assertThat(p.take(s).sequence()).isEqualTo(s);
                taken.set(s + 1);
            }
            assertThat(p.peakReady()).isEqualTo(window);
            assertThat(worst.get()).isLessThanOrEqualTo(window);
        }
    }

    @Test
    void concurrentTakersGetEverySequenceOnceMadeOnceByTheThreadOrTheCaller() throws Exception {
        int total = 20_000;
        ConcurrentHashMap<Long, Integer> makes = new ConcurrentHashMap<>();
        AtomicLong next = new AtomicLong();
        try (Prefetcher p = new Prefetcher(s -> {
            makes.merge(s, 1, Integer::sum);
            return make(s, 10);
        }, total, 64, Long.MAX_VALUE)) {
            List<Thread> takers = new ArrayList<>();
            ConcurrentHashMap<Long, Boolean> got = new ConcurrentHashMap<>();
            for (int t = 0; t < 8; t++) {
                takers.add(Thread.ofVirtual().start(() -> {
                    long s;
                    while ((s = next.getAndIncrement()) < total) {
                        assertThat(p.take(s).sequence()).isEqualTo(s);
                        assertThat(got.put(s, true)).isNull();
                    }
                }));
            }
            for (Thread t : takers) t.join();
            assertThat(got).hasSize(total);
            assertThat(makes).hasSize(total);
            assertThat(makes.values()).allMatch(n -> n == 1);
            assertThat(p.peakReady()).isLessThanOrEqualTo(64);
        }
    }

    @Test
    void afterCloseTheCallerMakesEverythingUncounted() {
        Prefetcher p = new Prefetcher(s -> make(s, 10), 100, 2, Long.MAX_VALUE);
        p.awaitFilled();
        p.close();
        assertThat(p.take(50).sequence()).isEqualTo(50);
        assertThat(p.waits().count()).isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
