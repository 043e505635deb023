package io.unibench.scenario;

import io.unibench.engine.SpecPoints;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.spec.RunSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A scenario file's run, as a spec: the session runner runs {@link ScenarioSpec#of}'s spec with the engine's
 * {@link SpecPoints} (what each point sends and checks, its gate, files and progress line, the file's
 * {@code sla_auto_tune} searches, all from the spec); this class only names what ran in the file's terms: the series
 * of each provider × scenario with its knee ({@link ScenarioResults}).
 *
 * <p>Output layout: {@code ROOT/PROVIDER/SCENARIO/parallel_C/} with evalscope's files and {@code requests.jsonl}.
 */
public final class ScenarioRunner {
    private final BenchConfig config;
    private final RunSpec spec;
    private final PrintWriter notes;

    /**
     * @param spec  the file as a run ({@link ScenarioSpec#of}; a shard's is sliced by {@link RunSpec#slice}: each
     *              level sends its {@link RunSpec.Slice} of the level's prompts or conversations, under its share of
     *              {@code rate_limit}; the shards' start barrier is the session runner's {@code startBarrier})
     * @param notes where a step that takes more than a second says so
     */
    public ScenarioRunner(BenchConfig config, RunSpec spec, PrintWriter notes) {
        this.config = config;
        this.spec = spec;
        this.notes = notes;
    }

    /** Runs the file's points through {@code session}; the results hold what ran (all of it unless stopped). */
    public Ran run(SessionRunner session) throws Exception {
        SpecPoints points = SpecPoints.load(spec, notes);
        SessionRunner.Result result;
        try {
            result = session.run(points);
        } finally {
            points.series(); // a failed run's last series is closed too
        }
        boolean stopped = result.stopped() || result.failure() != null;
        return new Ran(results(config, points.series(), stopped), result);
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
