package io.unibench.engine;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PoissonScheduleTest {
    @Test
    void lastArrivalIsRescaledToExactlyNOverRate() {
        PoissonSchedule s = new PoissonSchedule(500, 20.0, new SplittableRandom(7));
        assertThat(s.offsetNanos(499)).isCloseTo(25_000_000_000L, within(1L));
    }

    @Test
    void offsetsAreNonDecreasingAndExponentialInShape() {
        int n = 20_000;
        PoissonSchedule s = new PoissonSchedule(n, 100.0, new SplittableRandom(1));
        long previous = 0;
        int shortGaps = 0;
        for (int i = 0; i < n; i++) {
            long gap = s.offsetNanos(i) - previous;
            assertThat(gap).isGreaterThanOrEqualTo(0);
            if (gap < 10_000_000L) shortGaps++; // shorter than the mean gap of 10 ms
            previous = s.offsetNanos(i);
        }
        // P(gap < mean) = 1 - 1/e ≈ 0.632 for exponential gaps; a uniform or fixed schedule gives 0.5 or 0
        assertThat(shortGaps / (double) n).isCloseTo(0.632, within(0.02));
    }

    @Test
    void sameSeedSameSchedule() {
        PoissonSchedule a = new PoissonSchedule(10, 5, new SplittableRandom(3));
        PoissonSchedule b = new PoissonSchedule(10, 5, new SplittableRandom(3));
        for (int i = 0; i < 10; i++) assertThat(a.offsetNanos(i)).isEqualTo(b.offsetNanos(i));
    }
}
