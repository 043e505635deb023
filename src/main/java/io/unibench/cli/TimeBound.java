package io.unibench.cli;

import io.unibench.BadInputException;

import java.util.Locale;

/**
 * A time value of a flag, in milliseconds: {@code 500ms}, {@code 0.5s}, or a bare number in the flag's one documented
 * unit (milliseconds for {@code --goodput}, as vLLM; seconds for {@code --sla-params}, as evalscope's documentation).
 */
final class TimeBound {
    private TimeBound() {}

    /** @param where what names the value in an error (flag and item); @param bareSeconds unit of a bare number */
    static double millis(String where, String text, boolean bareSeconds) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double factor = bareSeconds ? 1000 : 1;
        if (t.endsWith("ms")) {
            factor = 1;
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            factor = 1000;
            t = t.substring(0, t.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(t.trim());
        } catch (NumberFormatException e) {
            throw new BadInputException(where + " '" + text + "': expected a number of "
                    + (bareSeconds ? "seconds" : "milliseconds") + ", or one with a unit (500ms, 0.5s)");
        }
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new BadInputException(where + " '" + text + "': must be a finite value ≥ 0");
        }
        return v * factor;
    }
}
