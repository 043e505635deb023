package io.unibench.report;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Number formatting of the terminal tables (evalscope's rule): half-up rounding of the decimal value, trailing
 * zeros stripped; missing, NaN or "not available" (−1 where evalscope uses it) → {@code —}.
 * Precision by unit: seconds 3, ms 2, tok/s and req/s 2, counts 0, average token counts 1, percents 1.
 */
public final class DisplayNumbers {
    public static final String MISSING = "—";
    public static final int SECONDS = 3;
    public static final int MILLIS = 2;
    public static final int RATE = 2;
    public static final int COUNT = 0;
    public static final int AVG_COUNT = 1;
    public static final int PERCENT = 1;

    private DisplayNumbers() {}

    public static String format(Double v, int precision) {
        if (v == null || !Double.isFinite(v)) return MISSING;
        // valueOf uses the shortest decimal that round-trips (what Python prints), so 2.675 rounds up to 2.68.
        BigDecimal d = BigDecimal.valueOf(v).setScale(precision, RoundingMode.HALF_UP).stripTrailingZeros();
        if (d.signum() == 0) return "0";
        return d.toPlainString();
    }

    /** Like {@link #format} but −1 (evalscope's "not available") is shown as missing. */
    public static String formatAvailable(Double v, int precision) {
        if (v != null && v == -1.0) return MISSING;
        return format(v, precision);
    }
}
