package io.unibench.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The token bucket on a fake clock: time moves only when a caller waits, so nothing depends on machine speed. */
class RateLimiterTest {

    @Test
    void capsStartsPerSecondAndSpacesThemEvenly() {
        ManualClock clock = new ManualClock();
        RateLimiter limiter = new RateLimiter(10, 1, clock);
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.acquire()).isEqualTo(i == 0 ? 0 : 100_000_000L); // each waits 1/10 s
            starts.add(clock.nanoTime());
        }
        long t0 = starts.getFirst();
        for (int i = 1; i < starts.size(); i++) {
            assertThat(starts.get(i) - starts.get(i - 1)).isEqualTo(100_000_000L); // 1/10 s apart
        }
        // every one-second window from any start holds exactly 10 starts
        for (int i = 0; i + 10 < starts.size(); i++) {
            long windowEnd = starts.get(i) + 1_000_000_000L;
            long inWindow = starts.stream().filter(s -> s >= windowEnd - 1_000_000_000L && s < windowEnd).count();
            assertThat(inWindow).isEqualTo(10);
        }
        assertThat(starts.getLast() - t0).isEqualTo(9_900_000_000L);
    }

    @Test
    void burstAllowsThatManyAtOnceThenTheRate() {
        ManualClock clock = new ManualClock();
        RateLimiter limiter = new RateLimiter(4, 3, clock);
        long t0 = clock.nanoTime();
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            limiter.acquire();
            offsets.add(clock.nanoTime() - t0);
        }
        assertThat(offsets).containsExactly(0L, 0L, 0L, 250_000_000L, 500_000_000L, 750_000_000L, 1_000_000_000L);
    }

    @Test
    void idleTimeRefillsAtMostTheBurst() {
        ManualClock clock = new ManualClock();
        RateLimiter limiter = new RateLimiter(2, 2, clock);
        limiter.acquire();
        clock.advance(60_000_000_000L); // a minute idle
        long t = clock.nanoTime();
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            limiter.acquire();
            offsets.add(clock.nanoTime() - t);
        }
        assertThat(offsets).containsExactly(0L, 0L, 500_000_000L, 1_000_000_000L);
    }

    @Test
    void stoppedWaitAbandonsTheStart() {
        RateLimiter limiter = new RateLimiter(1, 1, new Clock() {
            @Override
            public long nanoTime() {
                return 0;
            }

            @Override
            public boolean awaitUntil(long deadline) {
                return false;
            }
        });
        assertThat(limiter.acquire()).isZero(); // the first start needs no wait
        assertThat(limiter.acquire()).isEqualTo(-1);
    }
}
