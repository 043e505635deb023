package io.unibench.schedule;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

/** Values in messages and on the schedule pages. */
public final class Numbers {
    private Numbers() {}

    /** At most three decimals, no trailing zeros ({@code 2000}, {@code 2.35}, {@code 0.125}): a plain number. */
    public static String format(Double v) {
        if (v == null) return "no data";
        if (Double.isNaN(v) || Double.isInfinite(v)) return String.valueOf(v);
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * A value as people read it, with thousands separators and the decimals its size calls for: one from 100 on
     * ({@code 1,012.9}), two from 1 ({@code 2.35}), three below ({@code 0.125}); no trailing zeros.
     */
    public static String readable(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return String.valueOf(v);
        double a = Math.abs(v);
        int decimals = a >= 100 ? 1 : a >= 1 ? 2 : 3;
        DecimalFormat f = new DecimalFormat("#,##0." + "#".repeat(decimals), DecimalFormatSymbols.getInstance(Locale.ROOT));
        f.setRoundingMode(RoundingMode.HALF_UP);
        return f.format(BigDecimal.valueOf(v));
    }

    /** A value with its unit: {@code 1,012.9 ms}, {@code 99.5%}; {@code none} when there is no value. */
    public static String withUnit(Double v, String unit, String none) {
        if (v == null) return none;
        if (unit == null || unit.isEmpty()) return readable(v);
        return readable(v) + (unit.equals("%") ? "%" : " " + unit);
    }
}
