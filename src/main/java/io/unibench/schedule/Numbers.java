package io.unibench.schedule;

import java.util.Locale;

/** Values in messages: at most three decimals, no trailing zeros ({@code 2000}, {@code 2.35}, {@code 0.125}). */
public final class Numbers {
    private Numbers() {}

    public static String format(Double v) {
        if (v == null) return "no data";
        if (Double.isNaN(v) || Double.isInfinite(v)) return String.valueOf(v);
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
