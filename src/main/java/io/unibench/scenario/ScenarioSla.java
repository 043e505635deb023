package io.unibench.scenario;

import io.unibench.engine.ArrivalShape;
import io.unibench.engine.SpecPoints;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.SlaSearch;
import io.unibench.engine.StopSignal;
import io.unibench.engine.sla.SlaTuning;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.Sla;

import java.io.PrintWriter;
import java.time.Duration;

/**
 * A scenario file's {@code sla_auto_tune}: for every provider × scenario, the engine's search ({@link SlaSearch}, the
 * one {@code perf --sla-auto-tune} runs: the same defaults, request counts and plans) in one session, each probe a
 * level of the series labelled {@code provider/scenario/sla_tuning/sla_VAR_VAL_run_I} (its files in that folder),
 * and the series' {@code sla_summary.json} beside its levels.
 */
final class ScenarioSla {
    private ScenarioSla() {}

    /** The file's search over target {@code target} × workload {@code workload}, as the engine's {@link Sla}. */
    static Sla sla(BenchConfig config, int target, int workload) {
        BenchConfig.SlaTune t = config.loads().sla();
        return new Sla(t.tunesRate() ? Sla.Variable.rate : Sla.Variable.parallel, t.params(), t.lowerBound(),
                t.lowerBound(), t.upperBound(), t.numRuns(), t.fixedParallel(), t.numberMultiplier(), 0, null, false,
                ArrivalShape.POISSON, Duration.ofNanos((long) (config.sleepBetweenLevelsSec() * 1e9)), target, workload);
    }

    /** Tunes every series through {@code session}; stops with it. */
    static SessionRunner.Result run(BenchConfig config, RunSpec spec, SessionRunner.Session session, StopSignal stop,
                                    PrintWriter progress) throws Exception {
        config.loads().sla().params().notes().forEach(progress::println);
        io.unibench.OutputFailedException failed = null; // sla_summary.json could not be written: the report still is
        for (int p = 0; p < config.providers().size() && !session.ended() && failed == null; p++) {
            for (int s = 0; s < config.scenarios().size() && !session.ended() && failed == null; s++) {
                BenchConfig.Provider provider = config.providers().get(p);
                BenchConfig.Scenario scenario = config.scenarios().get(s);
                Sla sla = sla(config, p, s);
                int target = p, workload = s;
                String series = "[" + provider.name() + "/" + scenario.name() + "] SLA auto-tune ";
                SlaSearch.Searched searched = SlaSearch.search(sla, session, stop, (value, run, plan) ->
                        session.run(new RunSpec.Point(ScenarioSpec.label(provider, scenario, "sla_tuning/sla_"
                                + sla.variable() + "_" + value + "_run_" + run), target, workload, plan, Duration.ZERO)), where -> {
                    session.searching(series + where.describe());
                    progress.println(series + where.describe() + " (" + sla.number(where.value()) + " requests)");
                    progress.flush();
                }, SpecPoints.seriesDir(spec, p, s));
                failed = searched.failure(); // the search's levels are measured and kept: end here, as perf's search
                for (SlaTuning.Selection sel : searched.tuning().selections()) {
                    progress.println("[" + provider.name() + "/" + scenario.name() + "] SLA auto-tune: " + sel.criteria()
                            + " → max " + sla.variable() + " " + (sel.maxSatisfied() == null ? "none" : sel.maxSatisfied())
                            + (sel.note() == null || sel.note().isEmpty() ? "" : " (" + sel.note() + ")"));
                }
                progress.flush();
            }
        }
        SessionRunner.Result result = session.finish();
        return failed == null ? result : new SessionRunner.Result(result.points(), result.checks(),
                io.unibench.engine.live.RunStatus.FAILED, failed, null);
    }
}
