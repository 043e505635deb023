package io.unibench.engine;

import io.unibench.OutputFailedException;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunResult;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One run between its points, as its caller drives it ({@link SessionRunner#open}): the current target's client (a new target's
 * opened before its first point, the previous one closed), the results and self-checks so far, what ended the run,
 * and its end, recorded in order when it closes: the front end's report, {@code progress.json}'s last state, the
 * targets' ends in the run history, the live view's {@link RunFinished}.
 */
final class SessionState implements AutoCloseable {
    private final PointSource front;
    private final StopSignal stop;
    private final TargetClients clients;
    private final PointExecution points;
    private final SessionEvents events;
    private final Supplier<String> stopReason; // the budget's line once it stopped the run
    private final List<RunResult> results = new ArrayList<>();
    private final List<SelfCheckReport> checks = new ArrayList<>();
    private RuntimeException failure;
    private RunFinished end;
    private int target = -1;
    private LlmClient client;
    private String search; // where a search is, for its next probe's start event; null for a sweep
    private ProgressFile progress; // the spec's progress.json, null without one; its last state once written

    SessionState(PointSource front, StopSignal stop, TargetClients clients, PointExecution points,
                 SessionEvents events, Supplier<String> stopReason) {
        this.front = front;
        this.stop = stop;
        this.clients = clients;
        this.points = points;
        this.events = events;
        this.stopReason = stopReason;
    }

    /** The spec's {@code progress.json} (null: none), whose last state the session's end writes. */
    void progress(ProgressFile progress) {
        this.progress = progress;
    }

    /**
     * The next points are a search's probes (SLA auto-tune), whose count is not known in advance: their start
     * events say {@code state} (where the search is) instead of a count of points.
     */
    void searching(String state) {
        search = state;
    }

    /** How many points the session has run so far. */
    int pointsRun() {
        return results.size();
    }

    /** The run must end: stopped, or a point failed (a bug, an output that could not be written). */
    boolean ended() {
        return stop.isStopped() || failure != null;
    }

    /** Runs {@code point} as the run's next one (a new target's connection test first); returns its result. */
    RunResult run(RunSpec.Point point) throws IOException, InterruptedException {
        int index = results.size();
        try {
            boolean firstOfTarget = point.target() != target;
            if (firstOfTarget) {
                if (client != null) clients.close(front, target, client, false, false);
                client = null; // a failing open below must not close the previous client twice
                target = point.target();
                client = clients.open(front, target);
            }
            try (PointRun run = front.prepare(index, point)) {
                PointExecution.Outcome o = points.run(index, point, run, client, firstOfTarget, search);
                results.add(o.result());
                checks.add(o.check());
                failure = o.failure();
                return o.result();
            }
        } catch (RuntimeException | IOException | InterruptedException e) {
            end = new RunFinished(RunStatus.FAILED, e.getMessage());
            throw e;
        }
    }

    /** How the run ended, with every point that ran. */
    SessionRunner.Result finish() {
        String why = stopReason.get();
        if (end == null) {
            end = failure != null ? new RunFinished(RunStatus.FAILED, failure.getMessage())
                    : stop.isStopped() ? new RunFinished(RunStatus.STOPPED, why != null ? why : "stopped")
                    : new RunFinished(RunStatus.FINISHED, null);
        }
        return new SessionRunner.Result(List.copyOf(results), List.copyOf(checks), end.status(), failure,
                end.status() == RunStatus.STOPPED ? why : null);
    }

    /**
     * {@link #finish()}, then the front end's {@code report} of it: a report that cannot be written ends the run
     * as failed (unless something already did), before {@link #close} records the end.
     */
    SessionRunner.Result finish(SessionRunner.Report report) {
        SessionRunner.Result ran = finish();
        try {
            report.write(ran);
        } catch (OutputFailedException e) {
            failed(e);
            ran = finish();
        } catch (RuntimeException e) {
            end = new RunFinished(RunStatus.FAILED, e.getMessage());
            throw e;
        }
        // progress.json's last state, after the report; a failure writing it ends a run that had none (exit 5)
        try {
            finishProgress(ran.status());
        } catch (OutputFailedException e) {
            failed(e);
            ran = finish();
        }
        return ran;
    }

    private void finishProgress(RunStatus status) {
        ProgressFile p = progress;
        progress = null; // its last state is written once
        if (p != null) p.finish(status);
    }

    /** {@code e} ends the run as failed (an output written after the points), unless something already did. */
    void failed(RuntimeException e) {
        if (failure != null) return;
        failure = e;
        end = null;
    }

    /** Closes the last target and publishes the run's end (always the last event). */
    @Override
    public void close() {
        try {
            if (progress != null) finishProgress(RunStatus.FAILED); // an exception ended the run before its end
        } catch (OutputFailedException e) {
            // the exception that ended the run is the one reported
        }
        try {
            if (client != null) {
                clients.close(front, target, client, end == null || end.status() != RunStatus.FINISHED,
                        end == null || end.status() == RunStatus.FAILED);
            }
        } finally {
            client = null;
            events.runFinished(end);
        }
    }
}
