package io.unibench.engine;

import io.unibench.client.ClientWarmup;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.selfcheck.Calibration;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import io.unibench.OutputFailedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Executes a {@link RunSpec}: the one orchestration behind {@code perf}, {@code run --config} and the web's runs.
 * Targets run one after another, each with a client of its own; for each point, in order: the connection test
 * (before a target's first point, when the spec asks for it), the front end's preparation, the dispatch of the
 * point's plan (warm-up first; closed or open loop), the self-check beside it, the records into the runner's
 * metrics, the spec's goodput count, the live view and the front end's sinks (files, run history, progress), the point's result, then the
 * pause before the next point. A stop ({@link #stop()}: Ctrl-C, the web's cancel) ends dispatching, cancels what is
 * in flight and leaves a partial result. Every step is published to the {@link EventHub}: point started, a
 * snapshot a second, point finished, run finished (always last).
 *
 * <p>What a point sends (prompts, conversations, a scenario's gate and validation) and which files it writes follow
 * from the spec ({@link SpecPoints}, behind {@link PointSource} and {@link PointRun}); what the run history stores is the
 * front end's {@link Recorder}, how it renders the results its {@link Report}.
 *
 * <p>This class is the runner's contract and its loop over points; a session's state and end are
 * {@link SessionState}'s, a point's steps {@link PointExecution}'s, the targets' clients {@link TargetClients}', the
 * events {@link SessionEvents}'.
 */
public final class SessionRunner {
    /** How often the live view publishes a {@link io.unibench.engine.live.Snapshot} while a point runs. */
    public static final Duration SNAPSHOT_PERIOD = Duration.ofSeconds(1);

    /** Where the run history keeps a session's measurements (the front end's store); {@link #NONE} keeps nothing. */
    public interface Recorder {
        Recorder NONE = new Recorder() {
            @Override public RecordSink pointSink(RunSpec.Point point, RunInfo info, long originNanos) {
                return record -> { };
            }
            @Override public void pointFinished(RunSpec.Point point, RunResult result, Map<String, Object> extra) {}
            @Override public void targetFinished(int target, boolean interrupted) {}
        };

        /** The sink storing a point's requests; times relative to {@code originNanos}. */
        RecordSink pointSink(RunSpec.Point point, RunInfo info, long originNanos);

        void pointFinished(RunSpec.Point point, RunResult result, Map<String, Object> extraSummaryKeys);

        void targetFinished(int target, boolean interrupted);

        /**
         * The run ended by a failure (a bug, an output that could not be written, the front end's report included)
         * while {@code target} ran: its stored run failed. Default: {@link #targetFinished} as interrupted.
         */
        default void targetFailed(int target) {
            targetFinished(target, true);
        }

        /** What the run's {@link PointObserver} keeps of the point (JSON), after its sink, before its summaries. */
        default void pointObserved(RunSpec.Point point, String json) {}

        /**
         * {@code point}'s folder and argument files are written and its first requests are about to be prepared: a
         * history that starts its stored run here shows the run while it prepares.
         */
        default void pointPreparing(RunSpec.Point point) {}
    }

    /**
     * What ran.
     *
     * @param points  every point that ran, in order (a partial one included)
     * @param checks  the self-check of each of those points
     * @param status  how the run ended
     * @param failure what ended it early when not a stop (a bug, an output that could not be written); null else
     * @param stopReason why the run stopped when the spec's limits stopped it ({@code budget reached: 10,012 of
     *                   10,000 tokens}); null for Ctrl-C, the web's cancel, or a run that was not stopped
     */
    public record Result(List<RunResult> points, List<SelfCheckReport> checks, RunStatus status,
                         RuntimeException failure, String stopReason) {
        public Result(List<RunResult> points, List<SelfCheckReport> checks, RunStatus status,
                      RuntimeException failure) {
            this(points, checks, status, failure, null);
        }

        public boolean stopped() {
            return status == RunStatus.STOPPED;
        }
    }

    /**
     * The front end's report of a run ({@code performance_summary.txt}), written after its last point and before its
     * end is recorded: the run history's status, {@code progress.json}'s last state and the live view's end all
     * follow it. A report that cannot be written ({@link OutputFailedException}) ends the run as failed (the points'
     * files stay); {@link #NONE} writes nothing.
     */
    @FunctionalInterface
    public interface Report {
        Report NONE = ran -> { };

        /** Writes the report of {@code ran} (what ran, how it ended so far). */
        void write(Result ran);
    }

    /** The summary key of a point that its limits ended early: a budget, a target precision. */
    public static final String STOPPED_BY_KEY = "Stopped By";

    private final RunSpec spec;
    private final Map<String, String> env;
    private final StopSignal stop;
    private final SessionEvents events;
    private final PrintWriter err;
    private final TargetClients clients;
    private final PointExecution points;
    private volatile String stopReason; // the budget's line once it stopped the run
    private boolean progressLines = true;

    /**
     * @param env      where API keys are read from
     * @param debug    the client logs every request and reply ({@code --debug})
     * @param recorder the run history
     * @param err      where the runner's notes go (self-check warnings, {@code --duration} reached)
     */
    public SessionRunner(RunSpec spec, Map<String, String> env, boolean debug, StopSignal stop, EventHub events,
                         Recorder recorder, PrintWriter err) {
        this.spec = spec;
        this.env = env;
        this.stop = stop;
        this.events = new SessionEvents(events);
        this.err = err;
        this.clients = new TargetClients(spec, env, debug, stop, recorder);
        RunBudget budget = spec.limits().budgeted() ? new RunBudget(spec.limits(), this::budgetReached) : null;
        this.points = new PointExecution(spec, stop, err, this.events, recorder, budget, () -> stopReason,
                calibration(env), Clock.system(stop));
    }

    /**
     * The engine's clock for the points' start, the live view and the pause after a point (default
     * {@link Clock#system} on the run's stop); tests inject one. Set before {@link #run}.
     */
    public SessionRunner clock(Clock clock) {
        points.clock = clock;
        return this;
    }

    /**
     * The client's calibrated ceiling ({@code unibench calibrate}) in {@code env}'s unibench home
     * ({@code $UNIBENCH_HOME}, else {@code $HOME/.unibench}); null when no file is stored there, or when {@code env}
     * names neither folder (tests' empty environments never read the user's home). A file that is there but cannot
     * be read or is not a calibration is bad input ({@link Calibration#read}): the front ends call this before they
     * start anything (a simulator, an output folder, a stored run), so that line is the run's only output.
     */
    public static Calibration calibration(Map<String, String> env) {
        if (blank(env.get("UNIBENCH_HOME")) && blank(env.get("HOME"))) return null;
        return Calibration.read(Calibration.defaultFile(env));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** The budget is spent: the run stops as Ctrl-C stops it, and says why. */
    private void budgetReached(String line) {
        stopReason = line;
        stop();
    }

    /** Watches every point from outside the client (the server-metrics scrape); set before {@link #run}. */
    public SessionRunner observe(PointObserver observer) {
        points.observer = observer;
        return this;
    }

    /**
     * Warms the client's own path before each target's first point ({@link ClientWarmup}: in-process, nothing
     * sent to the target, its time printed); {@code null} (the default) = no warm-up. Set before {@link #run}.
     */
    public SessionRunner warmUpClient(ClientWarmup.Budget budget) {
        points.warmup = budget;
        return this;
    }

    /**
     * The limits of each point's {@link PointVerdict}: {@code --max-error-rate} (a percentage; null keeps the default
     * 5 %). Set before {@link #run}.
     */
    public SessionRunner maxErrorRate(Double percent) {
        points.verdictLimits = PointVerdict.Limits.DEFAULT.withMaxErrorRatePercent(percent);
        return this;
    }

    /**
     * Whether a progress line goes to the notes' writer every {@code outputs.log_every} requests of the spec's points
     * (a log; a terminal draws a bar from the events instead). Default: true. Set before {@link #run}.
     */
    public SessionRunner progressLines(boolean lines) {
        this.progressLines = lines;
        return this;
    }

    /**
     * Each point waits, right before its clock starts, until {@code barrier} lets it (a shard's start barrier: every
     * shard of the group has reached the point). Default: none. Set before {@link #run}.
     */
    public SessionRunner startBarrier(PointStart barrier) {
        points.barrier = barrier;
        return this;
    }

    /** Waits until point {@code index} (0-based over the run) may start; returns early when {@code stop} is set. */
    @FunctionalInterface
    public interface PointStart {
        PointStart NONE = (index, stop) -> { };

        void await(int index, StopSignal stop) throws InterruptedException;
    }

    /** Stops the run as Ctrl-C does: no new requests, in-flight ones cancelled, the partial result returned. */
    public void stop() {
        stop.stop();
        clients.cancelActive();
    }

    public boolean stopped() {
        return stop.isStopped();
    }

    /**
     * Runs the spec: its points (or its SLA search's probes), each made by the engine from the spec
     * ({@link SpecPoints}: what it sends, its sinks and files). A bad dataset or tokenizer throws
     * {@link io.unibench.BadInputException} before anything is sent or written, a bad target (connection test) after.
     */
    public Result run() throws Exception {
        return run(SpecPoints.load(spec));
    }

    /**
     * Runs the spec with what {@link SpecPoints#load} read of it ahead (a front end that checks the dataset before it
     * starts the embedded simulator or opens the run history); the target's URL is this runner's spec's.
     */
    public Result run(SpecPoints work) throws Exception {
        return run(work, Report.NONE);
    }

    /**
     * {@link #run(SpecPoints)}, with the front end's {@code report} written after the last point, then
     * {@code progress.json}'s last state ({@code completed}, {@code interrupted}, or {@code failed}: a report or
     * progress file that could not be written included), then the run's end in the history and the live view.
     */
    public Result run(SpecPoints work, Report report) throws Exception {
        work.bind(spec, stop, err, env, progressLines);
        if (spec.sla().isEmpty()) return run(work, work.progressFile(), report);
        try (SessionState probes = open(work)) { // the searches choose every point
            probes.progress(work.progressFile());
            List<SlaSearch.Searched> searched = SlaSearch.run(spec, work, probes, stop, err);
            work.searched(searched);
            for (SlaSearch.Searched s : searched) {
                if (s.failure() != null) probes.failed(s.failure()); // sla_summary.json
            }
            return probes.finish(report);
        }
    }

    /** Runs every point of the spec through {@code front} (the engine's tests' own points). */
    Result run(PointSource front) throws IOException, InterruptedException {
        return run(front, null, Report.NONE);
    }

    private Result run(PointSource front, ProgressFile progress, Report report) throws IOException, InterruptedException {
        try (SessionState session = open(front)) {
            session.progress(progress);
            for (int i = 0; i < spec.points().size() && !session.ended(); i++) {
                RunSpec.Point point = spec.points().get(i);
                session.run(point);
                if (!session.ended() && i + 1 < spec.points().size() && !point.pauseAfter().isZero()) {
                    // a stop ends the pause early (the loop then ends); an interrupt is thrown as before
                    Clock clock = points.clock;
                    if (!clock.awaitUntil(clock.nanoTime() + point.pauseAfter().toNanos()) && Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
            return session.finish(report);
        }
    }

    /**
     * A session whose points are chosen one at a time by the caller as results come in ({@link SlaSearch}'s probes,
     * {@link ProbeSession}'s, tests). Close it after {@link SessionState#finish()}; closing it without finishing (an
     * exception) ends the run as failed. Its events are the same as a spec's run.
     */
    SessionState open(PointSource points) {
        return new SessionState(points, stop, clients, this.points, events, () -> stopReason);
    }
}
