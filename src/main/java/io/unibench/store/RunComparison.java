package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.MetricDelta;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code runs compare A B}: every metric of every sweep point side by side, with the delta, which way is better,
 * and whether the delta is inside the run-to-run spread of repeated runs. Repeats are other finished runs with
 * the configuration key of A or of B (same target, model, load and generation settings); the spread of a metric
 * is the largest range (max − min) it had across the repeats of either configuration. A delta inside it is
 * noise as far as the history can tell.
 */
public final class RunComparison {
    /** Repeats looked at per configuration. */
    static final int MAX_REPEATS = 20;
    private static final List<String> PERCENTILE_COLUMNS =
            List.of(PercentileRow.LATENCY, PercentileRow.TTFT, PercentileRow.TPOT, PercentileRow.ITL);
    private static final List<String> PERCENTILE_LABELS = List.of("50%", "90%", "99%");

    /** The comparison: rows in point and metric order, the points found on one side only, repeat counts. */
    public record Result(StoredRun a, StoredRun b, List<MetricDelta> rows, List<String> unmatched, int repeatsA,
                         int repeatsB) {
        /** The document of {@code runs compare --json} and {@code GET /api/compare}. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("a", a.runId());
            m.put("b", b.runId());
            m.put("rows", rows);
            m.put("unmatched", unmatched);
            m.put("repeats_a", repeatsA);
            m.put("repeats_b", repeatsB);
            return m;
        }
    }

    private RunComparison() {}

    public static Result compare(RunStore store, StoredRun a, StoredRun b) throws SQLException {
        Map<String, Map<String, Double>> ma = metrics(store, a);
        Map<String, Map<String, Double>> mb = metrics(store, b);
        Set<String> except = Set.copyOf(List.of(a.runId(), b.runId())); // A may be B: Set.of would throw
        List<StoredRun> repeatsA = load(store, store.repeats(a.row().configKey(), except, MAX_REPEATS));
        List<StoredRun> repeatsB = a.row().configKey().equals(b.row().configKey()) ? List.of()
                : load(store, store.repeats(b.row().configKey(), except, MAX_REPEATS));
        List<Map<String, Map<String, Double>>> repA = new ArrayList<>();
        for (StoredRun r : repeatsA) repA.add(metrics(store, r));
        List<Map<String, Map<String, Double>>> repB = new ArrayList<>();
        for (StoredRun r : repeatsB) repB.add(metrics(store, r));

        List<MetricDelta> rows = new ArrayList<>();
        List<String> unmatched = new ArrayList<>();
        Set<String> labels = new LinkedHashSet<>(ma.keySet());
        labels.addAll(mb.keySet());
        for (String label : labels) {
            Map<String, Double> pa = ma.get(label);
            Map<String, Double> pb = mb.get(label);
            if (pa == null || pb == null) {
                unmatched.add(label + " (only in " + (pa == null ? "B" : "A") + ")");
                continue;
            }
            Set<String> names = new LinkedHashSet<>(pa.keySet());
            names.addAll(pb.keySet());
            for (String metric : names) {
                Double va = pa.get(metric);
                Double vb = pb.get(metric);
                MetricDelta.Direction dir = MetricDelta.direction(metric);
                Double delta = va != null && vb != null ? vb - va : null;
                Double pct = delta != null && va != 0 ? 100 * delta / Math.abs(va) : null;
                Spread sa = spread(repA, label, metric);
                Spread sb = spread(repB, label, metric);
                Spread s = sa.range == null ? sb : sb.range == null ? sa : sa.range >= sb.range ? sa : sb;
                boolean inSpread = delta != null && s.range != null && Math.abs(delta) <= s.range;
                rows.add(new MetricDelta(label, metric, va, vb, delta, pct, dir, MetricDelta.verdict(dir, delta),
                        s.range, s.count, inSpread));
            }
        }
        return new Result(a, b, rows, unmatched, repeatsA.size(), repeatsB.size());
    }

    private record Spread(Double range, int count) {}

    private static Spread spread(List<Map<String, Map<String, Double>>> repeats, String label, String metric) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        int n = 0;
        for (Map<String, Map<String, Double>> r : repeats) {
            Map<String, Double> p = r.get(label);
            Double v = p == null ? null : p.get(metric);
            if (v == null) continue;
            min = Math.min(min, v);
            max = Math.max(max, v);
            n++;
        }
        return n >= 2 ? new Spread(max - min, n) : new Spread(null, n);
    }

    private static List<StoredRun> load(RunStore store, List<RunRow> rows) throws SQLException {
        List<StoredRun> runs = new ArrayList<>();
        for (RunRow r : rows) runs.add(store.run(r.runId()));
        return runs;
    }

    /** label → metric → value: the numeric summary keys, then p50/p90/p99 of the latency columns. */
    static Map<String, Map<String, Double>> metrics(RunStore store, StoredRun run) throws SQLException {
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        for (StoredPoint p : run.points()) {
            JsonNode summary = p.summary();
            JsonNode percentiles = p.percentiles();
            if (summary == null) {
                // a point still running (or cut short and not yet recovered): compute from its stored requests
                RunMetrics metrics = new RunMetrics();
                store.replay(run.runId(), p.index(), metrics::accept);
                if (metrics.total() == 0) continue;
                RunResult r = metrics.result(p.info());
                summary = ResultJson.read(ResultJson.summary(r, Map.of()));
                percentiles = ResultJson.read(ResultJson.percentiles(r));
            }
            Map<String, Double> m = new LinkedHashMap<>();
            summary.properties().forEach(e -> {
                if (e.getValue().isNumber()) m.put(e.getKey(), e.getValue().asDouble());
            });
            if (percentiles != null) {
                for (String column : PERCENTILE_COLUMNS) {
                    for (JsonNode row : percentiles) {
                        String label = row.path(PercentileRow.PERCENTILES).asText();
                        if (PERCENTILE_LABELS.contains(label) && row.hasNonNull(column)) {
                            m.put("p" + label.replace("%", "") + " " + column, row.get(column).asDouble());
                        }
                    }
                }
            }
            out.put(p.label(), m);
        }
        return out;
    }
}
