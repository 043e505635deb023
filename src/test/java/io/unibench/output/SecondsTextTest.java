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

    /** What the writer puts for a real: Double.toString's text, by the shortcut or (-1) by Jackson. */
    private String real(double v) {
        int end = SecondsText.appendIfWhole(buf, 0, v);
        return end < 0 ? Double.toString(v) : new String(buf, 0, end, java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void wholeNanosecondsAsSecondsOrMillisecondsTakeTheShortcutWithDoubleToStringsText() {
        SplittableRandom rng = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long n = switch (i % 4) {
                case 0 -> rng.nextLong(10_000_000_000_000L); // up to 10^7 ms, where E notation starts again
                case 1 -> rng.nextLong(1_000_000); // below 1 ms: E notation in milliseconds
                case 2 -> rng.nextLong(1000) * (long) Math.pow(10, rng.nextInt(11)); // trailing zeros
                default -> -rng.nextLong(100_000_000_000L);
            };
            for (double v : new double[] {n / 1e9, n / 1e6}) {
                assertThat(SecondsText.appendIfWhole(buf, 0, v)).as("%d ns as %s", n, v).isNotNegative();
                assertThat(real(v)).as("%d ns", n).isEqualTo(Double.toString(v));
            }
        }
    }

    @Test
    void anyOtherRealIsLeftToJacksonOrWrittenTheSame() {
        double[] edges = {-0.0, 0.0, 1.0, 0.5, 1e-7, 1.5e-10, 2.5e6, 9_999_999.999999, 1e7, 1.0E7 + 1, 123456.7890123,
                1.0 / 3, 8.647999999999989E-7, 255.0 / 254, Double.MIN_VALUE, Double.MAX_VALUE, 1e300, -1e-300};
        for (double v : edges) assertThat(real(v)).as("%s", v).isEqualTo(Double.toString(v));
        assertThat(real(-0.0)).isEqualTo("-0.0");
        SplittableRandom rng = new SplittableRandom(11);
        for (int i = 0; i < 200_000; i++) {
            double v = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(rng.nextLong()); // any double at all
                case 1 -> rng.nextDouble() * Math.pow(10, rng.nextInt(-9, 9)); // TPOT-like quotients
                default -> rng.nextLong(1_000_000_000L) / 1e9 / (1 + rng.nextInt(300)); // a latency over tokens
            };
            if (Double.isFinite(v)) assertThat(real(v)).as("%s", v).isEqualTo(Double.toString(v));
        }
    }
}
