package io.unibench.metrics;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The one decision "is B better, worse or the same as A?" for a per-request metric, from the two runs' request
 * distributions (docs/outputs.md, "Run history": runs compare). {@code runs compare}, {@code GET /api/compare} and the compare page all
 * come here.
 *
 * <p><b>Percentiles (p50, p95, p99): bootstrap over requests.</b> The delta is B's percentile − A's (nearest rank,
 * as reported). Its 95 % interval is the 2.5th–97.5th percentile of {@value #REPLICATES} bootstrap replicates of
 * that delta, each side resampled independently with a fixed seed ({@value #SEED}), so the same stored requests
 * always give the same verdict. A replicate does not resample n values: the k-th smallest of n values drawn with
 * replacement from the sorted sample {@code x} is {@code x[⌈n·U⌉]} (1-based) with {@code U ~ Beta(k, n − k + 1)}, the
 * k-th smallest of n uniforms, so each replicate is one Beta draw per side — the exact bootstrap distribution of the
 * order statistic at O(1) cost whatever n. A percentile is compared only when both sides have enough requests for
 * its own distribution-free interval ({@link ConfidenceIntervals#minimumSamples}: 72 for p95, 368 for p99), else
 * the verdict is {@link MetricDelta#TOO_FEW}.
 *
 * <p><b>Means: Welch's t-interval</b> of the difference ({@link ConfidenceIntervals#t975} at the Welch–Satterthwaite
 * degrees of freedom); at least 2 samples a side.
 *
 * <p><b>Verdict</b>, with δ = {@value #MIN_EFFECT_PERCENT} % of A's value (the minimum effect that matters):
 * <ul>
 *   <li>better / worse (by the metric's direction): the interval excludes 0 and |delta| ≥ δ;</li>
 *   <li>same: the interval lies within [−δ, +δ] (a real but smaller shift is still "same");</li>
 *   <li>unclear: anything else (an interval too wide to tell: more requests would decide).</li>
 * </ul>
 * The run-to-run spread of other runs never decides: only the two runs' own requests do.
 */
public final class SampleComparison {
    /** The minimum effect, percent of the baseline's value. */
    public static final double MIN_EFFECT_PERCENT = 5;
    /** Bootstrap replicates per compared percentile. */
    public static final int REPLICATES = 2000;
    /** The bootstrap's fixed seed. */
    public static final long SEED = 20_260_617L;

    private SampleComparison() {}

    /**
     * The {@code p}-th percentile ({@code 0 < p < 100}) of B against A's.
     *
     * @param a sorted ascending, NaN-free
     * @param b sorted ascending, NaN-free
     */
    public static MetricDelta percentile(String point, String metric, double[] a, double[] b, double p) {
        MetricDelta.Direction dir = MetricDelta.direction(metric);
        long nA = a.length;
        long nB = b.length;
        if (nA == 0 || nB == 0) {
            return new MetricDelta(point, metric, value(a, p), value(b, p), null, null, dir, "", null, nA, nB, null);
        }
        double va = Percentiles.nearestRankHigh(a, p);
        double vb = Percentiles.nearestRankHigh(b, p);
        double delta = vb - va;
        Double pct = percent(delta, va);
        long need = ConfidenceIntervals.minimumSamples(p / 100);
        if (nA < need || nB < need) {
            return new MetricDelta(point, metric, va, vb, delta, pct, dir, MetricDelta.TOO_FEW, null, nA, nB,
                    "p" + fmtP(p) + " needs ≥ " + need + " requests a side");
        }
        long kA = Percentiles.nearestRankHighIndex(nA, p) + 1; // 1-based order statistic
        long kB = Percentiles.nearestRankHighIndex(nB, p) + 1;
        SplittableRandom random = new SplittableRandom(SEED);
        double[] deltas = new double[REPLICATES];
        for (int i = 0; i < REPLICATES; i++) {
            deltas[i] = b[bootstrapIndex(random, nB, kB)] - a[bootstrapIndex(random, nA, kA)];
        }
        Arrays.sort(deltas);
        Interval ci = new Interval(deltas[(int) Math.floor(0.025 * REPLICATES)],
                deltas[(int) Math.ceil(0.975 * REPLICATES) - 1]);
        return new MetricDelta(point, metric, va, vb, delta, pct, dir, decide(va, delta, ci, dir), ci, nA, nB, null);
    }

    /** The mean of B against A's, by Welch's t-interval. */
    public static MetricDelta mean(String point, String metric, double[] a, double[] b) {
        MetricDelta.Direction dir = MetricDelta.direction(metric);
        long nA = a.length;
        long nB = b.length;
        Double ma = nA == 0 ? null : mean(a);
        Double mb = nB == 0 ? null : mean(b);
        if (ma == null || mb == null) return new MetricDelta(point, metric, ma, mb, null, null, dir, "", null, nA, nB, null);
        double delta = mb - ma;
        Double pct = percent(delta, ma);
        if (nA < 2 || nB < 2) {
            return new MetricDelta(point, metric, ma, mb, delta, pct, dir, MetricDelta.TOO_FEW, null, nA, nB,
                    "a mean needs ≥ 2 requests a side");
        }
        double sa = variance(a, ma) / nA;
        double sb = variance(b, mb) / nB;
        double se = Math.sqrt(sa + sb);
        double df = (sa + sb) * (sa + sb) / (sa * sa / (nA - 1) + sb * sb / (nB - 1));
        if (!(df >= 1)) df = Math.min(nA, nB) - 1; // both variances 0
        double half = ConfidenceIntervals.t975(df) * se;
        Interval ci = new Interval(delta - half, delta + half);
        return new MetricDelta(point, metric, ma, mb, delta, pct, dir, decide(ma, delta, ci, dir), ci, nA, nB, null);
    }

    /**
     * The row refused a verdict because the runs' workloads differ in something that moves it
     * ({@link WorkloadFingerprint#refusals}), or, {@code forced}, its verdict kept and marked with the reason.
     */
    public static MetricDelta refused(MetricDelta d, String why, boolean forced) {
        return new MetricDelta(d.point(), d.metric(), d.a(), d.b(), d.delta(), d.deltaPercent(), d.direction(),
                forced ? d.verdict() : WorkloadFingerprint.REFUSED, forced ? d.deltaInterval() : null, d.nA(), d.nB(),
                forced ? "forced; not comparable: " + why : why);
    }

    /** A figure that has one value per run (throughput, counts): the delta, no interval, no verdict. */
    public static MetricDelta single(String point, String metric, Double a, Double b) {
        Double delta = a != null && b != null ? b - a : null;
        Double pct = delta == null ? null : percent(delta, a);
        return new MetricDelta(point, metric, a, b, delta, pct, MetricDelta.direction(metric), "", null, null, null,
                null);
    }

    /** The verdict of a delta with its interval (see the class comment); "" for a neutral metric. */
    static String decide(double a, double delta, Interval ci, MetricDelta.Direction dir) {
        if (dir == MetricDelta.Direction.NEUTRAL) return "";
        double minEffect = MIN_EFFECT_PERCENT / 100 * Math.abs(a);
        boolean excludesZero = ci.low() > 0 || ci.high() < 0;
        if (excludesZero && Math.abs(delta) >= minEffect && delta != 0) {
            return (delta > 0) == (dir == MetricDelta.Direction.HIGHER_BETTER) ? MetricDelta.BETTER : MetricDelta.WORSE;
        }
        if (ci.low() >= -minEffect && ci.high() <= minEffect) return MetricDelta.SAME;
        return MetricDelta.UNCLEAR;
    }

    /** 0-based index of a bootstrap replicate's k-th smallest (1-based k) of n values resampled with replacement. */
    static int bootstrapIndex(SplittableRandom random, long n, long k) {
        double x = gamma(random, k);
        double y = gamma(random, n - k + 1);
        double u = x / (x + y);
        long j = (long) Math.ceil(n * u);
        return (int) Math.min(Math.max(j, 1), n) - 1;
    }

    /** A Gamma(shape ≥ 1, 1) variate: Marsaglia and Tsang (2000). */
    private static double gamma(SplittableRandom random, double shape) {
        double d = shape - 1.0 / 3;
        double c = 1 / Math.sqrt(9 * d);
        while (true) {
            double x;
            double v;
            do {
                x = random.nextGaussian();
                v = 1 + c * x;
            } while (v <= 0);
            v = v * v * v;
            double u = random.nextDouble();
            if (u < 1 - 0.0331 * x * x * x * x) return d * v;
            if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
        }
    }

    private static Double value(double[] sorted, double p) {
        return sorted.length == 0 ? null : Percentiles.nearestRankHigh(sorted, p);
    }

    private static Double percent(double delta, double a) {
        return a == 0 ? null : 100 * delta / Math.abs(a);
    }

    private static double mean(double[] v) {
        double s = 0;
        for (double x : v) s += x;
        return s / v.length;
    }

    private static double variance(double[] v, double mean) {
        if (v.length < 2) return 0;
        double s = 0;
        for (double x : v) s += (x - mean) * (x - mean);
        return s / (v.length - 1);
    }

    private static String fmtP(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }
}
