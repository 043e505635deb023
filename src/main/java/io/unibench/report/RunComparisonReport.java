package io.unibench.report;

import io.unibench.metrics.Interval;
import io.unibench.metrics.LevelName;
import io.unibench.metrics.MetricDelta;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code runs compare} as text, and the same tables for the compare page: one table per load level the baseline
 * shares with at least one other run, the baseline's figure, then per other run its figure, Δ% with the 95 %
 * interval and the verdict. The figures and verdicts come from {@code store.RunComparison}
 * ({@code metrics.SampleComparison}); this class only lays them out.
 */
public final class RunComparisonReport {
    private RunComparisonReport() {}

    /**
     * One run against the baseline.
     *
     * @param key           the run's letter (B, C, …)
     * @param label         the run in one line
     * @param rows          its rows, {@link MetricDelta#point()} the level key
     * @param onlyBaseline  level keys of the baseline it lacks
     * @param onlyCandidate its level keys the baseline lacks
     */
    public record Side(String key, String label, List<MetricDelta> rows, List<String> onlyBaseline,
                       List<String> onlyCandidate) {}

    /**
     * A table, cells formatted: the first column is text, the others figures.
     *
     * @param title the level key and how people read it
     */
    public record Grid(String title, List<String> header, List<List<String>> rows) {}

    /** The comparison as text: the runs, one table per shared level, the levels found on one side only. */
    public static String render(String baseline, List<Side> others, String method) {
        StringBuilder sb = new StringBuilder();
        sb.append("A (baseline): ").append(baseline).append('\n');
        for (Side s : others) sb.append(s.key()).append(": ").append(s.label()).append('\n');
        sb.append("Points matched by scenario and level (concurrency or request rate), not by provider or label.\n");
        sb.append("Δ = run − A in % of A, [95% interval]; verdict: ").append(method).append(".\n\n");
        List<Grid> grids = grids(others);
        for (Grid g : grids) {
            sb.append(g.title()).append('\n');
            TextTable.Align[] align = new TextTable.Align[g.header().size()];
            for (int i = 0; i < align.length; i++) align[i] = i == 0 ? TextTable.Align.LEFT : TextTable.Align.RIGHT;
            TextTable t = new TextTable(g.header(), align);
            for (List<String> row : g.rows()) t.row(row.toArray(String[]::new));
            sb.append(t.render()).append('\n');
        }
        if (grids.isEmpty()) sb.append("No level in common with A.\n");
        for (String n : notes(others)) sb.append(n).append('\n');
        return sb.toString();
    }

    /** The notes under the tables: levels on one side only, and what has no verdict. */
    public static List<String> notes(List<Side> others) {
        List<String> out = new ArrayList<>();
        for (Side s : others) {
            if (!s.onlyBaseline().isEmpty()) {
                out.add("Not compared: only in A, not in " + s.key() + ": " + String.join(", ", s.onlyBaseline()));
            }
            if (!s.onlyCandidate().isEmpty()) {
                out.add("Not compared: only in " + s.key() + ": " + String.join(", ", s.onlyCandidate()));
            }
        }
        out.add("n = successful requests with the metric, A/" + String.join("/", others.stream().map(Side::key)
                .toList()) + ". Rows without a verdict have one figure per run (no interval): repeat runs to judge them.");
        return out;
    }

    /** One table per level shared by the baseline and at least one other run, in the baseline's level order. */
    public static List<Grid> grids(List<Side> others) {
        Set<String> levels = new LinkedHashSet<>();
        for (Side s : others) for (MetricDelta r : s.rows()) levels.add(r.point());
        List<Grid> grids = new ArrayList<>();
        for (String level : levels) {
            List<String> header = new ArrayList<>(List.of("Metric", "n", "A"));
            for (Side s : others) {
                header.add(s.key());
                header.add("Δ " + s.key() + " [95%]");
                header.add(s.key() + " vs A");
            }
            // metric order: the first run's, then any other's
            Map<String, List<MetricDelta>> byMetric = new LinkedHashMap<>();
            for (int i = 0; i < others.size(); i++) {
                for (MetricDelta r : others.get(i).rows()) {
                    if (!r.point().equals(level)) continue;
                    List<MetricDelta> cells = byMetric.computeIfAbsent(r.metric(), m -> new ArrayList<>());
                    while (cells.size() < others.size()) cells.add(null);
                    cells.set(i, r);
                }
            }
            List<List<String>> rows = new ArrayList<>();
            for (Map.Entry<String, List<MetricDelta>> e : byMetric.entrySet()) {
                List<MetricDelta> cells = e.getValue();
                MetricDelta first = cells.stream().filter(x -> x != null).findFirst().orElseThrow();
                List<String> row = new ArrayList<>(List.of(e.getKey(), counts(first, cells), num(first.a())));
                for (MetricDelta c : cells) {
                    if (c == null) {
                        row.addAll(List.of("", "", ""));
                        continue;
                    }
                    row.add(num(c.b()));
                    row.add(delta(c));
                    row.add(c.why() != null ? c.verdict() + " (" + c.why() + ")" : c.verdict());
                }
                rows.add(row);
            }
            grids.add(new Grid(title(level), header, rows));
        }
        return grids;
    }

    /** A level key as a table's title: {@code chat/parallel_4 — concurrency 4}. */
    public static String title(String level) {
        String display = LevelName.display(LevelName.of(level));
        return display.equals(LevelName.of(level)) ? level : level + " — " + display;
    }

    private static String counts(MetricDelta first, List<MetricDelta> cells) {
        if (first.nA() == null) return "";
        StringBuilder sb = new StringBuilder(Long.toString(first.nA()));
        for (MetricDelta c : cells) sb.append('/').append(c == null || c.nB() == null ? "-" : Long.toString(c.nB()));
        return sb.toString();
    }

    /** Δ% and its interval in % of A ({@code +2.3% [-0.4%, +4.8%]}); the absolute Δ when A is 0. */
    static String delta(MetricDelta r) {
        if (r.delta() == null) return "";
        Interval ci = r.deltaIntervalPercent();
        if (r.deltaPercent() == null) {
            Interval abs = r.deltaInterval();
            return signed(r.delta()) + (abs == null ? "" : " [" + signed(abs.low()) + ", " + signed(abs.high()) + "]");
        }
        return pct(r.deltaPercent()) + (ci == null ? "" : " [" + pct(ci.low()) + ", " + pct(ci.high()) + "]");
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%+.1f%%", v);
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
