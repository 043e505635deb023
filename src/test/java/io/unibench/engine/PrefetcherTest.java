package io.unibench.engine;

import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class PrefetcherTest {
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
            for (long s = 0; s < 100; s++) {
                PreparedRequest r = p.take(s);
                if (r != null) assertThat(r.sequence()).isEqualTo(s); // null: the caller makes it
            }
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
    void aRunThatFitsIsMadeBeforeItStartsAndTakenInOrder() {
        try (Prefetcher p = new Prefetcher(s -> make(s, 10), 50, 1000, Long.MAX_VALUE)) {
            p.awaitFilled();
            assertThat(made.get()).isEqualTo(50);
            for (long s = 0; s < 50; s++) assertThat(p.take(s).sequence()).isEqualTo(s);
            assertThat(p.take(50)).isNull(); // beyond the range: the caller makes it
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
                        PreparedRequest r = p.take(s);
                        if (r == null) {
                            makes.merge(s, 1, Integer::sum); // what RequestFactory does: build it itself
                        } else {
                            assertThat(r.sequence()).isEqualTo(s);
                        }
                        assertThat(got.put(s, true)).isNull();
                    }
                }));
            }
            for (Thread t : takers) t.join();
            assertThat(got).hasSize(total);
            assertThat(makes).hasSize(total);
            assertThat(makes.values()).allMatch(n -> n == 1);
        }
    }

    @Test
    void afterCloseTheCallerMakesEverything() {
        Prefetcher p = new Prefetcher(s -> make(s, 10), 100, 2, Long.MAX_VALUE);
        p.awaitFilled();
        p.close();
        assertThat(p.take(50)).isNull();
    }
}
