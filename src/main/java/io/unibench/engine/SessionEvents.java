package io.unibench.engine;

import io.unibench.client.LlmClient;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.LiveRecorder;
import io.unibench.engine.live.PhaseStarted;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.selfcheck.SelfCheck;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunResult;

/**
 * What a session publishes to the live view ({@link EventHub}): a phase (connection test, client warm-up), a point
 * started, its snapshots while it runs ({@link LiveRecorder}, one each {@link SessionRunner#SNAPSHOT_PERIOD}), the
 * point finished, and the run finished (always last).
 */
final class SessionEvents {
    private final EventHub hub;

    SessionEvents(EventHub hub) {
        this.hub = hub;
    }

    void phase(String phase, String target) {
        hub.publish(new PhaseStarted(phase, target));
    }

    /** Point {@code index} of {@code planned} starts; a search's probe says {@code search} (where it is) instead. */
    void pointStarted(int index, int planned, RunSpec.Point point, String search) {
        LoadPlan plan = point.plan();
        // a search's (SLA auto-tune's) probes are not counted in advance: 0 points, and where the search is
        hub.publish(search != null ? new PointStarted(index, 0, point.label(), plan, search)
                : new PointStarted(index, Math.max(planned, index + 1), point.label(), plan));
    }

    /** The sink publishing point {@code index}'s snapshots: the client's in-flight count and its self-check's load. */
    LiveRecorder snapshots(int index, Clock clock, LlmClient client, SelfCheck selfCheck) {
        return new LiveRecorder(index, clock, client::inFlight,
                () -> new Snapshot.ClientLoad(selfCheck.cpuPercentOfOneCoreNow(), selfCheck.loopLagP99MillisNow(),
                        selfCheck.warningNow()),
                hub::publish);
    }

    void pointFinished(int index, RunSpec.Point point, RunResult result) {
        hub.publish(new PointFinished(index, point.label(), result));
    }

    /** The run's end; {@code null}: an error ended it before its end was known. */
    void runFinished(RunFinished end) {
        hub.publish(end != null ? end : new RunFinished(RunStatus.FAILED, "ended by an error"));
    }
}
