package io.unibench.metrics;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The end-of-run report's percentile figures for one column of N distinct inter-chunk intervals (ms, from nanosecond
 * readings): "sort" = the old path (Arrays.sort of the samples, then every rank read), "select" = Distribution.copy()
 * and the same reads. Usage (see run.sh): java ... ReportRanks N ROUNDS [zeros]
 */
public final class ReportRanks {
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        SplittableRandom rnd = new SplittableRandom(31);
        long[] moments = new long[n + 1];
        boolean zeros = args.length > 2 && args[2].equals("zeros"); // nine in ten intervals 0 (a static SSE body)
        for (int i = 1; i <= n; i++) {
            moments[i] = moments[i - 1] + (zeros && rnd.nextInt(10) > 0 ? 0 : 10_000_000L + rnd.nextLong(40_000_000L));
        }
        double checkSort = 0, checkSelect = 0;
        for (int r = 0; r < rounds; r++) {
            Distribution d = new Distribution();
            d.addIntervalsMs(moments, n);
            double[] raw = new double[n];
            for (int i = 0; i < n; i++) raw[i] = (moments[i + 1] - moments[i]) / 1e9 * 1000;
            long t0 = System.nanoTime();
            Arrays.sort(raw);
            for (double p : PercentileRow.POINTS) {
                checkSort += Percentiles.nearestRankHigh(raw, p);
                ConfidenceIntervals.Ranks k = ConfidenceIntervals.quantileRanks(n, p / 100);
                if (k != null) checkSort += raw[(int) k.lower()] + raw[(int) k.upper()];
            }
            long t1 = System.nanoTime();
            Distribution c = d.copy();
            for (double p : PercentileRow.POINTS) {
                checkSelect += c.nearestRankHigh(p);
                Interval ci = c.percentileInterval(p);
                if (ci != null) checkSelect += ci.low() + ci.high();
            }
            long t2 = System.nanoTime();
            System.out.printf("round %d: sort %.1f ms, select %.1f ms%n", r, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
        }
        if (checkSort != checkSelect) throw new AssertionError("figures differ: " + checkSort + " vs " + checkSelect);
        System.out.println("same figures: " + checkSort);
    }
}
