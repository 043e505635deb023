package io.unibench.cli;

import io.unibench.OutputFailedException;

import io.unibench.engine.LoadPlan;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.Sla;
import io.unibench.engine.StopSignal;
import io.unibench.engine.sla.ProbeResult;
import io.unibench.engine.sla.SlaCriterion;
import io.unibench.engine.sla.SlaMetric;
import io.unibench.engine.sla.SlaParams;
import io.unibench.engine.sla.SlaSummary;
import io.unibench.engine.sla.SlaTuner;
import io.unibench.engine.sla.SlaTuning;
import io.unibench.metrics.RunResult;
import io.unibench.output.EvalscopeFiles;
import io.unibench.report.TextTable;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * {@code perf --sla-auto-tune}: the {@link SlaTuner} driving whatever runs one point of {@code perf} (the
 * {@link PointRunner} the command hands in), its files ({@code sla_tuning/sla_VAR_VAL_run_I/}, {@code
 * sla_summary.json}) and its tables.
 */
final class SlaAutoTune {
    /** Runs one measured point with its files in {@code runDir}; {@code first} is the run's first point. */
    @FunctionalInterface
    interface PointRunner {
        RunResult run(LoadPlan plan, long datasetOffset, Path runDir, boolean first) throws Exception;
    }

    /**
     * @param results every probe run, in the order run (for the per-point tables)
     * @param report  the "SLA Auto-tune Summary" and the probes' table, to print after the per-point report
     */
    /** @param failure {@code sla_summary.json} could not be written (the run still reports what it measured); or null */
    record Outcome(List<RunResult> results, SlaTuning tuning, String report, OutputFailedException failure) {}

    public static final String SUMMARY_FILE = "sla_summary.json";

    private SlaAutoTune() {}

    /** Told where the search is as each probe run starts, and the run's requests. */
    interface ProbeListener {
        void starting(SlaTuner.Progress where, int requests);
    }

    static Outcome run(RunSpec spec, PrintWriter err, StopSignal stop, BooleanSupplier halted, PointRunner point,
                       ProbeListener listener) throws Exception {
        Sla sla = spec.sla();
        Path root = spec.outputs().root();
        SlaParams params = sla.params();
        params.notes().forEach(err::println);
        String variable = sla.variable().name();
        List<RunResult> results = new ArrayList<>();
        long[] offset = {spec.workloads().get(sla.workload()).options().offset()};
        SlaTuner tuner = new SlaTuner(variable, params, sla.lower(), sla.upper(), sla.runs(), (value, run) -> {
            if (!results.isEmpty() && !sla.pause().isZero()
                    && stop.awaitUntil(System.nanoTime() + sla.pause().toNanos())) {
                return null;
            }
            LoadPlan plan = sla.plan(value);
            RunResult r = point.run(plan, offset[0], root.resolve("sla_tuning")
                    .resolve("sla_" + variable + "_" + value + "_run_" + run), results.isEmpty());
            results.add(r);
            offset[0] += plan.number();
            return halted.getAsBoolean() ? null : r;
        });
        int start = sla.start();
        SlaTuning tuning = tuner.tune(start, where -> {
            int number = sla.number(where.value());
            err.println("SLA auto-tune " + where.describe() + " (" + number + " requests)");
            listener.starting(where, number);
        });
        OutputFailedException failure = null;
        try {
            EvalscopeFiles.writeJson(root.resolve(SUMMARY_FILE), SlaSummary.json(tuning, params));
        } catch (OutputFailedException e) { // a file in the way, a full disk: the report still follows, exit 5
            failure = e;
        }
        return new Outcome(results, tuning, tables(tuning, params), failure);
    }

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
