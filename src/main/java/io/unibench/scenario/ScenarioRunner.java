package io.unibench.scenario;

import io.unibench.engine.SpecPoints;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.spec.RunSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A scenario file's run, as a spec: the session runner runs {@link ScenarioSpec#of}'s spec with the engine's
 * {@link SpecPoints} (what each point sends and checks, its gate, files and progress line, all from the spec), or
 * the file's {@code sla_auto_tune} search ({@link ScenarioSla}) through the same points; this class only names what
 * ran in the file's terms: the series of each provider × scenario with its knee ({@link ScenarioResults}).
 *
 * <p>Output layout: {@code ROOT/PROVIDER/SCENARIO/parallel_C/} with evalscope's files and {@code requests.jsonl}.
 */
public final class ScenarioRunner {
    private final BenchConfig config;
    private final RunSpec spec;
    private final StopSignal stop;
    private final PrintWriter progress;

    /**
     * @param spec     the file as a run ({@link ScenarioSpec#of}; a shard's is sliced by {@link RunSpec#slice}: each
     *                 level sends its {@link RunSpec.Slice} of the level's prompts or conversations, under its share of
     *                 {@code rate_limit}; the shards' start barrier is the session runner's {@code startBarrier})
     * @param stop     the session's stop signal (the start gate's waits end on it)
     * @param progress where one line per finished level goes
     */
    public ScenarioRunner(BenchConfig config, RunSpec spec, StopSignal stop, PrintWriter progress) {
        this.config = config;
        this.spec = spec;
        this.stop = stop;
        this.progress = progress;
    }

    /** Runs the file's points through {@code session}; the results hold what ran (all of it unless stopped). */
    public Ran run(SessionRunner session) throws Exception {
        SpecPoints points = SpecPoints.load(spec, progress);
        SessionRunner.Result result;
        try {
            result = config.loads().sla() == null ? session.run(points) : tune(session, points.probing(true));
        } finally {
            points.series(); // a failed run's last series is closed too
        }
        boolean stopped = result.stopped() || result.failure() != null;
        return new Ran(results(config, points.series(), stopped), result);
    }

    /** sla_auto_tune: the search chooses every level, in one session. */
    private SessionRunner.Result tune(SessionRunner session, SpecPoints points) throws Exception {
        try (SessionRunner.Session probes = session.open(points)) {
            return ScenarioSla.run(config, spec, probes, stop, progress);
        }
    }

    /** The engine's series in the file's terms: provider, scenario, levels, and the knee of the closed-loop levels. */
    static ScenarioResults results(BenchConfig config, List<SpecPoints.Series> ran, boolean stopped) {
        List<ScenarioResults.Series> series = new ArrayList<>();
        for (SpecPoints.Series s : ran) {
            List<ScenarioResults.Level> levels = s.levels().stream().map(l -> new ScenarioResults.Level(l.concurrency(),
                    l.result(), l.tokens(), l.starts(), l.name())).toList();
            series.add(new ScenarioResults.Series(config.providers().get(s.target()), config.scenarios().get(s.workload()),
                    levels, s.overall(), s.tokens(),
                    KneeFinder.find(levels.stream().filter(ScenarioResults.Level::closedLoop).toList(), config.knee())));
        }
        return new ScenarioResults(config, series, stopped);
    }

    /** What {@link #run} gives: the scenario's results and the session's (status, failure, self-checks). */
    public record Ran(ScenarioResults results, SessionRunner.Result session) {}
}
