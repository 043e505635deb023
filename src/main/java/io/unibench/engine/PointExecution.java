package io.unibench.engine;

import io.unibench.OutputFailedException;
import io.unibench.client.ClientWarmup;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.LiveRecorder;
import io.unibench.engine.live.PhaseStarted;
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

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One point of a session, in order: a new target's connection test and client warm-up, the front end's preparation
 * (folders, argument files, the requests made ahead), the start barrier, then the dispatch of the point's plan with
 * the self-check beside it into the runner's sinks (metrics, load delivery, live snapshots, the spec's goodput, the
 * run history's, the budget's, the target precision's) and the front end's, the point's verdict and result, and its
 * files. What ended the point early (a bug, an output that could not be written) is in its {@link Outcome}.
 */
final class PointExecution {
    private final RunSpec spec;
    private final StopSignal stop;
    private final PrintWriter err;
    private final SessionEvents events;
    private final SessionRunner.Recorder recorder;
    private final RunBudget budget; // --max-total-tokens, --max-cost; null = none
    private final Supplier<String> stopReason; // the budget's line once it stopped the run
    private final Calibration calibration; // `unibench calibrate`'s ceiling of this machine; null = none stored
    // the runner's settings, set before its run
    PointObserver observer = PointObserver.NONE;
    ClientWarmup.Budget warmup;
    PointVerdict.Limits verdictLimits = PointVerdict.Limits.DEFAULT;
    Clock clock; // the point's start, the live view's ticks
    SessionRunner.PointStart barrier = SessionRunner.PointStart.NONE;

    PointExecution(RunSpec spec, StopSignal stop, PrintWriter err, SessionEvents events, SessionRunner.Recorder recorder,
                   RunBudget budget, Supplier<String> stopReason, Calibration calibration, Clock clock) {
        this.spec = spec;
        this.stop = stop;
        this.err = err;
        this.events = events;
        this.recorder = recorder;
        this.budget = budget;
        this.stopReason = stopReason;
        this.calibration = calibration;
        this.clock = clock;
    }

    /** What a point gave: its result, its self-check, and what ended the run after it (null: nothing). */
    record Outcome(RunResult result, SelfCheckReport check, RuntimeException failure) {}

    /**
     * Runs point {@code index} on {@code client}; {@code firstOfTarget}: the target's connection test and client
     * warm-up first; {@code search}: where a search is, for its probe's start event (null for a sweep).
     */
    Outcome run(int index, RunSpec.Point point, PointRun run, LlmClient client, boolean firstOfTarget,
                String search) throws IOException, InterruptedException {
        RunSpec.Target t = spec.target(point);
        if (firstOfTarget && t.testConnection()) {
            events.phase(PhaseStarted.CONNECTION_TEST, t.name());
            ConnectionTest.run(client, run::probe, t.url(), stop);
        }
        if (firstOfTarget && warmup != null && !stop.isStopped()) {
            events.phase(PhaseStarted.WARMUP, t.name());
            PreparedRequest probe = run.probe();
            try (EngineWarmup engine = new EngineWarmup(probe)) {
                err.println(ClientWarmup.run(client, probe.body(), probe.stream(), warmup, engine::accept).line());
            }
        }
        run.beforeStart();
        recorder.pointPreparing(point); // the history shows the run while its requests are prepared
        run.awaitReady();
        barrier.await(index, stop);
        return measure(index, point, run, client, search);
    }

    private Outcome measure(int index, RunSpec.Point point, PointRun run, LlmClient client, String search)
            throws IOException, InterruptedException {
        LoadPlan plan = point.plan();
        boolean held = plan.number() == Integer.MAX_VALUE; // a level held by time: its count is what ran
        RunInfo info = new RunInfo(point.label(), plan.concurrency(), plan.paced() ? plan.rate() : -1,
                held ? 0 : plan.number());
        events.pointStarted(index, spec.points().size(), point, search);
        RunMetrics metrics = new RunMetrics();
        // the spec's goodput objectives: each request judged as it ends, the count joins the point's result
        GoodputMeter goodput = spec.goodput() == null ? null : new GoodputMeter(spec.goodput());
        LoadDelivery delivery = new LoadDelivery();
        PointObserver.Point watched = observer.start(point.label(), spec.target(point));
        long start = clock.nanoTime();
        SelfCheck selfCheck = SelfCheck.start(client.ioLoops());
        LiveRecorder live = events.snapshots(index, clock, client, selfCheck);
        RuntimeException failure = null;
        RunOutcome outcome = null;
        String precise = null; // --target-precision's line once the point reached it
        String budgetBefore = stopReason.get();
        List<RecordSink> sinks = new ArrayList<>(List.of(metrics, delivery, live));
        if (goodput != null) sinks.add(goodput);
        try {
            sinks.addAll(run.sinks(info, start, metrics));
            sinks.add(recorder.pointSink(point, info, start));
            if (budget != null) sinks.add(budget.sink(spec.target(point).price()));
            if (spec.limits().targetPrecision() != null) sinks.add(new PrecisionTarget(spec.limits().targetPrecision()));
            live.startTicking(SessionRunner.SNAPSHOT_PERIOD);
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
        String stopped = stopReason.get();
        String stoppedBy = precise != null ? precise : stopped != null && budgetBefore == null ? stopped : null;
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
        if (stoppedBy != null) extraKeys.put(SessionRunner.STOPPED_BY_KEY, stoppedBy);
        if (seen.storedJson() != null) recorder.pointObserved(point, seen.storedJson());
        recorder.pointFinished(point, result, extraKeys);
        events.pointFinished(index, point, result);
        failure = writeFiles(run, result, extraKeys, seen, failure);
        return new Outcome(result, check, failure);
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
