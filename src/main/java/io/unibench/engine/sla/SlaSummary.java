package io.unibench.engine.sla;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * {@code sla_summary.json}'s content, the same for {@code perf --sla-auto-tune} and a scenario file's
 * {@code sla_auto_tune}: evalscope's keys per probe value, then ours (the runs' spread, the group verdicts, the
 * selections).
 */
public final class SlaSummary {
    private SlaSummary() {}

    /** evalscope's {@code {"<var>_<val>": averaged result}}, with the runs' spread and the group verdicts (ours). */
    public static Map<String, Object> json(SlaTuning t, SlaParams params) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (ProbeResult p : t.probes()) {
            Map<String, Object> probe = new LinkedHashMap<>();
            probe.put("metrics", averaged(p.runs().stream().map(r -> r.summary().toMap()).toList()));
            probe.put("percentiles", averagedRows(p.runs()));
            probe.put("runs", p.runs().size());
            probe.put("succeeded_requests", p.succeededRequests());
            probe.put("total_requests", p.totalRequests());
            Map<String, Object> metrics = new LinkedHashMap<>();
            for (SlaMetric metric : metrics(params)) {
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("mean", p.mean(metric));
                v.put("min", p.min(metric));
                v.put("max", p.max(metric));
                v.put("unit", metric.time() ? "ms" : metric == SlaMetric.TPS ? "tok/s" : "req/s");
                metrics.put(metric.key(), v);
            }
            probe.put("sla_metrics", metrics);
            Map<String, Object> groups = new LinkedHashMap<>();
            for (int g = 0; g < params.groups().size(); g++) {
                List<SlaCriterion> group = params.groups().get(g);
                Map<String, Object> verdict = new LinkedHashMap<>();
                verdict.put("passed", p.passes(group));
                verdict.put("within_spread", p.undecided(group).stream().map(c -> c.metric().key()).toList());
                groups.put(Integer.toString(g + 1), verdict);
            }
            probe.put("groups", groups);
            m.put(t.variable() + "_" + p.value(), probe);
        }
        List<Map<String, Object>> selections = new ArrayList<>();
        for (SlaTuning.Selection s : t.selections()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("criteria", s.criteria());
            row.put("variable", t.variable());
            row.put("max_satisfied", s.maxSatisfied());
            row.put("note", s.note());
            selections.add(row);
        }
        m.put("selections", selections);
        if (t.stopped()) m.put("status", "stopped: the search ended early");
        return m;
    }

    /** The metrics the criteria name, each once. */
    public static List<SlaMetric> metrics(SlaParams params) {
        LinkedHashSet<SlaMetric> set = new LinkedHashSet<>();
        params.groups().forEach(g -> g.forEach(c -> set.add(c.metric())));
        return List.copyOf(set);
    }

    /** Numbers averaged over the runs; anything else (labels, sources) from the first run. */
    private static Map<String, Object> averaged(List<Map<String, Object>> maps) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : maps.get(0).keySet()) {
            double sum = 0;
            boolean numeric = true;
            for (Map<String, Object> m : maps) {
                if (m.get(key) instanceof Number n) sum += n.doubleValue();
                else numeric = false;
            }
            out.put(key, numeric ? sum / maps.size() : maps.get(0).get(key));
        }
        return out;
    }

    private static List<Map<String, Object>> averagedRows(List<RunResult> runs) {
        List<List<Map<String, Object>>> tables = runs.stream().map(r -> PercentileRow.toMaps(r.percentiles())).toList();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < tables.get(0).size(); i++) {
            int row = i;
            if (tables.stream().anyMatch(t -> t.size() <= row)) break;
            rows.add(averaged(tables.stream().map(t -> t.get(row)).toList()));
        }
        return rows;
    }

}
