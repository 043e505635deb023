package io.unibench.report;

import io.unibench.metrics.MetricDelta;

import java.util.List;
import java.util.Locale;

/** {@code runs compare A B} as text; the figures come from the run history ({@code store.RunComparison}). */
public final class RunComparisonReport {
    private RunComparisonReport() {}

    /**
     * The comparison as text: one table per sweep point and the notes.
     *
     * @param a       run A in one line (id, name, model @ url [status])
     * @param repeats other finished runs of A's or B's configuration the spreads come from
     */
    public static String render(String a, String b, List<MetricDelta> rows, List<String> unmatched, int repeats) {
        StringBuilder sb = new StringBuilder();
        sb.append("A: ").append(a).append('\n');
        sb.append("B: ").append(b).append('\n');
        sb.append("Δ = B − A; better/worse by the metric's direction; '~' marks a Δ inside the run-to-run spread.\n\n");
        String current = null;
        TextTable t = null;
        boolean anySpread = false;
        for (MetricDelta row : rows) {
            if (!row.point().equals(current)) {
                if (t != null) sb.append(t.render()).append('\n');
                current = row.point();
                sb.append(current).append('\n');
                t = new TextTable(List.of("Metric", "A", "B", "Δ", "Δ%", "", "Spread"),
                        TextTable.Align.LEFT, TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT,
                        TextTable.Align.RIGHT, TextTable.Align.LEFT, TextTable.Align.LEFT);
            }
            anySpread |= row.spread() != null;
            String spread = row.spread() == null ? "" : (row.inSpread() ? "~ within " : "beyond ")
                    + "±" + num(row.spread()) + " (" + row.repeats() + " repeats)";
            t.row(row.metric(), num(row.a()), num(row.b()), signed(row.delta()),
                    row.deltaPercent() == null ? "" : String.format(Locale.ROOT, "%+.1f%%", row.deltaPercent()),
                    row.verdict(), spread);
        }
        if (t != null) sb.append(t.render()).append('\n');
        for (String u : unmatched) sb.append("Not compared: ").append(u).append('\n');
        if (!anySpread) {
            sb.append("Note: no run-to-run spread is known: the store holds fewer than two other finished runs of "
                    + "either configuration. Repeat a run (same flags) to tell a real difference from noise.\n");
        } else {
            sb.append("Note: spread = the range of the metric over ").append(repeats)
                    .append(" other finished runs with the same configuration as A or B; a Δ within it may be noise.\n");
        }
        return sb.toString();
    }

    /** A figure of the comparison: integers plain, small values with 6 decimals, others with 4. */
    public static String num(Double v) {
        if (v == null) return "-";
        double a = Math.abs(v);
        if (a != 0 && a < 0.01) return String.format(Locale.ROOT, "%.6f", v);
        if (a == Math.rint(a) && a < 1e15) return String.format(Locale.ROOT, "%d", v.longValue());
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** {@link #num} with a + before positive values; empty for none. */
    public static String signed(Double v) {
        if (v == null) return "";
        String s = num(v);
        return v > 0 ? "+" + s : s;
    }
}
