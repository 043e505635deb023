package io.unibench.scenario;

import io.unibench.engine.SpecPoints;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.spec.RunSpec;

import java.io.PrintWriter;
import java.util.List;

/**
 * A scenario file's run, as a spec: the session runner runs {@link ScenarioSpec#of}'s spec with the engine's
 * {@link SpecPoints} (what each point sends and checks, its gate, files and progress line, the file's
 * {@code sla_auto_tune} searches, all from the spec). What ran is the engine's series of each target × workload; the
 * front end names them in the file's terms (provider, scenario, knee) for the reports.
 *
 * <p>Output layout: {@code ROOT/PROVIDER/SCENARIO/parallel_C/} with evalscope's files and {@code requests.jsonl}.
 */
public final class ScenarioRunner {
    private final RunSpec spec;
    private final PrintWriter notes;

    /**
     * @param spec  the file as a run ({@link ScenarioSpec#of}; a shard's is sliced by {@link RunSpec#slice}: each
     *              level sends its {@link RunSpec.Slice} of the level's prompts or conversations, under its share of
     *              {@code rate_limit}; the shards' start barrier is the session runner's {@code startBarrier})
     * @param notes where a step that takes more than a second says so
     */
    public ScenarioRunner(RunSpec spec, PrintWriter notes) {
        this.spec = spec;
        this.notes = notes;
    }

    /** Runs the file's points through {@code session}; the series hold what ran (all of it unless stopped). */
    public Ran run(SessionRunner session) throws Exception {
        SpecPoints points = SpecPoints.load(spec, notes);
        SessionRunner.Result result;
        try {
            result = session.run(points);
        } finally {
            points.series(); // a failed run's last series is closed too
        }
        return new Ran(points.series(), result);
    }

    /**
     * What {@link #run} gives: the engine's series (each target × workload's levels, overall figures and token counts)
     * and the session's result (status, failure, self-checks).
     */
    public record Ran(List<SpecPoints.Series> series, SessionRunner.Result session) {
        public Ran {
            series = List.copyOf(series);
        }

        /** Not all of it ran: stopped, or ended by a failure. */
        public boolean stopped() {
            return session.stopped() || session.failure() != null;
        }
    }
}
