package io.unibench.cli;

import io.unibench.Secrets;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import io.unibench.scenario.BenchConfig;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The run history of a service run: the session's one target records into the run the service queued (and has
 * marked running), not into a new one. At the target's first point the row gets the real URL (an embedded simulator's
 * port) and the environment, as {@link HistoryRecorder#scenarioStart} gives a CLI run.
 */
final class QueuedRunRecorder implements SessionRunner.Recorder {
    private final String runId;
    private final StoreLocation location;
    private final BenchConfig.Provider provider;
    private final String url;
    private final PrintWriter log;
    private final ReentrantLock lock = new ReentrantLock();
    private RunRecorder recorder; // guarded by lock: the target's, from its first point to its end

    /** @param url the provider's full endpoint URL (an embedded simulator's with its port) */
    QueuedRunRecorder(String runId, StoreLocation location, BenchConfig.Provider provider, String url, PrintWriter log) {
        this.runId = runId;
        this.location = location;
        this.provider = provider;
        this.url = url;
        this.log = log;
    }

    @Override
    public RecordSink pointSink(RunSpec.Point point, RunInfo info, long originNanos) {
        lock.lock();
        try {
            if (recorder == null) recorder = open();
            return recorder.pointSink(info, originNanos);
        } finally {
            lock.unlock();
        }
    }

    private RunRecorder open() {
        try (RunStore store = RunStore.open(location)) {
            Map<String, Object> env = RunHistory.environment(url, provider.embeddedSimulator(), provider.model());
            env.put("provider", provider.name());
            store.setTarget(runId, Secrets.redact(url), env);
            return RunRecorder.open(location, log).adopt(runId);
        } catch (SQLException e) {
            throw new IllegalStateException("run history: " + StoreLocation.mask(String.valueOf(e.getMessage())), e);
        }
    }

    @Override
    public void pointFinished(RunSpec.Point point, RunResult result, Map<String, Object> extraSummaryKeys) {
        lock.lock();
        try {
            if (recorder != null) recorder.pointFinished(result, extraSummaryKeys);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void pointObserved(RunSpec.Point point, String json) {
        lock.lock();
        try {
            if (recorder != null) recorder.pointServerMetrics(json);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void targetFinished(int target, boolean interrupted) {
        lock.lock();
        try {
            if (recorder != null) recorder.finish(interrupted);
            recorder = null;
        } finally {
            lock.unlock();
        }
    }
}
