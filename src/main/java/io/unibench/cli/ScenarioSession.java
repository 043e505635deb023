package io.unibench.cli;

import io.unibench.engine.SessionRunner;
import io.unibench.engine.SpecPoints;
import io.unibench.engine.Shard;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunListener;
import io.unibench.engine.spec.RunSpec;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A scenario document run to its end, the one way {@code unibench run --config} and the service's runs both go: the
 * providers' targets started ({@link ScenarioTargets}), the document mapped to a {@link RunSpec}
 * ({@link ScenarioSpec}), and the {@link SessionRunner} running the spec's points with the engine's {@link SpecPoints}
 * (the scenario's series layout, its searches, gates, checks and files all from the spec), recording through
 * a {@link HistoryRecorder}, observing the servers' own metrics, and publishing its live events. The callers differ
 * only in where the history goes, who listens and who may stop the session.
 */
final class ScenarioSession {
    private ScenarioSession() {}

    /**
     * What a caller plugs in.
     *
     * @param recorder the run history's adapter for the spec; closed here when the session ends
     * @param server   the servers' metrics during each level ({@code --server-metrics}; the service reads /metrics)
     * @param listener gets every live event the session publishes, all delivered before {@link #run} returns; null: none
     * @param started  gets the session before its first point (to stop it on a signal or a cancel)
     * @param shard    this process's slice of a sharded run ({@code run --shard I/N}); {@link Shard#WHOLE} otherwise
     * @param levels   waits before each level until every shard has reached it; {@code PointStart.NONE} unsharded
     */
    record Wiring(Function<RunSpec, HistoryRecorder> recorder, ServerMetricsHook server, RunListener listener,
                  Consumer<SessionRunner> started, Shard shard, SessionRunner.PointStart levels) {
        Wiring(Function<RunSpec, HistoryRecorder> recorder, ServerMetricsHook server, RunListener listener,
               Consumer<SessionRunner> started) {
            this(recorder, server, listener, started, Shard.WHOLE, SessionRunner.PointStart.NONE);
        }
    }

    /** @param root the run's output folder; @param history the spec's history section */
    static Ran run(BenchConfig bench, Path root, RunSpec.History history, Map<String, String> env,
                                  Wiring wiring, PrintWriter err) throws Exception {
        SessionRunner.calibration(env); // a corrupt calibration file stops the run before anything starts
        try (ScenarioTargets targets = ScenarioTargets.start(bench, err)) {
            RunSpec spec = ScenarioSpec.of(bench, targets.endpoints(), root, history, wiring.shard());
            HistoryRecorder store = wiring.recorder().apply(spec);
            StopSignal stop = new StopSignal();
            SessionRunner session = null;
            try (EventHub events = new EventHub()) {
                if (wiring.listener() != null) events.subscribe(wiring.listener());
                session = new SessionRunner(spec, env, false, stop, events, store, err).observe(wiring.server())
                        .maxErrorRate(bench.maxErrorRatePercent()).startBarrier(wiring.levels());
                wiring.started().accept(session);
                SpecPoints points = SpecPoints.load(spec, err);
                SessionRunner.Result result;
                try {
                    result = session.run(points);
                } finally {
                    points.series(); // a failed run's last series is closed too
                }
                return new Ran(points.series(), result);
            } finally { // closing the hub above delivered every event first
                store.close(session == null || session.stopped()); // also a run that failed before its target ended
            }
        }
    }

    /**
     * What {@link #run} gives: the engine's series (each target × workload's levels, overall figures and token counts)
     * and the session's result (status, failure, self-checks); {@link ScenarioNames} names them in the file's terms.
     */
    record Ran(List<SpecPoints.Series> series, SessionRunner.Result session) {
        Ran {
            series = List.copyOf(series);
        }

        /** Not all of it ran: stopped, or ended by a failure. */
        boolean stopped() {
            return session.stopped() || session.failure() != null;
        }
    }
}
