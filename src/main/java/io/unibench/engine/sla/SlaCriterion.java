package io.unibench.engine.sla;

import io.unibench.BadInputException;

import java.util.Locale;

/**
 * One criterion of {@code --sla-params}: {@code "p99_latency": "<=2"}, {@code "avg_ttft": "<500ms"}, {@code "rps":
 * "max"}. A time threshold is in seconds, or in the unit it names ({@code 500ms}, {@code 0.5s}); one unit for every
 * time metric, where evalscope reads TTFT/TPOT in ms and latency in s.
 *
 * @param threshold milliseconds for a time metric, the metric's own unit for a rate; NaN for max/min
 */
public record SlaCriterion(SlaMetric metric, Op op, double threshold) {
    public enum Op {
        LE("<="), GE(">="), LT("<"), GT(">"), MAX("max"), MIN("min");

        final String text;

        Op(String text) {
            this.text = text;
        }

        boolean optimizes() {
            return this == MAX || this == MIN;
        }
    }

    /** Parses {@code text} for {@code metric} (evalscope's forms; ≤ ≥ ≦ ≧ accepted as <= and >=). */
    public static SlaCriterion parse(SlaMetric metric, String text) {
        String t = text.strip().replace("≤", "<=").replace("≦", "<=").replace("≥", ">=").replace("≧", ">=");
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.equals("max")) return new SlaCriterion(metric, Op.MAX, Double.NaN);
        if (lower.equals("min")) return new SlaCriterion(metric, Op.MIN, Double.NaN);
        Op op = lower.startsWith("<=") ? Op.LE : lower.startsWith(">=") ? Op.GE : lower.startsWith("<") ? Op.LT
                : lower.startsWith(">") ? Op.GT : null;
        String where = "--sla-params " + metric.key();
        if (op == null) throw new BadInputException(where + " '" + text + "': expected <=X, >=X, <X, >X, max or min");
        String number = lower.substring(op.text.length()).strip();
        double v;
        if (metric.time()) {
            v = thresholdMillis(where, text, number);
        } else {
            try {
                v = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                throw new BadInputException(where + " '" + text + "': expected a number after " + op.text);
            }
            if (!Double.isFinite(v) || v < 0) throw new BadInputException(where + " '" + text + "': must be ≥ 0");
        }
        return new SlaCriterion(metric, op, v);
    }

    private static double thresholdMillis(String where, String text, String number) {
        double factor = 1000;
        String n = number;
        if (n.endsWith("ms")) {
            factor = 1;
            n = n.substring(0, n.length() - 2);
        } else if (n.endsWith("s")) {
            n = n.substring(0, n.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(n.strip());
        } catch (NumberFormatException e) {
            throw new BadInputException(where + " '" + text + "': expected seconds, or a time with its unit (500ms, 0.5s)");
        }
        if (!Double.isFinite(v) || v < 0) throw new BadInputException(where + " '" + text + "': must be ≥ 0");
        return v * factor;
    }

    /** True when a bare threshold of TTFT/TPOT is large enough that milliseconds were likely meant. */
    public static boolean bareLooksLikeMillis(SlaMetric metric, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (!metric.time() || metric.key().endsWith("latency") || t.endsWith("s")) return false;
        try {
            return Double.parseDouble(t.replaceAll("^[<>=≤≥≦≧]+", "").strip()) >= 10;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Whether {@code v} (ms for times) meets the criterion; max/min always do. */
    public boolean holds(double v) {
        return switch (op) {
            case LE -> v <= threshold;
            case GE -> v >= threshold;
            case LT -> v < threshold;
            case GT -> v > threshold;
            case MAX, MIN -> true;
        };
    }

    /** {@code p99_latency <= 2 s}, {@code avg_ttft < 500 ms}, {@code rps max}: latencies in s, TTFT/TPOT in ms. */
    public String describe() {
        if (op.optimizes()) return metric.key() + " " + op.text;
        if (!metric.time()) return metric.key() + " " + op.text + " " + plain(threshold);
        boolean latency = metric.key().endsWith("latency");
        return metric.key() + " " + op.text + " " + plain(latency ? threshold / 1000 : threshold) + (latency ? " s" : " ms");
    }

    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
