package io.unibench.report.scenario;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.scenario.ScenarioResults;

import java.util.ArrayList;
import java.util.List;

/**
 * The provider comparison of one scenario: per provider, over all its levels, success rate, TTFT and latency
 * percentiles, peak output tok/s and cost; for every column the best provider is marked (lowest latency and cost,
 * highest success and throughput). Ties are all marked.
 */
public final class Comparison {

    /** A column: its title, whether higher is better, and a value per row (NaN = not available). */
    public record Column(String title, boolean higherIsBetter, int decimals, double[] values) {
        /** True when row {@code i} holds the best value of the column (and there is something to compare). */
        public boolean best(int i) {
            if (Double.isNaN(values[i])) return false;
            for (double v : values) {
                if (!Double.isNaN(v) && (higherIsBetter ? v > values[i] : v < values[i])) return false;
            }
            return true;
        }
    }

    public record Table(String scenario, List<String> providers, List<Column> columns) {}

    private Comparison() {}

    public static Table of(String scenario, List<ScenarioResults.Series> series) {
        int n = series.size();
        List<String> names = new ArrayList<>();
        double[] success = new double[n];
        double[][] ttft = new double[3][n];
        double[][] latency = new double[3][n];
        double[] tok = new double[n];
        double[] per1k = new double[n];
        double[] perM = new double[n];
        String[] points = {"50%", "95%", "99%"};
        for (int i = 0; i < n; i++) {
            ScenarioResults.Series s = series.get(i);
            names.add(s.provider().name());
            RunResult all = s.overall();
            Double rate = all.summary().successRatePercent();
            success[i] = rate == null ? Double.NaN : rate;
            for (int p = 0; p < 3; p++) {
                ttft[p][i] = nan(all.percentile(points[p], PercentileRow.TTFT));
                Double lat = all.percentile(points[p], PercentileRow.LATENCY);
                latency[p][i] = lat == null ? Double.NaN : lat * 1000;
            }
            tok[i] = s.peakOutputThroughput();
            per1k[i] = s.tokens().per1000Requests(s.provider().price());
            perM[i] = s.tokens().perMillionOutput(s.provider().price());
        }
        List<Column> columns = new ArrayList<>(List.of(
                new Column("Success %", true, 1, success),
                new Column("TTFT p50 (ms)", false, 1, ttft[0]),
                new Column("TTFT p95 (ms)", false, 1, ttft[1]),
                new Column("TTFT p99 (ms)", false, 1, ttft[2]),
                new Column("Latency p50 (ms)", false, 1, latency[0]),
                new Column("Latency p95 (ms)", false, 1, latency[1]),
                new Column("Latency p99 (ms)", false, 1, latency[2]),
                new Column("Peak tok/s", true, 1, tok)));
        if (series.stream().anyMatch(s -> s.provider().price() != null)) {
            // priced with the client's token counts where a server sent no usage: the titles say so
            String est = series.stream().anyMatch(s -> s.provider().price() != null && s.tokens().estimated())
                    ? " (estimated)" : "";
            columns.add(new Column("Cost / 1k req" + est, false, 4, per1k));
            columns.add(new Column("Cost / 1M out tok" + est, false, 4, perM));
        }
        return new Table(scenario, names, columns);
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
