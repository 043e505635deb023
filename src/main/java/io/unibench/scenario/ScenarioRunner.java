package io.unibench.scenario;

import io.unibench.engine.SeriesPoints;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.spec.RunSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

/**
 * A scenario file's run, as a spec: the session runner runs {@link ScenarioSpec#of}'s spec with the engine's
 * {@link SeriesPoints} (what each point sends and checks, its gate, files and progress line, all from the spec), or
 * the file's {@code sla_auto_tune} search ({@link ScenarioSla}) through the same points. What ran is the engine's
 * series of each target × workload; the front end names them in the file's terms (provider, scenario, knee) for the
 * reports.
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

    /** Runs the file's points through {@code session}; the series hold what ran (all of it unless stopped). */
    public Ran run(SessionRunner session) throws IOException, InterruptedException {
        SeriesPoints points = new SeriesPoints(spec, stop, progress);
        SessionRunner.Result result;
        try {
            result = config.loads().sla() == null ? session.run(points) : tune(session, points.probing(true));
        } finally {
            points.series(); // a failed run's last series is closed too
        }
        return new Ran(points.series(), result);
    }

    /** sla_auto_tune: the search chooses every level, in one session. */
    private SessionRunner.Result tune(SessionRunner session, SeriesPoints points) throws IOException, InterruptedException {
        try (SessionRunner.Session probes = session.open(points)) {
            return ScenarioSla.run(config, spec, probes, stop, progress);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // the probe throws nothing else
        }
    }

    /**
     * What {@link #run} gives: the engine's series (each target × workload's levels, overall figures and token counts)
     * and the session's result (status, failure, self-checks).
     */
    public record Ran(List<SeriesPoints.Series> series, SessionRunner.Result session) {
        public Ran {
            series = List.copyOf(series);
        }

        /** Not all of it ran: stopped, or ended by a failure. */
        public boolean stopped() {
            return session.stopped() || session.failure() != null;
        }
    }
}
