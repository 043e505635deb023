package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

/** The comparison's verdicts, decided from the two samples' distributions, deterministically. */
class SampleComparisonTest {
    /** n values of a log-normal (median m, σ 0.3) at evenly spaced probabilities: deterministic, sorted. */
    static double[] lognormal(int n, double median) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = median * Math.exp(0.3 * inverseNormal((i + 0.5) / n));
        return v;
    }

    /** Acklam's inverse normal CDF (relative error 1e-9), enough for test data. */
    static double inverseNormal(double p) {
        double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                -3.066479806614716e+01, 2.506628277459239e+00};
        double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                -1.328068155288572e+01};
        double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549671010115839e+00,
                4.374664141464968e+00, 2.938163982698783e+00};
        double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        double q;
        if (p < 0.02425) {
            q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - 0.02425) return -inverseNormal(1 - p);
        q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }

    static double[] times(double[] v, double f) {
        return Arrays.stream(v).map(x -> x * f).toArray();
    }

    @Test
    void aRunTwentySixTimesSlowerIsWorseAtEveryPercentileAndInTheMean() {
        double[] a = lognormal(400, 40);
        double[] b = times(a, 26);
        for (double p : new double[] {50, 95, 99}) {
            MetricDelta d = SampleComparison.percentile("parallel_4", "p" + (int) p + " TTFT (ms)", a, b, p);
            assertThat(d.verdict()).as("p%s", p).isEqualTo(MetricDelta.WORSE);
            assertThat(d.deltaInterval().low()).isPositive();
            assertThat(d.nA()).isEqualTo(400);
            assertThat(d.nB()).isEqualTo(400);
        }
        assertThat(SampleComparison.mean("parallel_4", "Avg TTFT (ms)", a, b).verdict()).isEqualTo(MetricDelta.WORSE);
        // the same the other way round, and for a metric where higher is better
        assertThat(SampleComparison.percentile("l", "p50 TTFT (ms)", b, a, 50).verdict()).isEqualTo(MetricDelta.BETTER);
        assertThat(SampleComparison.percentile("l", "p50 Output Throughput (tok/s)", b, a, 50).verdict())
                .isEqualTo(MetricDelta.WORSE);
    }

    @Test
    void anIdenticalDistributionIsTheSame() {
        // 10,000 requests: enough to pin even the p99 within the ±5 % minimum effect (2,000 leave it unclear)
        double[] a = lognormal(10_000, 40);
        for (double p : new double[] {50, 95, 99}) {
            MetricDelta d = SampleComparison.percentile("l", "p" + (int) p + " Latency (s)", a, a.clone(), p);
            assertThat(d.delta()).isZero();
            assertThat(d.verdict()).as("p%s %s", p, d.deltaInterval()).isEqualTo(MetricDelta.SAME);
        }
        assertThat(SampleComparison.mean("l", "Avg Latency (s)", a, a.clone()).verdict()).isEqualTo(MetricDelta.SAME);
    }

    @Test
    void aSmallShiftWithOverlappingDataIsTheSameNotWorse() {
        // +0.6 %: the old comparison called this "worse"; it is well below the minimum effect
        double[] a = lognormal(10_000, 30);
        double[] b = times(a, 1.006);
        for (double p : new double[] {50, 95, 99}) {
            MetricDelta d = SampleComparison.percentile("l", "p" + (int) p + " TPOT (ms)", a, b, p);
            assertThat(d.deltaPercent()).isCloseTo(0.6, org.assertj.core.api.Assertions.within(0.01));
            assertThat(d.verdict()).as("p%s %s", p, d.deltaInterval()).isEqualTo(MetricDelta.SAME);
        }
        assertThat(SampleComparison.mean("l", "Avg TPOT (ms)", a, b).verdict()).isEqualTo(MetricDelta.SAME);
    }

    @Test
    void aWideIntervalIsUnclearAndTooFewRequestsSaySo() {
        // 80 requests a side, a 4 % shift: the interval of the p95's delta is far wider than ±5 %
        double[] a = lognormal(80, 100);
        MetricDelta d = SampleComparison.percentile("l", "p95 TTFT (ms)", a, times(a, 1.04), 95);
        assertThat(d.verdict()).isEqualTo(MetricDelta.UNCLEAR);
        // p99 of 80 requests has no interval: no verdict pretends to have one
        MetricDelta p99 = SampleComparison.percentile("l", "p99 TTFT (ms)", a, times(a, 26), 99);
        assertThat(p99.verdict()).isEqualTo(MetricDelta.TOO_FEW);
        assertThat(p99.deltaInterval()).isNull();
        assertThat(p99.why()).isEqualTo("p99 needs ≥ 368 requests a side");
    }

    @Test
    void theVerdictIsReproducible() {
        double[] a = lognormal(500, 10);
        double[] b = times(a, 1.03);
        MetricDelta first = SampleComparison.percentile("l", "p95 TTFT (ms)", a, b, 95);
        assertThat(SampleComparison.percentile("l", "p95 TTFT (ms)", a, b, 95)).isEqualTo(first);
    }

    @Test
    void aBootstrapReplicatesOrderStatisticMatchesResamplingByBruteForce() {
        // the Beta shortcut against resampling 20 values with replacement: the k-th smallest's rank distribution
        int n = 20;
        int k = 15;
        int trials = 40_000;
        java.util.SplittableRandom r1 = new java.util.SplittableRandom(1);
        java.util.SplittableRandom r2 = new java.util.SplittableRandom(2);
        double[] viaBeta = new double[n];
        double[] brute = new double[n];
        int[] draw = new int[n];
        for (int t = 0; t < trials; t++) {
            viaBeta[SampleComparison.bootstrapIndex(r1, n, k)]++;
            for (int i = 0; i < n; i++) draw[i] = r2.nextInt(n);
            Arrays.sort(draw);
            brute[draw[k - 1]]++;
        }
        for (int j = 0; j < n; j++) {
            assertThat(viaBeta[j] / trials).as("rank %s", j)
                    .isCloseTo(brute[j] / trials, org.assertj.core.api.Assertions.within(0.012));
        }
    }
}
