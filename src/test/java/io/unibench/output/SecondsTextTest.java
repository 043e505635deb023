package io.unibench.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The shortcut writes exactly what Double.toString (and so Jackson) writes for nanos / 1e9. */
class SecondsTextTest {
    private final byte[] buf = new byte[SecondsText.MAX_CHARS];

    private String text(long nanos) {
        return new String(buf, 0, SecondsText.append(buf, 0, nanos), java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void edgesOfEachNotation() {
        long[] values = {0, 1, 5, 10, 100, 999, 1000, 100_000, 999_999, 1_000_000, 1_000_001, 1_234_567, 10_000_000,
                999_999_999, 1_000_000_000, 1_000_000_001, 123_456_789_012_345L, 999_999_999_999_999L,
                1_000_000_000_000_000L, 9_000_000_000_000_000_000L, Long.MAX_VALUE, -1, -123_456, -1_000_000,
                -5_000_000_000L, -999_999_999_999_999L, -1_000_000_000_000_000L, Long.MIN_VALUE + 1};
        for (long v : values) assertThat(text(v)).as("%d ns", v).isEqualTo(Double.toString(v / 1e9));
    }

    @Test
    void randomIntervalsOfEveryScale() {
        SplittableRandom rng = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            long v = switch (i % 4) {
                case 0 -> rng.nextLong(1_000_000_000_000_000L);
                case 1 -> rng.nextLong(10_000_000); // below 10 ms, where both notations meet
                case 2 -> rng.nextLong(1000) * (long) Math.pow(10, rng.nextInt(13)); // trailing zeros
                default -> -rng.nextLong(100_000_000_000L);
            };
            assertThat(text(v)).as("%d ns", v).isEqualTo(Double.toString(v / 1e9));
        }
    }
}
