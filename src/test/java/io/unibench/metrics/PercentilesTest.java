package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PercentilesTest {
    private static final double[] ONE_TO_TEN = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

    @Test
    void nearestRankHighOnOneValueIsThatValueEverywhere() {
        double[] one = {42};
        for (double p : PercentileRow.POINTS) assertThat(Percentiles.nearestRankHigh(one, p)).isEqualTo(42);
    }

    @Test
    void nearestRankHighOnTenValues() {
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 0)).isEqualTo(1); // min
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 1)).isEqualTo(1); // floor(0.1) = 0
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 10)).isEqualTo(2); // floor(1) = 1
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 50)).isEqualTo(6); // floor(5) = 5: higher, no interpolation
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 99)).isEqualTo(10); // floor(9.9) = 9
        assertThat(Percentiles.nearestRankHigh(ONE_TO_TEN, 100)).isEqualTo(10);
    }

    @Test
    void linearMatchesNumpyDefault() {
        // np.percentile(range(1, 11), 50) = 5.5 ; 99 → h = 8.91 → 9 + 0.91 = 9.91 ; 0 → 1 ; 100 → 10
        assertThat(Percentiles.linear(ONE_TO_TEN, 50)).isCloseTo(5.5, within(1e-12));
        assertThat(Percentiles.linear(ONE_TO_TEN, 99)).isCloseTo(9.91, within(1e-12));
        assertThat(Percentiles.linear(ONE_TO_TEN, 0)).isEqualTo(1);
        assertThat(Percentiles.linear(ONE_TO_TEN, 100)).isEqualTo(10);
        assertThat(Percentiles.linear(new double[] {7}, 90)).isEqualTo(7);
    }

    @Test
    void emptyGivesNaN() {
        assertThat(Percentiles.nearestRankHigh(new double[0], 50)).isNaN();
        assertThat(Percentiles.linear(new double[0], 50)).isNaN();
    }

    @Test
    void roundingIsPythonRoundAndNullForNonFinite() {
        assertThat(Rounding.round(2.675, 2)).isEqualTo(2.67); // binary 2.67499999… like Python
        assertThat(Rounding.round(0.125, 2)).isEqualTo(0.12); // exact tie → even
        assertThat(Rounding.round(116.66666666, 4)).isEqualTo(116.6667);
        assertThat(Rounding.round(Double.NaN, 2)).isNull();
        assertThat(Rounding.round(Double.POSITIVE_INFINITY, 2)).isNull();
    }

    /** The fast path gives BigDecimal's HALF_EVEN value bit for bit: random, tie and edge values at every scale. */
    @Test
    void roundingWithoutBigDecimalIsTheSameValue() {
        java.util.SplittableRandom rng = new java.util.SplittableRandom(5);
        java.util.List<Double> values = new java.util.ArrayList<>(java.util.List.of(0.0, -0.0, 0.5, 1.5, 2.5, -2.5,
                0.125, 0.375, -0.125, 2.675, 1.005, 116.66666666, 4503599627370495.5, 0x1p52, 1e-300, -1e-320,
                Double.MIN_VALUE, Double.MAX_VALUE, 9.999999999999999e14, 0.49999999999999994, 1e-7, 123456.0000005));
        for (int i = 0; i < 300_000; i++) {
            values.add(switch (i % 5) {
                case 0 -> rng.nextDouble() * Math.pow(10, rng.nextInt(-8, 12)); // report figures of every size
                case 1 -> -rng.nextDouble() * 1000;
                case 2 -> (rng.nextLong(1_000_000) + 0.5) / Math.pow(2, rng.nextInt(12)); // exact binary ties
                case 3 -> rng.nextLong(100_000_000_000L) / 1e9; // t of the timeline: whole nanoseconds
                default -> Double.longBitsToDouble(rng.nextLong()); // any double at all
            });
        }
        for (double v : values) {
            if (!Double.isFinite(v)) continue;
            for (int digits = 0; digits <= 17; digits++) {
                double expected = new java.math.BigDecimal(v).setScale(digits, java.math.RoundingMode.HALF_EVEN)
                        .doubleValue();
                Double got = Rounding.round(v, digits);
                assertThat(Double.doubleToRawLongBits(got)).as("round(%s, %d) = %s, not %s", v, digits, got, expected)
                        .isEqualTo(Double.doubleToRawLongBits(expected));
            }
        }
    }
}
