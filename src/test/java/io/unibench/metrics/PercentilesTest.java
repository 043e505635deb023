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
}
