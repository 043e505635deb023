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

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The SLA auto-tune's search, the one for {@code perf --sla-auto-tune}, a spec's {@code sla} and a scenario file's
 * {@code sla_auto_tune} (a spec's search per provider × scenario): the {@link SlaTuner} choosing each probe from the results so
 * far, every probe a point of one session, the pause before every probe but the session's first, and
 * {@code sla_summary.json} at the end.
 */
public final class SlaSearch {
    public static final String SUMMARY_FILE = "sla_summary.json";

    /**
     * What the search found.
     *
     * @param failure {@code sla_summary.json} could not be written (the run still reports what it measured); or null
     */
    public record Searched(SlaTuning tuning, SlaParams params, OutputFailedException failure) {}

    /** Runs a probe: value {@code value}'s run {@code run} (1-based) at {@code plan}, as the session's next point. */
    @FunctionalInterface
    public interface Probe {
        RunResult run(int value, int run, LoadPlan plan) throws Exception;
    }

    private SlaSearch() {}

    /**
     * Searches {@code sla}'s variable from its start through {@code probes}; {@code starting} is told where the search
     * is as each probe run starts; {@code sla_summary.json} goes into {@code dir} (made if missing). Ends early, with
     * the values run, when the session ends.
     */
    static Searched search(Sla sla, SessionState probes, StopSignal stop, Probe probe,
                                  Consumer<SlaTuner.Progress> starting, Path dir) throws Exception {
        SlaTuner tuner = new SlaTuner(sla.variable().name(), sla.params(), sla.lower(), sla.upper(), sla.runs(),
                (value, run) -> {
                    if (probes.pointsRun() > 0 && !sla.pause().isZero()
                            && stop.awaitUntil(System.nanoTime() + sla.pause().toNanos())) {
                        return null;
                    }
                    RunResult r = probe.run(value, run, sla.plan(value));
                    return probes.ended() ? null : r;
                });
        SlaTuning tuning = tuner.tune(sla.start(), starting::accept);
        OutputFailedException failure = null;
        try {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new OutputFailedException(dir, e);
            }
            EvalscopeFiles.writeJson(dir.resolve(SUMMARY_FILE), SlaSummary.json(tuning, sla.params()));
        } catch (OutputFailedException e) { // a file in the way, a full disk: the report still follows, exit 5
            failure = e;
        }
        return new Searched(tuning, sla.params(), failure);
    }

    /**
     * The spec's searches, one after another in one session, until it ends or an {@code sla_summary.json} cannot be
     * written (the search's levels are measured and kept: the run ends there). In the {@code points} layout
     * ({@code perf}'s) probes are labelled as plans, their files in {@code ROOT/sla_tuning/…}, the summary in
     * {@code ROOT}; in the {@code series} layout (a scenario file's) each probe is a level of its series labelled
     * {@code TARGET/WORKLOAD/sla_tuning/sla_VAR_VAL_run_I}, the summary in the series' folder, and each search's
     * lines name its series and end with what it found.
     */
    static List<Searched> run(RunSpec spec, SpecPoints points, SessionState probes, StopSignal stop,
                              PrintWriter err) throws Exception {
        boolean series = spec.outputs().layout() == RunSpec.Layout.series;
        Path root = spec.outputs().root();
        spec.sla().stream().flatMap(s -> s.params().notes().stream()).distinct().forEach(err::println);
        List<Searched> found = new ArrayList<>();
        for (Sla sla : spec.sla()) {
            if (probes.ended()) break;
            int t = sla.target(), w = sla.workload();
            String name = spec.targets().get(t).name() + "/" + spec.workloads().get(w).name();
            String prefix = series ? "[" + name + "] SLA auto-tune " : "SLA auto-tune ";
            String variable = sla.variable().name();
            Searched searched = search(sla, probes, stop, (value, run, plan) -> {
                String probe = "sla_tuning/sla_" + variable + "_" + value + "_run_" + run;
                if (!series) points.nextDir(root.resolve(probe));
                return probes.run(new RunSpec.Point(series ? name + "/" + probe : plan.label(), t, w, plan,
                        Duration.ZERO));
            }, where -> {
                int number = sla.number(where.value());
                err.println(prefix + where.describe() + " (" + number + " requests)");
                err.flush();
                probes.searching(series ? prefix + where.describe() : where.describe());
                if (points.progressFile() != null) points.progressFile().probe(where, number);
            }, series ? SpecPoints.seriesDir(spec, t, w) : root);
            found.add(searched);
            if (series) {
                for (SlaTuning.Selection sel : searched.tuning().selections()) {
                    err.println("[" + name + "] SLA auto-tune: " + sel.criteria() + " → max " + variable + " "
                            + (sel.maxSatisfied() == null ? "none" : sel.maxSatisfied())
                            + (sel.note() == null || sel.note().isEmpty() ? "" : " (" + sel.note() + ")"));
                }
                err.flush();
            }
            if (searched.failure() != null) break;
        }
        return found;
    }
}
