package io.unibench.scenario;

import io.unibench.engine.LoadPlan;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.sla.SlaSummary;
import io.unibench.engine.sla.SlaTuner;
import io.unibench.engine.sla.SlaTuning;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunResult;
import io.unibench.output.EvalscopeFiles;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A scenario file's {@code sla_auto_tune}: for every provider × scenario, {@code perf --sla-auto-tune}'s search
 * ({@link SlaTuner}, the same defaults, request counts and plans) run in one session, each probe a level of the
 * series labelled {@code provider/scenario/sla_tuning/sla_VAR_VAL_run_I} (its files in that folder), and the
 * series' {@code sla_summary.json} beside its levels.
 */
final class ScenarioSla {
    static final String SUMMARY_FILE = "sla_summary.json";

    private ScenarioSla() {}

    /** Tunes every series through {@code session}; stops with it. */
    static SessionRunner.Result run(BenchConfig config, RunSpec spec, SessionRunner.Session session, StopSignal stop,
                                    PrintWriter progress) throws Exception {
        BenchConfig.SlaTune sla = config.loads().sla();
        sla.params().notes().forEach(progress::println);
        long pauseNanos = (long) (config.sleepBetweenLevelsSec() * 1e9);
        boolean[] first = {true};
        io.unibench.OutputFailedException failed = null; // sla_summary.json could not be written: the report still is
        for (int p = 0; p < config.providers().size() && !session.ended() && failed == null; p++) {
            for (int s = 0; s < config.scenarios().size() && !session.ended() && failed == null; s++) {
                BenchConfig.Provider provider = config.providers().get(p);
                BenchConfig.Scenario scenario = config.scenarios().get(s);
                int target = p, workload = s;
                SlaTuner tuner = new SlaTuner(sla.variable(), sla.params(), sla.lowerBound(), sla.upperBound(),
                        sla.numRuns(), (value, run) -> {
                    if (!first[0] && pauseNanos > 0 && stop.awaitUntil(System.nanoTime() + pauseNanos)) return null;
                    first[0] = false;
                    int number = sla.number(value);
                    LoadPlan plan = sla.tunesRate() ? new LoadPlan(sla.fixedParallel(), number, value, null, 0)
                            : new LoadPlan(value, number, -1, null, 0);
                    String label = ScenarioSpec.label(provider, scenario, "sla_tuning/sla_" + sla.variable() + "_"
                            + value + "_run_" + run);
                    RunResult r = session.run(new RunSpec.Point(label, target, workload, plan, Duration.ZERO));
                    return session.ended() ? null : r;
                });
                String series = "[" + provider.name() + "/" + scenario.name() + "] SLA auto-tune ";
                SlaTuning tuning = tuner.tune(sla.lowerBound(), where -> {
                    session.searching(series + where.describe());
                    progress.println(series + where.describe() + " (" + sla.number(where.value()) + " requests)");
                    progress.flush();
                });
                Path dir = ScenarioRunner.seriesDir(spec, provider, scenario);
                try {
                    try {
                        java.nio.file.Files.createDirectories(dir);
                    } catch (IOException e) {
                        throw new io.unibench.OutputFailedException(dir, e);
                    }
                    EvalscopeFiles.writeJson(dir.resolve(SUMMARY_FILE), SlaSummary.json(tuning, sla.params()));
                } catch (io.unibench.OutputFailedException e) {
                    failed = e; // the search's levels are measured and kept: end here, reported as perf's search is
                }
                for (SlaTuning.Selection sel : tuning.selections()) {
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
