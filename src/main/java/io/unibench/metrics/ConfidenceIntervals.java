package io.unibench.metrics;

/**
 * The one implementation of the reports' 95 % confidence intervals (docs/metrics.md: confidence
 * intervals).
 *
 * <p><b>Percentiles: distribution-free order statistics.</b> Of {@code n} independent samples, the number {@code B}
 * that fall at or below the true {@code q}-quantile is Binomial({@code n}, {@code q}); so the interval between the
 * sorted samples of 1-based ranks {@code l} and {@code u} covers the quantile with probability
 * {@code P(l ≤ B ≤ u − 1) = F(u − 1) − F(l − 1)}, whatever the distribution. The interval is equal-tailed: {@code l}
 * is the largest rank with {@code F(l − 1) ≤ 2.5 %} and {@code u} the smallest with {@code P(B ≥ u) ≤ 2.5 %}, so its
 * coverage is at least 95 %. The binomial is summed exactly (in doubles) outward from its mode, terms below 10⁻⁴⁰
 * of the mode's left out. When even rank 1 or rank {@code n} is not far enough out ({@code (1 − q)ⁿ > 2.5 %} or
 * {@code qⁿ > 2.5 %}) there is no interval: a median needs 6 samples, a p90 36, a p95 72 and a p99 367
 * ({@link #minimumSamples}).
 *
 * <p><b>Means: Student's t.</b> {@code mean ± t(0.975, n − 1) · s / √n} with {@code s} the sample standard
 * deviation; at least 2 samples. t's quantile is tabulated to 4 decimals for 1–30 degrees of freedom and the
 * Cornish–Fisher expansion (error below 10⁻⁴) beyond.
 */
public final class ConfidenceIntervals {
    /** The confidence level of every interval the reports give. */
    public static final double LEVEL = 0.95;
    /** The suffix of the keys that carry an interval: {@code "TTFT (ms) 95% CI"}. */
    public static final String KEY_SUFFIX = " 95% CI";

    private static final double TAIL = (1 - LEVEL) / 2;
    private static final double NEGLIGIBLE = 1e-40;
    /** Standard normal quantile at 0.975. */
    private static final double Z = 1.959963984540054;
    /** t(0.975, df) for df = 1 … 30. */
    private static final double[] T_975 = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622,
            2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739,
            2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

    private ConfidenceIntervals() {}

    /**
     * The order statistics bounding a quantile.
     *
     * @param lower    0-based rank of the lower bound among the sorted samples
     * @param upper    0-based rank of the upper bound
     * @param coverage the exact binomial coverage of {@code [lower, upper]}, ≥ {@link #LEVEL}
     */
    public record Ranks(long lower, long upper, double coverage) {}

    /**
     * The ranks of the 95 % distribution-free interval of the {@code q}-quantile ({@code 0 < q < 1}) of {@code n}
     * samples; null when {@code n} is too small for one (see {@link #minimumSamples}) or {@code q} is 0 or 1 (the
     * minimum and maximum have no distribution-free interval).
     */
    public static Ranks quantileRanks(long n, double q) {
        if (n < 1 || !(q > 0 && q < 1)) return null;
        // binomial weights relative to the mode's, from kLo to kHi
        long mode = Math.min(n, Math.max(0, (long) Math.floor((n + 1) * q)));
        double odds = q / (1 - q);
        int down = 0;
        double w = 1;
        double[] lowSide = new double[64];
        for (long k = mode; k > 0; k--) {
            w *= k / ((n - k + 1) * odds); // pmf(k − 1) / pmf(k)
            if (w < NEGLIGIBLE) break;
            if (down == lowSide.length) lowSide = java.util.Arrays.copyOf(lowSide, down * 2);
            lowSide[down++] = w;
        }
        int up = 0;
        w = 1;
        double[] highSide = new double[64];
        for (long k = mode; k < n; k++) {
            w *= (n - k) * odds / (k + 1); // pmf(k + 1) / pmf(k)
            if (w < NEGLIGIBLE) break;
            if (up == highSide.length) highSide = java.util.Arrays.copyOf(highSide, up * 2);
            highSide[up++] = w;
        }
        long kLo = mode - down;
        double[] pmf = new double[down + 1 + up];
        for (int i = 0; i < down; i++) pmf[down - 1 - i] = lowSide[i];
        pmf[down] = 1;
        System.arraycopy(highSide, 0, pmf, down + 1, up);
        double total = 0;
        for (double p : pmf) total += p;
        // l − 1 (0-based: lower) is the largest k with F(k) ≤ TAIL; below kLo, F is negligible
        long lower = -1;
        double below = 0; // F(k)
        for (int i = 0; i < pmf.length; i++) {
            double next = below + pmf[i] / total;
            if (next > TAIL) break;
            below = next;
            lower = kLo + i;
        }
        if (lower < 0 && kLo > 0) lower = kLo - 1;
        if (lower < 0) return null; // P(B = 0) > 2.5 %: not even the minimum is a lower bound
        // u (1-based) is the smallest with P(B ≥ u) ≤ TAIL; 0-based upper = u − 1
        long u = -1;
        double above = 0; // P(B ≥ k)
        for (int i = pmf.length - 1; i >= 0; i--) {
            double next = above + pmf[i] / total;
            if (next > TAIL) break;
            above = next;
            u = kLo + i;
        }
        long kHi = kLo + pmf.length - 1;
        if (u < 0 && kHi < n) u = kHi + 1;
        if (u < 1) return null; // P(B = n) > 2.5 %: not even the maximum is an upper bound
        double coverage = 1 - cdf(pmf, total, kLo, lower) - above;
        return new Ranks(lower, u - 1, coverage);
    }

    private static double cdf(double[] pmf, double total, long kLo, long k) {
        double s = 0;
        for (long j = kLo; j <= k && j - kLo < pmf.length; j++) s += pmf[(int) (j - kLo)] / total;
        return s;
    }

    /**
     * The fewest samples for which the {@code q}-quantile ({@code 0 < q < 1}) has an interval: the smallest
     * {@code n} with {@code (1 − q)ⁿ ≤ 2.5 %} and {@code qⁿ ≤ 2.5 %}.
     */
    public static long minimumSamples(double q) {
        double worst = Math.max(q, 1 - q);
        return (long) Math.ceil(Math.log(TAIL) / Math.log(worst) - 1e-12);
    }

    /** The 0.975 quantile of Student's t with {@code df ≥ 1} degrees of freedom (a real df is floored). */
    public static double t975(double df) {
        if (!(df >= 1)) throw new IllegalArgumentException("degrees of freedom must be ≥ 1: " + df);
        if (df < T_975.length + 1) return T_975[(int) Math.floor(df) - 1];
        double z2 = Z * Z;
        double z3 = z2 * Z;
        double z5 = z3 * z2;
        double z7 = z5 * z2;
        double z9 = z7 * z2;
        return Z + (z3 + Z) / 4 / df
                + (5 * z5 + 16 * z3 + 3 * Z) / 96 / (df * df)
                + (3 * z7 + 19 * z5 + 17 * z3 - 15 * Z) / 384 / (df * df * df)
                + (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * Z) / 92160 / (df * df * df * df);
    }

    /** The t-interval of a mean from {@code n} samples with sample variance {@code variance}; null when n < 2. */
    public static Interval mean(long n, double mean, double variance) {
        if (n < 2 || !Double.isFinite(mean) || !Double.isFinite(variance)) return null;
        double half = t975(n - 1) * Math.sqrt(Math.max(variance, 0) / n);
        return new Interval(mean - half, mean + half);
    }
}
