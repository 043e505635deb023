package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistributionTest {
    private static final double[] POINTS = {0, 0.5, 1, 5, 10, 25, 33.3, 50, 75, 90, 95, 99, 99.9, 100};

    /** Log-uniform over 7 decades (1 µs … 10 s in ms), with repeats: what ITL and latency columns look like. */
    private static double[] sample(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = i % 10 == 0 ? 5.0 : Math.pow(10, -3 + 7 * rnd.nextDouble());
        return v;
    }

    @Test
    void belowTheLimitEveryPercentileIsTheExactObservedValue() {
        double[] values = sample(5_000, 1);
        Distribution d = new Distribution(10_000);
        for (double v : values) d.add(v);
        double[] sorted = values.clone();
        Arrays.sort(sorted);

        assertThat(d.exact()).isTrue();
        assertThat(d.count()).isEqualTo(5_000);
        for (double p : POINTS) {
            assertThat(d.nearestRankHigh(p)).as("p%s", p).isEqualTo(Percentiles.nearestRankHigh(sorted, p));
            assertThat(d.linear(p)).as("linear p%s", p).isEqualTo(Percentiles.linear(sorted, p));
        }
        assertThat(d.mean()).isCloseTo(Arrays.stream(values).sum() / values.length, within(1e-9));
    }

    @Test
    void pastTheLimitPercentilesAreWithinTheStatedPrecisionAndExtremesAndMeanStayExact() {
        double[] values = sample(200_000, 2);
        Distribution d = new Distribution(1_000);
        for (double v : values) d.add(v);
        double[] sorted = values.clone();
        Arrays.sort(sorted);

        assertThat(d.exact()).isFalse();
        assertThat(d.count()).isEqualTo(200_000);
        assertThat(d.nearestRankHigh(0)).isEqualTo(sorted[0]);
        assertThat(d.nearestRankHigh(100)).isEqualTo(sorted[sorted.length - 1]);
        for (double p : POINTS) {
            double exact = Percentiles.nearestRankHigh(sorted, p);
            // the documented bound: 0.01% (4 significant digits, the bucket's midpoint reported)
            assertThat(d.nearestRankHigh(p)).as("p%s", p).isCloseTo(exact, within(exact * 1e-4));
            double exactLinear = Percentiles.linear(sorted, p);
            assertThat(d.linear(p)).as("linear p%s", p).isCloseTo(exactLinear, within(exactLinear * 1e-4));
        }
        assertThat(d.mean()).isCloseTo(Arrays.stream(values).sum() / values.length, within(1e-9));
    }

    @Test
    void theSwitchHappensAtTheLimitAndKeepsEverySampleAlreadySeen() {
        Distribution d = new Distribution(4);
        for (double v : new double[] {4, 3, 2, 1}) d.add(v);
        assertThat(d.exact()).isTrue();
        assertThat(d.nearestRankHigh(50)).isEqualTo(3.0); // sorted[floor(4·0.5)] = sorted[2]
        d.add(1000);
        assertThat(d.exact()).isFalse();
        assertThat(d.count()).isEqualTo(5);
        assertThat(d.nearestRankHigh(50)).isCloseTo(3.0, within(3.0e-4)); // sorted[2] of 1,2,3,4,1000
        assertThat(d.nearestRankHigh(100)).isEqualTo(1000.0);
        assertThat(d.mean()).isEqualTo(202.0);
    }

    @Test
    void undefinedValuesAreNotSamplesAndAnEmptyDistributionHasNoPercentiles() {
        Distribution d = new Distribution(4);
        d.add(Double.NaN);
        d.add(Double.POSITIVE_INFINITY);
        assertThat(d.count()).isZero();
        assertThat(d.mean()).isNull();
        assertThat(d.nearestRankHigh(50)).isNaN();
        assertThat(d.linear(50)).isNaN();
    }

    @Test
    void zerosAndANegativeClockAnomalyDoNotBreakTheHistogram() {
        Distribution d = new Distribution(2);
        for (int i = 0; i < 100; i++) d.add(0.0); // ITL of chunks that arrived in one read
        d.add(-0.001);
        d.add(7.5);
        assertThat(d.exact()).isFalse();
        assertThat(d.nearestRankHigh(0)).isEqualTo(-0.001); // the exact minimum
        assertThat(d.nearestRankHigh(50)).isEqualTo(0.0);
        assertThat(d.nearestRankHigh(100)).isEqualTo(7.5);
    }

    @Test
    void aCopyIsIndependentOfItsSource() {
        Distribution d = new Distribution(3);
        d.add(1);
        d.add(2);
        Distribution c = d.copy();
        d.add(100);
        d.add(200); // d switches to the histogram, c stays exact
        assertThat(c.exact()).isTrue();
        assertThat(c.count()).isEqualTo(2);
        assertThat(c.nearestRankHigh(100)).isEqualTo(2.0);
        Distribution h = d.copy();
        d.add(1e6);
        assertThat(h.count()).isEqualTo(4);
        assertThat(h.nearestRankHigh(100)).isEqualTo(200.0);
    }

    @Test
    void aCopySharesTheSortedSamplesAndTheSourceCopiesThemBeforeWritingAgain() {
        Distribution d = new Distribution(100);
        for (double v : new double[] {5, 1, 4, 2, 3}) d.add(v);
        Distribution c = d.copy();
        // the source goes on: smaller values than every one the copy saw, then a sort of its own
        d.add(0.5);
        d.add(0.25);
        assertThat(d.valueAtRank(1)).isEqualTo(0.5);
        Distribution c2 = d.copy();
        d.add(-1);
        assertThat(d.valueAtRank(0)).isEqualTo(-1.0);
        for (int k = 0; k < 5; k++) assertThat(c.valueAtRank(k)).as("rank %d", k).isEqualTo(k + 1.0);
        assertThat(c2.valueAtRank(0)).isEqualTo(0.25);
        assertThat(c2.valueAtRank(2)).isEqualTo(1.0);
        assertThat(c2.count()).isEqualTo(7);
    }

    /** The intervals of a reply in one call: the same samples, sum, mean and its interval as adding each in turn. */
    @Test
    void intervalsAddedInOneCallAreTheSameSamplesAsAddedOneByOne() {
        SplittableRandom rng = new SplittableRandom(3);
        // limit 3,000: the bulk path, then a copy shared with the source, then the switch to the histogram midway
        Distribution bulk = new Distribution(3_000);
        Distribution each = new Distribution(3_000);
        Distribution bulkCopy = null;
        Distribution eachCopy = null;
        for (int reply = 0; reply < 80; reply++) {
            long[] moments = new long[1 + rng.nextInt(150)];
            moments[0] = 5_000_000_000_000L + rng.nextLong(1_000_000_000L);
            for (int i = 1; i < moments.length; i++) {
                moments[i] = moments[i - 1] + (rng.nextInt(4) == 0 ? 0 : rng.nextLong(50_000_000L));
            }
            bulk.addIntervalsMs(moments, moments.length - 1);
            for (int i = 0; i + 1 < moments.length; i++) each.add((moments[i + 1] - moments[i]) / 1e9 * 1000);
            if (reply == 10) { // the report's snapshot mid-run: the source copies before writing again
                bulkCopy = bulk.copy();
                eachCopy = each.copy();
            }
            assertThat(bulk.count()).isEqualTo(each.count());
            assertThat(bulk.exact()).isEqualTo(each.exact());
            assertThat(bulk.mean()).isEqualTo(each.mean());
            assertThat(bulk.meanInterval()).isEqualTo(each.meanInterval());
            for (double p : POINTS) assertThat(bulk.nearestRankHigh(p)).as("p%s", p).isEqualTo(each.nearestRankHigh(p));
        }
        assertThat(bulk.exact()).isFalse(); // the run went past the limit
        for (double p : POINTS) assertThat(bulkCopy.nearestRankHigh(p)).isEqualTo(eachCopy.nearestRankHigh(p));
        assertThat(bulkCopy.count()).isEqualTo(eachCopy.count());
    }

    /** Every rank the reports read, and random others, equal bit for bit what a full sort puts there. */
    @Test
    void selectedRanksAreBitIdenticalToAFullSort() {
        SplittableRandom rnd = new SplittableRandom(31);
        int[] sizes = {1, 2, 3, 4, 5, 6, 7, 10, 36, 72, 100, 367, 1_000, 1_025, 2_049, 5_000, 10_007, 33_333, 100_000};
        for (int n : sizes) {
            for (int kind = 0; kind < 7; kind++) {
                double[] values = new double[n];
                for (int i = 0; i < n; i++) {
                    values[i] = switch (kind) {
                        case 0 -> rnd.nextDouble() * 100; // distinct
                        case 1 -> rnd.nextInt(5); // heavy ties
                        case 2 -> i == 0 ? -1 : i == 1 ? 1 : rnd.nextBoolean() ? 0.0 : -0.0; // ±0 apart, as sort
                        case 3 -> i; // ascending
                        case 4 -> n - i; // descending
                        case 5 -> 7.5; // all equal
                        default -> i % 3 == 0 ? rnd.nextInt(50) : rnd.nextGaussian(); // mixed
                    };
                }
                double[] sorted = values.clone();
                Arrays.sort(sorted);
                Distribution d = new Distribution();
                for (double v : values) d.add(v);
                Distribution copy = d.copy();
                String as = "n=" + n + " kind=" + kind;
                assertSameRanks(copy, sorted, rnd, as + " copy");
                for (int i = 0; i < 50; i++) d.add(rnd.nextDouble()); // the owner writes on: the copy keeps its order
                assertSameRanks(copy, sorted, rnd, as + " copy after the owner's adds");
                Distribution fresh = new Distribution();
                for (double v : values) fresh.add(v);
                assertSameRanks(fresh, sorted, rnd, as + " owner");
            }
        }
    }

    private static void assertSameRanks(Distribution d, double[] sorted, SplittableRandom rnd, String as) {
        int n = sorted.length;
        for (double[] points : new double[][] {PercentileRow.POINTS, POINTS}) {
            for (double p : points) {
                assertThat(bits(d.nearestRankHigh(p))).as("%s p%s", as, p)
                        .isEqualTo(bits(Percentiles.nearestRankHigh(sorted, p)));
                assertThat(bits(d.linear(p))).as("%s linear p%s", as, p)
                        .isEqualTo(bits(Percentiles.linear(sorted, p)));
                ConfidenceIntervals.Ranks r = ConfidenceIntervals.quantileRanks(n, p / 100);
                Interval ci = d.percentileInterval(p);
                if (r == null) {
                    assertThat(ci).as("%s ci p%s", as, p).isNull();
                } else {
                    assertThat(bits(ci.low())).as("%s ci low p%s", as, p).isEqualTo(bits(sorted[(int) r.lower()]));
                    assertThat(bits(ci.high())).as("%s ci high p%s", as, p).isEqualTo(bits(sorted[(int) r.upper()]));
                }
            }
        }
        for (int i = 0; i < 20; i++) {
            int k = rnd.nextInt(n);
            assertThat(bits(d.valueAtRank(k))).as("%s rank %s", as, k).isEqualTo(bits(sorted[k]));
        }
    }

    private static long bits(double v) {
        return Double.doubleToRawLongBits(v);
    }
}
