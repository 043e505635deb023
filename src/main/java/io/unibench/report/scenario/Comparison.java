package io.unibench.report.scenario;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.TokenPrice;

import java.util.ArrayList;
import java.util.List;

/**
 * The provider comparison of one scenario, like with like: first one table per concurrency level that every
 * provider ran (success rate, TTFT and latency percentiles, output tok/s and cost at that level), then an overall
 * verdict built from them. Pooling every level's requests first would not compare like with like: with time-held
 * levels the faster provider sends more requests at its high-concurrency levels, so its pooled percentiles lean
 * towards its slowest level.
 *
 * <p>Overall, per column: the best provider is the one best at the most common levels (ties all marked); the figure
 * is the mean of its per-level figures, each level weighing the same however many requests it held. Peak tok/s is
 * the highest level's output tok/s, compared by value. Per level, the best value of a column is marked (lowest
 * latency and cost, highest success and throughput; ties all marked).
 */
public final class Comparison {

    /**
     * A column: its title, whether higher is better, and a value per row (NaN = not available).
     *
     * @param wins per row, the levels at which it was best; {@code null} when the best is decided by value
     */
    public record Column(String title, boolean higherIsBetter, int decimals, double[] values, int[] wins) {
        public Column(String title, boolean higherIsBetter, int decimals, double[] values) {
            this(title, higherIsBetter, decimals, values, null);
        }

        /** True when row {@code i} is the best of the column (and there is something to compare). */
        public boolean best(int i) {
            if (wins != null) {
                int most = 0;
                for (int w : wins) most = Math.max(most, w);
                return most > 0 && wins[i] == most;
            }
            if (Double.isNaN(values[i])) return false;
            for (double v : values) {
                if (!Double.isNaN(v) && (higherIsBetter ? v > values[i] : v < values[i])) return false;
            }
            return true;
        }
    }

    /**
     * @param levels   the concurrency levels every provider ran: what is compared
     * @param perLevel one table per level in {@code levels} (each with empty {@code levels}/{@code perLevel})
     */
    public record Table(String scenario, List<String> providers, List<Column> columns, List<Integer> levels,
                        List<Table> perLevel) {}

    private static final String[] POINTS = {"50%", "95%", "99%"};

    private Comparison() {}

    public static Table of(String scenario, List<ScenarioResults.Series> series) {
        List<String> names = series.stream().map(s -> s.provider().name()).toList();
        List<Integer> common = commonLevels(series);
        List<Table> perLevel = new ArrayList<>();
        for (int level : common) {
            List<ScenarioResults.Level> at = series.stream().map(s -> levelOf(s, level)).toList();
            perLevel.add(new Table(scenario, names, columns(series, at), List.of(), List.of()));
        }
        List<Column> overall = new ArrayList<>();
        if (!perLevel.isEmpty()) {
            List<Column> template = perLevel.getFirst().columns();
            for (int c = 0; c < template.size(); c++) overall.add(overall(perLevel, c));
            overall.add(peak(series, common));
        }
        return new Table(scenario, names, overall, common, perLevel);
    }

    /** The levels every series ran, in the first series' order. */
    private static List<Integer> commonLevels(List<ScenarioResults.Series> series) {
        if (series.isEmpty()) return List.of();
        List<Integer> common = new ArrayList<>();
        for (ScenarioResults.Level l : series.getFirst().levels()) {
            // open-loop and searched levels are compared in each series' own table, not here
            if (l.closedLoop() && series.stream().allMatch(s -> levelOf(s, l.concurrency()) != null)) {
                common.add(l.concurrency());
            }
        }
        return common;
    }

    private static ScenarioResults.Level levelOf(ScenarioResults.Series s, int concurrency) {
        for (ScenarioResults.Level l : s.levels()) if (l.closedLoop() && l.concurrency() == concurrency) return l;
        return null;
    }

