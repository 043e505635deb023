package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.store.RunEnvironment;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStart;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The run history as {@code perf} and {@code run} record into it, the one place that opens it from
 * {@code --db}/{@code --no-db}: the store is opened (migrated, abandoned runs recovered) before anything is sent,
 * so a bad {@code --db} is bad input at once; then every stored run gets a started {@link RunRecorder} of its own.
 * The session runner records into it through {@link HistoryRecorder}, the one adapter of both front ends.
 */
final class RunHistory {
    private final StoreLocation location;
    private final PrintWriter err;
    /**
     * Guards {@code opened} only (providers start their runs in parallel); the store's I/O happens outside it, as on
     * Java 21 a virtual thread blocked inside {@code synchronized} pins its carrier.
     */
    private final ReentrantLock lock = new ReentrantLock();
    private RunRecorder opened; // the fail-fast recorder, handed to the first run started; guarded by lock

    private RunHistory(StoreLocation location, RunRecorder opened, PrintWriter err) {
        this.location = location;
        this.opened = opened;
        this.err = err;
    }

    static RunHistory open(HistoryOptions options, Map<String, String> env, PrintWriter err) {
        return open(new io.unibench.engine.spec.RunSpec.History(!options.noDb, options.store.db, options.tags), env, err);
    }

    /** The run history a spec names ({@code history.enabled} false: none). */
    static RunHistory open(io.unibench.engine.spec.RunSpec.History spec, Map<String, String> env, PrintWriter err) {
        if (!spec.enabled()) return new RunHistory(null, null, err);
        StoreLocation location = StoreOption.location(spec.db(), env, false);
        try {
            return new RunHistory(location, RunRecorder.open(location, err), err);
        } catch (SQLException e) {
            throw new BadInputException("--db " + location.display() + ": cannot open the run history ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + "); --no-db runs without it");
        }
    }

    /** The service's run history: its store is open already, so there is no fail-fast recorder to hand over. */
    static RunHistory at(StoreLocation location, PrintWriter err) {
        return new RunHistory(location, null, err);
    }

    /**
     * A history in {@code location} whose messages go to {@code err}: the scratch store of a {@code --no-db} run
     * that writes {@code --report html} (the report draws the stored runs' charts, then the store is deleted).
     */
    static RunHistory scratch(StoreLocation location, PrintWriter err) throws SQLException {
        return new RunHistory(location, RunRecorder.open(location, err), err);
    }

    /** Where the runs are stored; null with {@code --no-db}. */
    StoreLocation location() {
        return location;
    }

    boolean enabled() {
        return location != null;
    }

    /** A recorder with its run started, or a disabled one ({@code --no-db}, or the store failed since: said on err). */
    RunRecorder start(RunStart start) {
        RunRecorder recorder = recorder();
        recorder.start(start);
        return recorder;
    }

    /**
     * A recorder writing into the run the service queued and started ({@code queuedRunId}), which keeps its name,
     * tags and configuration and gets {@code start}'s URL and environment.
     */
    RunRecorder adopt(String queuedRunId, RunStart start) {
        return recorder().adopt(queuedRunId, start.url(), start.environment());
    }

    private RunRecorder recorder() {
        if (location == null) return RunRecorder.disabled();
        RunRecorder recorder = takeOpened();
        if (recorder != null) return recorder;
        try {
            return RunRecorder.open(location, err);
        } catch (SQLException e) {
            err.println("Run history: not stored (" + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
            return RunRecorder.disabled();
        }
    }

    /**
     * Marks the stored runs {@code runIds} as {@code failed} with {@code reason}, whatever they said: a report file of
     * the whole run ({@code scenario_summary.txt}, {@code --report}) that could not be written once their targets
     * had ended. A store that fails here is said on err (the files and the exit code say the rest).
     */
    void markFailed(java.util.Collection<String> runIds, String reason) {
        if (location == null || runIds.isEmpty()) return;
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(location)) {
            for (String id : runIds) store.setStatus(id, io.unibench.store.RunRow.FAILED, reason);
        } catch (SQLException | RuntimeException e) {
            err.println("Warning: run history: runs " + String.join(", ", runIds) + " not marked failed ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
        }
    }

    /** Closes the fail-fast recorder when no run was started on it (a run stopped before its first point). */
    void closeUnused() {
        RunRecorder unused = takeOpened();
        if (unused != null) unused.finish(false);
    }

    private RunRecorder takeOpened() {
        lock.lock();
        try {
            RunRecorder r = opened;
            opened = null;
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** What every stored run says of where it ran: tool, machine, the way to the target, and the model. */
    static Map<String, Object> environment(String url, boolean embeddedSimulator, String model) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("tool_version", Version.current());
        env.put("git_commit", RunEnvironment.gitCommit(RunHistory.class));
        env.putAll(RunEnvironment.machine());
        env.put("local_address", RunEnvironment.localAddressToward(url));
        env.put("target_base_url", RunEnvironment.baseUrl(Secrets.redact(url)));
        env.put("embedded_simulator", embeddedSimulator);
        env.put("model", model);
        return env;
    }
}
