package io.unibench.engine;

import io.unibench.OutputFailedException;
import io.unibench.engine.sla.SlaParams;
import io.unibench.engine.sla.SlaSummary;
import io.unibench.engine.sla.SlaTuner;
import io.unibench.engine.sla.SlaTuning;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.Sla;
import io.unibench.metrics.RunResult;
import io.unibench.output.EvalscopeFiles;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A spec's SLA auto-tune ({@code perf --sla-auto-tune}, a spec's {@code sla}): the {@link SlaTuner} choosing each
 * probe from the results so far, every probe a point of one session with its files in
 * {@code sla_tuning/sla_VAR_VAL_run_I/}, the search's state in the start events and {@code progress.json}, and
 * {@code sla_summary.json} at the end.
 */
public final class SlaSearch {
    static final String SUMMARY_FILE = "sla_summary.json";

    /**
     * What the search found.
     *
     * @param failure {@code sla_summary.json} could not be written (the run still reports what it measured); or null
     */
    public record Searched(SlaTuning tuning, SlaParams params, OutputFailedException failure) {}

    private SlaSearch() {}

    static Searched run(RunSpec spec, SpecPoints points, SessionRunner.Session probes, StopSignal stop,
                        PrintWriter err) throws Exception {
        Sla sla = spec.sla();
        Path root = spec.outputs().root();
        SlaParams params = sla.params();
        params.notes().forEach(err::println);
        String variable = sla.variable().name();
        boolean[] first = {true};
        SlaTuner tuner = new SlaTuner(variable, params, sla.lower(), sla.upper(), sla.runs(), (value, run) -> {
            if (!first[0] && !sla.pause().isZero() && stop.awaitUntil(System.nanoTime() + sla.pause().toNanos())) {
                return null;
            }
            first[0] = false;
            LoadPlan plan = sla.plan(value);
            points.nextDir(root.resolve("sla_tuning").resolve("sla_" + variable + "_" + value + "_run_" + run));
            RunResult r = probes.run(new RunSpec.Point(plan.label(), 0, 0, plan, Duration.ZERO));
            return probes.ended() ? null : r;
        });
        SlaTuning tuning = tuner.tune(sla.start(), where -> {
            int number = sla.number(where.value());
            err.println("SLA auto-tune " + where.describe() + " (" + number + " requests)");
            probes.searching(where.describe());
            if (points.progressFile() != null) points.progressFile().probe(where, number);
        });
        OutputFailedException failure = null;
        try {
            EvalscopeFiles.writeJson(root.resolve(SUMMARY_FILE), SlaSummary.json(tuning, params));
        } catch (OutputFailedException e) { // a file in the way, a full disk: the report still follows, exit 5
            failure = e;
        }
        return new Searched(tuning, params, failure);
    }
}
