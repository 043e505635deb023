package io.unibench.metrics;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Rounding of reported values, the way evalscope's Python {@code round(x, n)} does it. */
public final class Rounding {
    private Rounding() {}

    /**
     * Python's {@code round(x, digits)}: the exact binary value rounded to {@code digits} decimals, ties to even.
     * Returns {@code null} for NaN or infinity, so that no NaN ever reaches a JSON file.
     */
    public static Double round(double x, int digits) {
        if (!Double.isFinite(x)) return null;
        return new BigDecimal(x).setScale(digits, RoundingMode.HALF_EVEN).doubleValue();
    }
}