    /** One level's columns: row i is series i at that level. */
    private static List<Column> columns(List<ScenarioResults.Series> series, List<ScenarioResults.Level> at) {
        int n = series.size();
        double[] success = new double[n];
        double[][] ttft = new double[3][n];
        double[][] latency = new double[3][n];
        double[] tok = new double[n];
        double[] per1k = new double[n];
        double[] perM = new double[n];
        for (int i = 0; i < n; i++) {
            ScenarioResults.Level l = at.get(i);
            RunResult r = l.result();
            Double rate = r.summary().requests().successRatePercent();
            success[i] = rate == null ? Double.NaN : rate;
            for (int p = 0; p < 3; p++) {
                ttft[p][i] = nan(r.percentile(POINTS[p], PercentileRow.TTFT));
                Double lat = r.percentile(POINTS[p], PercentileRow.LATENCY);
                latency[p][i] = lat == null ? Double.NaN : lat * 1000;
            }
            double out = r.summary().throughput().outputThroughput();
            tok[i] = out >= 0 ? out : Double.NaN;
            TokenPrice price = series.get(i).provider().price();
            per1k[i] = l.tokens().per1000Requests(price);
            perM[i] = l.tokens().perMillionOutput(price);
        }
        List<Column> columns = new ArrayList<>(List.of(
                new Column("Success %", true, 1, success),
                new Column("TTFT p50 (ms)", false, 1, ttft[0]),
                new Column("TTFT p95 (ms)", false, 1, ttft[1]),
                new Column("TTFT p99 (ms)", false, 1, ttft[2]),
                new Column("Latency p50 (ms)", false, 1, latency[0]),
                new Column("Latency p95 (ms)", false, 1, latency[1]),
                new Column("Latency p99 (ms)", false, 1, latency[2]),
                new Column("Output tok/s", true, 1, tok)));
        if (series.stream().anyMatch(s -> s.provider().price() != null)) {
            // priced with the client's token counts where a server sent no usage: the titles say so
            String est = series.stream().anyMatch(s -> s.provider().price() != null && s.tokens().estimated())
                    ? " (estimated)" : "";
            columns.add(new Column("Cost / 1k req" + est, false, 4, per1k));
            columns.add(new Column("Cost / 1M out tok" + est, false, 4, perM));
        }
        return columns;
    }

    /** Column {@code c} over the levels: mean figure, levels won. */
    private static Column overall(List<Table> perLevel, int c) {
        Column first = perLevel.getFirst().columns().get(c);
        int n = first.values().length;
        double[] mean = new double[n];
        int[] wins = new int[n];
        for (Table t : perLevel) {
            Column col = t.columns().get(c);
            for (int i = 0; i < n; i++) {
                mean[i] += col.values()[i] / perLevel.size();
                if (col.best(i)) wins[i]++;
            }
        }
        return new Column(first.title(), first.higherIsBetter(), first.decimals(), mean, wins);
    }

    /** The highest output tok/s over the common levels: each provider's capacity on the same levels. */
    private static Column peak(List<ScenarioResults.Series> series, List<Integer> common) {
        double[] peak = new double[series.size()];
        for (int i = 0; i < peak.length; i++) {
            ScenarioResults.Series s = series.get(i);
            peak[i] = common.stream().mapToDouble(level -> levelOf(s, level).result().summary().throughput().outputThroughput())
                    .filter(v -> v >= 0).max().orElse(Double.NaN);
        }
        return new Column("Peak tok/s", true, 1, peak);
    }

    /**
     * The sentence under a comparison whose costs rest partly on the client's token counts, naming each provider
     * and how many of its priced requests carried no usage; null when every count was the server's.
     */
    public static String estimatedCostNote(List<ScenarioResults.Series> series) {
        List<String> parts = new ArrayList<>();
        for (ScenarioResults.Series s : series) {
            if (s.provider().price() == null || !s.tokens().estimated()) continue;
            parts.add(s.provider().name() + " " + s.tokens().estimatedRequests() + " of " + s.tokens().requests());
        }
        if (parts.isEmpty()) return null;
        return "Cost is estimated: the server sent no usage for some requests (" + String.join(", ", parts)
                + "), whose token counts are the client's (its tokenizer or a character estimate), not what it bills.";
    }

    private static double nan(Double v) {
        return v == null ? Double.NaN : v;
    }
}
