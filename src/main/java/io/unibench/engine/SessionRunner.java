package io.unibench.engine;

import io.unibench.client.ClientWarmup;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.LiveRecorder;
import io.unibench.engine.live.PhaseStarted;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.selfcheck.Calibration;
import io.unibench.engine.selfcheck.SelfCheck;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.GoodputMeter;
import io.unibench.metrics.LoadDelivery;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import io.unibench.OutputFailedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * <p>What differs between front ends is theirs, behind {@link Front} and {@link PointRun}: what a point sends
 * (prompts, conversations, a scenario's gate and validation), which files it writes, what the run history stores.
 */
public final class SessionRunner {
    /** How often the live view publishes a {@link Snapshot} while a point runs. */
    public static final Duration SNAPSHOT_PERIOD = Duration.ofSeconds(1);

    /** A front end's part of a run. */
    public interface Front {
        /** Point {@code index} is next: load what it sends; nothing is written yet (a failing test leaves no files). */
        PointRun prepare(int index, RunSpec.Point point) throws IOException;

        /** A target's client is open (before its connection test). */
        default void targetStarted(int target, LlmClient client) {}

        /** A target's last point has run (or the run ended); {@code stopped}: it ended early. */
        default void targetFinished(int target, boolean stopped) {}
    }

    /** One point, as the front end runs it. Closed by the runner after {@link #finished}. */
    public interface PointRun extends AutoCloseable {
        /** The connection test's request. */
        PreparedRequest probe();

        /** Before the point's clock starts: folders, argument files (which the run history's start may read). */
        default void beforeStart() throws IOException, InterruptedException {}

        /**
         * Right before the point's clock starts, after the run history registered the run: the requests made ahead
         * (the first second of the plan; a line a second while that takes longer).
         */
        default void awaitReady() throws InterruptedException {}

        /**
         * The front end's sinks of the point's records, besides the runner's {@code metrics} (given for live
         * figures) and live view.
         */
        List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException;

        /** Sends the point's plan (warm-up included) to {@code sinks}; the runner's stop ends it early. */
        RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException;

        /** The point's folder: where an outside observer of the point (the server's metrics) writes its files. */
        Path dir();

        /** The requests the dispatcher reached before they were prepared (the verdict's {@code client-bound}). */
        default RequestFactory.Waits preparationWaits() {
            return RequestFactory.Waits.NONE;
        }

        /**
         * The point's result; returns the front end's own summary keys, which follow the runner's (the self-check's,
         * then what the run's {@link PointObserver} saw, e.g. the server's own metrics) in the point's summary and
         * the store. Writes no file ({@link #write} does).
         */
        Map<String, Object> finished(RunResult result);

        /**
         * Writes the point's result files (after the store has the point); a file that cannot be written throws
         * {@link OutputFailedException}, which ends the run after this point.
         */
        default void write(RunResult result, Map<String, Object> summaryKeys) {}

        @Override
        default void close() {}
    }

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

    /** The summary key of a point that its limits ended early: a budget, a target precision. */
    public static final String STOPPED_BY_KEY = "Stopped By";

    private final RunSpec spec;
    private final Map<String, String> env;
    private final boolean debug;
    private final StopSignal stop;
    private final EventHub events;
    private final Recorder recorder;
    private final PrintWriter err;
    private volatile LlmClient active;
    private PointObserver observer = PointObserver.NONE;
    private ClientWarmup.Budget warmup;
    private final RunBudget budget; // --max-total-tokens, --max-cost; null = none
    private volatile String stopReason; // the budget's line once it stopped the run
    private PointVerdict.Limits verdictLimits = PointVerdict.Limits.DEFAULT;
    private final Calibration calibration; // `unibench calibrate`'s ceiling of this machine; null = none stored
    private Clock clock; // the points' start, the live view's ticks, the pause after a point
    private boolean progressLines = true;
    private PointStart barrier = PointStart.NONE;

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
        this.debug = debug;
        this.stop = stop;
        this.events = events;
        this.recorder = recorder;
        this.err = err;
        this.budget = spec.limits().budgeted() ? new RunBudget(spec.limits(), this::budgetReached) : null;
        this.calibration = calibration(env);
        this.clock = Clock.system(stop);
    }

    /**
     * The engine's clock for the points' start, the live view and the pause after a point (default
     * {@link Clock#system} on the run's stop); tests inject one. Set before {@link #run}.
     */
    public SessionRunner clock(Clock clock) {
        this.clock = clock;
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

    /**
     * The verdict's {@code client-bound} figures of a point that asked more than {@link Calibration#DOCUMENTED_SHARE}
     * of the calibrated ceiling: "asked 2,100 req/s, 56 % of this machine's calibrated 3,725 req/s > 50 %". The rate
     * asked is the configured one ({@code --rate}, open loop), else the delivered one; null when within the share,
     * or without a calibration or a rate.
     */
    static String beyondCeiling(Calibration calibration, Double configuredRate, Double deliveredRate) {
        if (calibration == null) return null;
        Double asked = configuredRate != null ? configuredRate : deliveredRate;
        if (asked == null || !calibration.beyondDocumentedShare(asked)) return null;
        return String.format(java.util.Locale.ROOT, "asked %,.0f req/s, %.0f %% of this machine's calibrated %,.0f "
                + "req/s > %.0f %%", asked, calibration.share(asked) * 100, calibration.requestsPerSecond(),
                Calibration.DOCUMENTED_SHARE * 100);
    }

    /** The budget is spent: the run stops as Ctrl-C stops it, and says why. */
    private void budgetReached(String line) {
        stopReason = line;
        stop();
    }

    /** Watches every point from outside the client (the server-metrics scrape); set before {@link #run}. */
    public SessionRunner observe(PointObserver observer) {
        this.observer = observer;
        return this;
    }

    /**
     * Warms the client's own path before each target's first point ({@link ClientWarmup}: in-process, nothing
     * sent to the target, its time printed); {@code null} (the default) = no warm-up. Set before {@link #run}.
     */
    public SessionRunner warmUpClient(ClientWarmup.Budget budget) {
        this.warmup = budget;
        return this;
    }

    /**
     * The limits of each point's {@link PointVerdict}: {@code --max-error-rate} (a percentage; null keeps the default
     * 5 %). Set before {@link #run}.
     */
    public SessionRunner maxErrorRate(Double percent) {
        this.verdictLimits = PointVerdict.Limits.DEFAULT.withMaxErrorRatePercent(percent);
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
        this.barrier = barrier;
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
        LlmClient c = active;
        if (c != null) c.cancelAll();
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
        work.bind(spec, stop, err, env, progressLines);
        Result ran = null;
        try {
            if (spec.sla() == null) {
                ran = run((Front) work);
            } else {
                try (Session probes = open(work)) {
                    SlaSearch.Searched searched = SlaSearch.run(spec, work, probes, stop, err);
                    work.searched(searched);
                    ran = probes.finish();
                    if (searched.failure() != null) ran = failed(ran, searched.failure()); // sla_summary.json
                }
            }
        } finally {
            // progress.json's last state; a failure writing it ends a run that had none with exit 5
            boolean early = ran == null || ran.stopped() || ran.failure() != null;
            try {
                work.finish(early);
            } catch (OutputFailedException e) {
                if (ran != null) ran = failed(ran, e);
            }
        }
        return ran;
    }

    /** {@code r} ended by {@code failure}, unless something already ended it. */
    private static Result failed(Result r, RuntimeException failure) {
        return r.failure() != null ? r : new Result(r.points(), r.checks(), r.status(), failure, r.stopReason());
    }

    /** Runs every point of the spec; a bad target (connection test) throws {@link io.unibench.BadInputException}. */
    public Result run(Front front) throws IOException, InterruptedException {
        try (Session session = open(front)) {
            for (int i = 0; i < spec.points().size() && !session.ended(); i++) {
                RunSpec.Point point = spec.points().get(i);
                session.run(point);
                if (!session.ended() && i + 1 < spec.points().size() && !point.pauseAfter().isZero()) {
                    // a stop ends the pause early (the loop then ends); an interrupt is thrown as before
                    if (!clock.awaitUntil(clock.nanoTime() + point.pauseAfter().toNanos()) && Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
            return session.finish();
        }
    }

    /**
     * A session whose points are chosen one at a time by the caller as results come in (the SLA auto-tune's search;
     * {@link #run(Front)} runs the spec's points through one). Close it after {@link Session#finish()}; closing it
     * without finishing (an exception) ends the run as failed. Its events are the same as a spec's run.
     */
    public Session open(Front front) {
        return new Session(front);
    }

    /** The state of one run between its points: the current target's client, the results so far. */
    public final class Session implements AutoCloseable {
        private final Front front;
        private final List<RunResult> results = new ArrayList<>();
        private final List<SelfCheckReport> checks = new ArrayList<>();
        private RuntimeException failure;
        private RunFinished end;
        private int target = -1;
        private LlmClient client;
        private String search; // where a search is, for its next probe's start event; null for a sweep

        private Session(Front front) {
            this.front = front;
        }

        /**
         * The next points are a search's probes (SLA auto-tune), whose count is not known in advance: their start
         * events say {@code state} (where the search is) instead of a count of points.
         */
        public void searching(String state) {
            search = state;
        }

        /** How many points the session has run so far. */
        public int pointsRun() {
            return results.size();
        }

        /** The run must end: stopped, or a point failed (a bug, an output that could not be written). */
        public boolean ended() {
            return stop.isStopped() || failure != null;
        }

        /** Runs {@code point} as the run's next one (a new target's connection test first); returns its result. */
        public RunResult run(RunSpec.Point point) throws IOException, InterruptedException {
            int index = results.size();
            try {
                boolean firstOfTarget = point.target() != target;
                if (firstOfTarget) {
                    if (client != null) closeTarget(front, target, client, false);
                    client = null; // a failing open below must not close the previous client twice
                    target = point.target();
                    client = SessionRunner.this.open(front, target);
                }
                try (PointRun run = front.prepare(index, point)) {
                    RunSpec.Target t = spec.target(point);
                    if (firstOfTarget && t.testConnection()) {
                        events.publish(new PhaseStarted(PhaseStarted.CONNECTION_TEST, t.name()));
                        ConnectionTest.run(client, run::probe, t.url(), stop);
                    }
                    if (firstOfTarget && warmup != null && !stop.isStopped()) {
                        events.publish(new PhaseStarted(PhaseStarted.WARMUP, t.name()));
                        PreparedRequest probe = run.probe();
                        err.println(ClientWarmup.run(client, probe.body(), probe.stream(), warmup).line());
                    }
                    run.beforeStart();
                    recorder.pointPreparing(point); // the history shows the run while its requests are prepared
                    run.awaitReady();
                    barrier.await(index, stop);
                    PointOutcome o = runPoint(index, point, run, client, search);
                    results.add(o.result);
                    checks.add(o.check);
                    failure = o.failure;
                    return o.result;
                }
            } catch (RuntimeException | IOException | InterruptedException e) {
                end = new RunFinished(RunStatus.FAILED, e.getMessage());
                throw e;
            }
        }

        /** How the run ended, with every point that ran. */
        public Result finish() {
            if (end == null) {
                end = failure != null ? new RunFinished(RunStatus.FAILED, failure.getMessage())
                        : stop.isStopped() ? new RunFinished(RunStatus.STOPPED, stopReason != null ? stopReason : "stopped")
                        : new RunFinished(RunStatus.FINISHED, null);
            }
            return new Result(List.copyOf(results), List.copyOf(checks), end.status(), failure,
                    end.status() == RunStatus.STOPPED ? stopReason : null);
        }

        /** Closes the last target and publishes the run's end (always the last event). */
        @Override
        public void close() {
            try {
                if (client != null) closeTarget(front, target, client, end == null || end.status() != RunStatus.FINISHED);
            } finally {
                client = null;
                events.publish(end != null ? end : new RunFinished(RunStatus.FAILED, "ended by an error"));
            }
        }
    }

    private LlmClient open(Front front, int target) {
        LlmClient client = new LlmClient(spec.targets().get(target).clientConfig(env, debug));
        active = client;
        if (stop.isStopped()) client.cancelAll();
        front.targetStarted(target, client);
        return client;
    }

    private void closeTarget(Front front, int target, LlmClient client, boolean early) {
        active = null;
        try {
            front.targetFinished(target, early);
            recorder.targetFinished(target, early);
        } finally {
            client.close();
        }
    }

    private record PointOutcome(RunResult result, SelfCheckReport check, RuntimeException failure) {}

    private PointOutcome runPoint(int index, RunSpec.Point point, PointRun run, LlmClient client, String search)
            throws IOException, InterruptedException {
        LoadPlan plan = point.plan();
        boolean held = plan.number() == Integer.MAX_VALUE; // a level held by time: its count is what ran
        RunInfo info = new RunInfo(point.label(), plan.concurrency(), plan.paced() ? plan.rate() : -1,
                held ? 0 : plan.number());
        // a search's (SLA auto-tune's) probes are not counted in advance: 0 points, and where the search is
        events.publish(search != null ? new PointStarted(index, 0, point.label(), plan, search)
                : new PointStarted(index, Math.max(spec.points().size(), index + 1), point.label(), plan));
        RunMetrics metrics = new RunMetrics();
        // the spec's goodput objectives: each request judged as it ends, the count joins the point's result
        GoodputMeter goodput = spec.goodput() == null ? null : new GoodputMeter(spec.goodput());
        LoadDelivery delivery = new LoadDelivery();
        PointObserver.Point watched = observer.start(point.label(), spec.target(point).url());
        long start = clock.nanoTime();
        SelfCheck selfCheck = SelfCheck.start(client.ioLoops());
        LiveRecorder live = new LiveRecorder(index, clock, client::inFlight,
                () -> new Snapshot.ClientLoad(selfCheck.cpuPercentOfOneCoreNow(), selfCheck.loopLagP99MillisNow(),
                        selfCheck.warningNow()),
                events::publish);
        RuntimeException failure = null;
        RunOutcome outcome = null;
        String precise = null; // --target-precision's line once the point reached it
        String budgetBefore = stopReason;
        List<RecordSink> sinks = new ArrayList<>(List.of(metrics, delivery, live));
        if (goodput != null) sinks.add(goodput);
        try {
            sinks.addAll(run.sinks(info, start, metrics));
            sinks.add(recorder.pointSink(point, info, start));
            if (budget != null) sinks.add(budget.sink(spec.target(point).price()));
            if (spec.limits().targetPrecision() != null) sinks.add(new PrecisionTarget(spec.limits().targetPrecision()));
            live.startTicking(SNAPSHOT_PERIOD);
            outcome = run.dispatch(client, plan, sinks);
        } catch (RunFailedException e) {
            if (e.getCause() instanceof PrecisionTarget.Reached reached) {
                precise = reached.getMessage(); // the point's end, not a failure: dispatching ended, in-flight recorded
                outcome = new RunOutcome(metrics.total(), false, false);
            } else {
                // the sinks hold every request that ran: the point's partial report follows
                failure = e.getCause() instanceof OutputFailedException o ? o : e;
            }
        } finally {
            failure = closeAll(sinks, failure);
        }
        if (outcome == null) outcome = new RunOutcome(metrics.total(), true, false);
        SelfCheckReport check = selfCheck.stop();
        if (check.bottleneck()) err.println("[" + plan.label() + "] " + check.warningLine());
        else if (check.notes() != null) err.println("[" + plan.label() + "] Note: " + check.notes());
        if (outcome.hitDuration()) {
            err.println("[" + plan.label() + "] --duration reached after " + outcome.sent() + " requests");
        }
        String stoppedBy = precise != null ? precise : stopReason != null && budgetBefore == null ? stopReason : null;
        if (stoppedBy != null) err.println("[" + plan.label() + "] " + stoppedBy);
        RunResult result = metrics.result(held ? new RunInfo(info.label(), info.concurrency(), info.rate(),
                (int) metrics.total()) : info);
        if (goodput != null) result = goodput.attach(result);
        // the one judgement of the point's numbers; every front end, the store and the pages read it from here
        LoadDelivery.Reading load = delivery.reading(plan.concurrency());
        String ceiling = beyondCeiling(calibration, plan.paced() ? plan.rate() : null, load.deliveredRate());
        String clientBound = joined(joined(check.boundBy(), ceiling), run.preparationWaits().bound(metrics.total()));
        result = result.withVerdict(PointVerdict.judge(result, load, plan.concurrency(), clientBound, verdictLimits));
        PointObserver.Observed seen = watched.finish(result);
        // the summary's extra keys: the verdict's, the self-check's and the observer's (every front end's), then the
        // front end's own
        Map<String, Object> extraKeys = new LinkedHashMap<>(result.verdict().toMap());
        extraKeys.putAll(check.summaryKeys());
        extraKeys.putAll(seen.summaryKeys());
        extraKeys.putAll(run.finished(result));
        if (stoppedBy != null) extraKeys.put(STOPPED_BY_KEY, stoppedBy);
        if (seen.storedJson() != null) recorder.pointObserved(point, seen.storedJson());
        recorder.pointFinished(point, result, extraKeys);
        events.publish(new PointFinished(index, point.label(), result));
        failure = writeFiles(run, result, extraKeys, seen, failure);
        return new PointOutcome(result, check, failure);
    }

    /** {@code a; b}, or whichever of them is not null. */
    private static String joined(String a, String b) {
        return a == null ? b : b == null ? a : a + "; " + b;
    }

    /**
     * The point's files, once the store has the point: each is written whole or not at all. One that cannot be
     * written (disk full) ends the run after this point, unless something already did; the others are still tried.
     */
    private static RuntimeException writeFiles(PointRun run, RunResult result, Map<String, Object> keys,
                                               PointObserver.Observed seen, RuntimeException failure) {
        try {
            run.write(result, keys);
        } catch (OutputFailedException e) {
            if (failure == null) failure = e;
        }
        for (Map.Entry<String, String> f : seen.files().entrySet()) {
            try {
                OutputFailedException.writeWhole(run.dir().resolve(f.getKey()),
                        f.getValue().getBytes(StandardCharsets.UTF_8));
            } catch (OutputFailedException e) {
                if (failure == null) failure = e;
            }
        }
        return failure;
    }

    /**
     * Closes every sink (the live view publishes its last snapshot). A file that could not be written (disk full,
     * permissions; its writer says so when closed) ends the run after this point's report, unless a bug already did.
     */
    private static RuntimeException closeAll(List<RecordSink> sinks, RuntimeException failure) {
        for (RecordSink sink : sinks) {
            try {
                sink.close();
            } catch (OutputFailedException e) {
                if (failure == null) failure = e; // already thrown by a record when it was noticed then
            } catch (java.io.UncheckedIOException e) {
                if (failure == null) {
                    failure = new java.io.UncheckedIOException(e.getMessage() + ": " + e.getCause().getMessage(),
                            e.getCause());
                }
            }
        }
        return failure;
    }
}
