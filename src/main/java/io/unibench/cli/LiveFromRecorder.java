package io.unibench.cli;

import io.unibench.engine.Clock;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.StopSignal;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.LiveRecorder;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.selfcheck.CpuMonitor;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import io.unibench.store.RunRecorder;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The live events of a service run executed by {@code scenario.ScenarioRunner}, built from what its run recorder
 * sees (each point's start, records and result), until the session runner publishes them itself: point started,
 * a {@link LiveRecorder} snapshot once a second, point finished. What the recorder cannot see is said, not made up:
 * requests in flight are unknown ({@code -1}), and the client load is the whole service process's CPU (no event-loop
 * lag probe: the runner's client is not reachable from here).
 */
final class LiveFromRecorder implements RunRecorder.Observer {
    static final Duration PERIOD = Duration.ofSeconds(1);

    private final EventHub hub;
    private final int points;
    private final StopSignal stop;
    private final Duration hold;
    private final AtomicInteger next = new AtomicInteger();
    private final ProcessCpu cpu = new ProcessCpu();
    private volatile int current = -1;
    private volatile String label;

    /** @param hold how long each level is held (a scenario's ramp_interval_sec), or null: a number of requests */
    LiveFromRecorder(EventHub hub, int points, Duration hold, StopSignal stop) {
        this.hub = hub;
        this.hold = hold;
        this.points = points;
        this.stop = stop;
    }

    @Override
    public RecordSink pointStarted(RunInfo info) {
        int point = next.getAndIncrement();
        current = point;
        label = info.label();
        hub.publish(new PointStarted(point, points, info.label(),
                new LoadPlan(info.concurrency(), hold == null ? info.number() : Integer.MAX_VALUE, 0, hold, 0)));
        LiveRecorder live = new LiveRecorder(point, Clock.system(stop), () -> -1, cpu::load, hub::publish);
        live.startTicking(PERIOD);
        return live;
    }

    @Override
    public void pointFinished(RunResult result) {
        hub.publish(new PointFinished(current, label, result));
    }

    /** The process's CPU since the previous call, in percent of one core; warns as the self-check does. */
    static final class ProcessCpu {
        private final ReentrantLock lock = new ReentrantLock();
        private CpuMonitor since = CpuMonitor.start();

        Snapshot.ClientLoad load() {
            CpuMonitor.Usage u;
            lock.lock();
            try {
                u = since.stop();
                since = CpuMonitor.start();
            } finally {
                lock.unlock();
            }
            if (u.cpuSeconds() < 0 || u.wallSeconds() <= 0) return Snapshot.ClientLoad.UNKNOWN;
            double percent = 100 * u.cpuSeconds() / u.wallSeconds();
            return new Snapshot.ClientLoad(percent, Double.NaN,
                    u.utilisation() > CpuMonitor.SATURATION_WARNING ? SelfCheckReport.WARNING : null);
        }
    }
}
