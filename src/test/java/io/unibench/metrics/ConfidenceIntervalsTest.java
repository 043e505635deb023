package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The interval math against known binomial order-statistic ranks and Student's t. */
class ConfidenceIntervalsTest {
    @Test
    void medianOfOneHundredIsBetweenThe40thAnd61stValues() {
        // the textbook ranks: Binomial(100, 0.5) has F(39) = 0.0176 ≤ 0.025 < F(40) = 0.0284 and
        // P(B ≥ 61) = 0.0176 ≤ 0.025 < P(B ≥ 60) = 0.0284; coverage F(60) − F(39) = 0.9648
        ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(100, 0.5);
        assertThat(r.lower()).isEqualTo(39); // 0-based: the 40th smallest
        assertThat(r.upper()).isEqualTo(60); // the 61st
        assertThat(r.coverage()).isCloseTo(0.9648, within(1e-4));
    }

    @Test
    void highPercentilesOfLargeRunsAndTheirCoverage() {
        // p95 of 1,000: Binomial(1000, 0.95), mean 950, sd 6.89: ranks about 950 ± 1.96·6.89, asymmetric by a step
        ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(1000, 0.95);
        assertThat(r.lower()).isBetween(934L, 938L);
        assertThat(r.upper()).isBetween(962L, 965L);
        assertThat(r.coverage()).isGreaterThanOrEqualTo(0.95).isLessThan(0.97);
        // millions of samples: the walk from the mode stays short and exact
        ConfidenceIntervals.Ranks big = ConfidenceIntervals.quantileRanks(8_000_000, 0.99);
        double sd = Math.sqrt(8_000_000 * 0.99 * 0.01);
        assertThat((double) big.lower()).isCloseTo(7_920_000 - 1.96 * sd, within(3.0));
        assertThat((double) big.upper()).isCloseTo(7_920_000 + 1.96 * sd, within(3.0));
    }

    @Test
    void tooFewSamplesGiveNoIntervalNeverAFakeOne() {
        assertThat(ConfidenceIntervals.minimumSamples(0.5)).isEqualTo(6);
        assertThat(ConfidenceIntervals.minimumSamples(0.9)).isEqualTo(36);
        assertThat(ConfidenceIntervals.minimumSamples(0.95)).isEqualTo(72);
        assertThat(ConfidenceIntervals.minimumSamples(0.99)).isEqualTo(368);
        for (double q : new double[] {0.5, 0.9, 0.95, 0.99}) {
            long need = ConfidenceIntervals.minimumSamples(q);
            assertThat(ConfidenceIntervals.quantileRanks(need - 1, q)).as("q %s n %s", q, need - 1).isNull();
            ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(need, q);
            assertThat(r).as("q %s n %s", q, need).isNotNull();
            assertThat(r.coverage()).isGreaterThanOrEqualTo(0.95);
            assertThat(r.lower()).isGreaterThanOrEqualTo(0);
            assertThat(r.upper()).isLessThanOrEqualTo(need - 1);
        }
        assertThat(ConfidenceIntervals.quantileRanks(10, 0.99)).isNull();
        assertThat(ConfidenceIntervals.quantileRanks(1000, 0)).isNull(); // the minimum has none
        assertThat(ConfidenceIntervals.quantileRanks(1000, 1)).isNull(); // nor the maximum
    }

    @Test
    void studentsTAndTheMeansInterval() {
        assertThat(ConfidenceIntervals.t975(1)).isEqualTo(12.7062);
        assertThat(ConfidenceIntervals.t975(30)).isEqualTo(2.0423);
        assertThat(ConfidenceIntervals.t975(40)).isCloseTo(2.0211, within(1e-4));
        assertThat(ConfidenceIntervals.t975(120)).isCloseTo(1.9799, within(1e-4));
        assertThat(ConfidenceIntervals.t975(1e9)).isCloseTo(1.95996, within(1e-5));
        // 1..10: mean 5.5, s² 9.1667, t(9) = 2.2622: 5.5 ± 2.2622 · √(9.1667/10) = 5.5 ± 2.1659
        Interval i = ConfidenceIntervals.mean(10, 5.5, 55.0 / 6);
        assertThat(i.low()).isCloseTo(3.3341, within(1e-4));
        assertThat(i.high()).isCloseTo(7.6659, within(1e-4));
        assertThat(ConfidenceIntervals.mean(1, 5, 0)).isNull();
    }

    @Test
    void aDistributionGivesTheSamplesOfTheRanks() {
        Distribution d = new Distribution();
        for (int i = 1; i <= 100; i++) d.add(i);
        Interval median = d.percentileInterval(50);
        assertThat(median).isEqualTo(new Interval(40, 61));
        assertThat(d.percentileInterval(99)).isNull(); // 100 samples: no interval for p99
        assertThat(d.percentileInterval(0)).isNull();
        Interval mean = d.meanInterval();
        // mean 50.5, s 29.011, t(99) ≈ 1.9842: ± 5.7565
        assertThat(mean.low()).isCloseTo(44.7435, within(1e-3));
        assertThat(mean.high()).isCloseTo(56.2565, within(1e-3));
    }
}
