package io.unibench.metrics;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Rounding of reported values, the way evalscope's Python {@code round(x, n)} does it. */
public final class Rounding {
    private Rounding() {}

    /** 10^d, exact as doubles, for the digits the fast path takes. */
    private static final double[] POWERS = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
            1e14, 1e15};

    /**
     * Python's {@code round(x, digits)}: the exact binary value rounded to {@code digits} decimals, ties to even.
     * Returns {@code null} for NaN or infinity, so that no NaN ever reaches a JSON file.
     */
    public static Double round(double x, int digits) {
        if (!Double.isFinite(x)) return null;
        if (digits >= 0 && digits < POWERS.length) {
            double fast = exactly(x, digits);
            if (!Double.isNaN(fast)) return fast;
        }
        return new BigDecimal(x).setScale(digits, RoundingMode.HALF_EVEN).doubleValue();
    }

    /**
     * The same value as the BigDecimal path without it (that was most of writing {@code workload_timeline.json}, one
     * rounding per request): x·10^d is {@code p + err} exactly ({@link Math#fma} gives the product's rounding error),
     * so the whole number k it rounds to, ties to even, is decided exactly; k / 10^d is then the nearest double to
     * the decimal k·10^-d, as {@link BigDecimal#doubleValue} gives, both being exact doubles (k < 2^52). NaN where
     * this does not apply (|x|·10^d ≥ 2^52, or x so small that the error term could underflow).
     */
    private static double exactly(double x, int digits) {
        double a = Math.abs(x);
        if (a == 0) return 0.0; // BigDecimal has no -0
        if (a < 0x1p-900) return Double.NaN;
        double scale = POWERS[digits];
        double p = a * scale;
        if (!(p < 0x1p52)) return Double.NaN;
        double err = Math.fma(a, scale, -p); // a·scale = p + err, exactly
        double whole = Math.floor(p);
        double fraction = p - whole; // exact: the fraction bits of p
        double k;
        if (fraction < 0.25) {
            k = whole; // |err| ≤ ulp(p)/2 ≤ 1/4: below a half (or a hair below whole: still whole)
        } else {
            double beyondHalf = (fraction - 0.5) + err; // fraction - 0.5 exact (Sterbenz); the sum's sign is exact
            k = beyondHalf > 0 ? whole + 1 : beyondHalf < 0 ? whole : (whole % 2 == 0 ? whole : whole + 1);
        }
        if (k == 0) return 0.0;
        double r = k / scale;
        return x < 0 ? -r : r;
    }
}
