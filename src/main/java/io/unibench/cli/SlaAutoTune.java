package io.unibench.cli;

import io.unibench.engine.sla.ProbeResult;
import io.unibench.engine.sla.SlaCriterion;
import io.unibench.engine.sla.SlaMetric;
import io.unibench.engine.sla.SlaParams;
import io.unibench.engine.sla.SlaSummary;
import io.unibench.engine.sla.SlaTuning;
import io.unibench.report.TextTable;

import java.util.ArrayList;
import java.util.List;

/** {@code perf --sla-auto-tune}'s tables: the search's summary and its probes (the search is the engine's). */
final class SlaAutoTune {
    private SlaAutoTune() {}

    static String tables(SlaTuning t, SlaParams params) {
        StringBuilder sb = new StringBuilder();
        TextTable summary = new TextTable(List.of("Criteria", "Variable", "Max Satisfied", "Note"),
                TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.RIGHT, TextTable.Align.LEFT);
        for (SlaTuning.Selection s : t.selections()) {
            summary.row(s.criteria(), t.variable(), s.maxSatisfied() == null ? "None" : s.maxSatisfied().toString(),
                    s.note());
        }
        List<SlaMetric> metrics = SlaSummary.metrics(params);
        List<String> header = new ArrayList<>(List.of(t.variable(), "Runs", "Succeeded/Total"));
        for (int g = 1; g <= params.groups().size(); g++) header.add("Group " + g);
        metrics.forEach(m -> header.add(m.key() + " (mean, min–max)"));
        TextTable.Align[] align = new TextTable.Align[header.size()];
        java.util.Arrays.fill(align, TextTable.Align.RIGHT);
        TextTable probes = new TextTable(header, align);
        for (ProbeResult p : t.probes()) {
            List<String> cells = new ArrayList<>(List.of(Integer.toString(p.value()), Integer.toString(p.runs().size()),
                    p.succeededRequests() + "/" + p.totalRequests()));
            for (List<SlaCriterion> group : params.groups()) {
                cells.add((p.passes(group) ? "PASS" : "FAIL") + (p.undecided(group).isEmpty() ? "" : " (spread)"));
            }
            for (SlaMetric m : metrics) {
                Double mean = p.mean(m);
                cells.add(mean == null ? "-" : m.format(mean) + (p.runs().size() > 1
                        ? " (" + m.format(p.min(m)) + "–" + m.format(p.max(m)) + ")" : ""));
            }
            probes.row(cells.toArray(String[]::new));
        }
        sb.append("SLA Auto-tune Summary\n").append(summary.render()).append('\n');
        sb.append("SLA Probes (").append(t.variable()).append(")\n").append(probes.render());
        if (t.stopped()) sb.append("Note: the search was stopped; the selections above are of the values run.\n");
        return sb.toString();
    }
}
