package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;

import java.sql.SQLException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Run history: SQLite or PostgreSQL, same schema ({@link Migrations}), over the database's pool ({@link Database}).
 * Every public method is one transaction of {@link Database#read} or {@link Database#write}: committed, or rolled
 * back when it throws, so a failure (a run that is not there, a constraint) leaves nothing open behind it. Thread-safe:
 * the writer thread, the benchmark's main thread and the web service's request threads share one store, each call on
 * a pooled connection of its own. The work is done by one class per responsibility: {@link RunWrites} (a run's life),
 * {@link RunQueries} (lists and runs), {@link RequestStreams} (a point's requests), {@link RunLifecycle} (abandoned
 * and queued runs) and {@link RunDeletion}.
 */
public final class RunStore implements AutoCloseable {
    /** A run on another host whose writer has not committed for this long is taken as abandoned. */
    static final long FOREIGN_STALE_MILLIS = 10 * 60_000L;
    /** The id of a run group's merged run is this prefix and the group's name. */
    public static final String MERGED_PREFIX = "group:";
    /** The order {@link #replay} streams a point's requests in. */
    static final String BY_END = "CASE WHEN end_ns IS NULL THEN 1 ELSE 0 END, end_ns, idx";
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final Database db;
    private final RunWrites writes;
    private final RunQueries queries;
    private final RequestStreams requests;
    private final RunLifecycle lifecycle;
    private final RunDeletion deletion;

    private RunStore(Database db) {
        this.db = db;
        this.writes = new RunWrites(db);
        this.queries = new RunQueries(db);
        this.requests = new RequestStreams(db);
        this.lifecycle = new RunLifecycle(db, writes, requests);
        this.deletion = new RunDeletion(db);
    }

    /** Opens (creating the SQLite file and its folder on first use; the schema migrated once per process). */
    public static RunStore open(StoreLocation location) throws SQLException {
        return new RunStore(Database.open(location));
    }

    /** A store over a database already open (tests: a {@link Database} with a fault injected); closing it closes it. */
    static RunStore over(Database db) {
        return new RunStore(db);
    }

    public StoreLocation location() {
        return db.location();
    }

    // ---- writing --------------------------------------------------------------------------------

    /** Inserts the run as {@code running}; returns its id (UTC start time and a random suffix). */
    public String createRun(RunStart s, Owner owner, long nowMillis) throws SQLException {
        return createRun(s, owner, nowMillis, RunRow.RUNNING);
    }

    /**
     * Inserts the run with the status given ({@link RunRow#RUNNING}, or {@link RunRow#QUEUED} for the service's
     * queue, whose {@code started_at} is the time it was queued until {@link #startQueued} sets the real start).
     */
    public String createRun(RunStart s, Owner owner, long nowMillis, String status) throws SQLException {
        String id = ZonedDateTime.now(ZoneOffset.UTC).format(ID_TIME) + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
        createRun(id, s, owner, nowMillis, status);
        return id;
    }

    /** Inserts the run under the id given (a sharded run's merge: {@code group:G}). */
    public void createRun(String id, RunStart s, Owner owner, long nowMillis, String status) throws SQLException {
        writes.createRun(id, s, owner, nowMillis, status);
    }

    /**
     * Stores another tool's run ({@code runs import}) whole, in one transaction: nothing of it when any part fails.
     * Returns its id.
     */
    public String storeImported(ImportedRun run, Owner owner) throws SQLException {
        String id = ZonedDateTime.now(ZoneOffset.UTC).format(ID_TIME) + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
        writes.storeImported(id, run, owner);
        return id;
    }

    public void addPoint(String runId, int index, RunInfo info, long startedAtMillis) throws SQLException {
        writes.addPoint(runId, index, info, startedAtMillis);
    }

    /**
     * One batch of request records in one transaction, with the run's counters and heartbeat.
     *
     * @param baseNanos the point's start, subtracted from every moment
     */
    public void insertRequests(String runId, int point, long baseNanos, List<RequestRecord> batch, long nowMillis)
            throws SQLException {
        writes.insertRequests(runId, point, baseNanos, batch, nowMillis);
    }

    public void heartbeat(String runId, long nowMillis) throws SQLException {
        writes.heartbeat(runId, nowMillis);
    }

    /** The point's summaries, percentiles, workload throughput and errors, as computed at its end. */
    public void savePointResult(String runId, int index, RunResult r) throws SQLException {
        writes.savePointResult(runId, index, r, Map.of());
    }

    public void savePointResult(String runId, int index, RunResult r, Map<String, Object> extraSummaryKeys)
            throws SQLException {
        writes.savePointResult(runId, index, r, extraSummaryKeys);
    }

    /** A point's {@code server_metrics.json} object (the target server's own metrics during it). */
    public void savePointServerMetrics(String runId, int index, String json) throws SQLException {
        writes.savePointServerMetrics(runId, index, json);
    }

    /**
     * A queued run begins: {@code running}, started now, owned by {@code owner}, with what is known once it runs
     * (its model, URL, configuration and environment). False when it is no longer queued (cancelled meanwhile).
     */
    public boolean startQueued(String runId, RunStart s, Owner owner, long nowMillis) throws SQLException {
        return writes.startQueued(runId, s, owner, nowMillis);
    }

    /** Where a started run really goes (an embedded simulator's port) and the environment it runs in. */
    public void setTarget(String runId, String url, Map<String, Object> environment) throws SQLException {
        writes.setTarget(runId, url, environment);
    }

    /**
     * Ends a run that is still queued or running with the status and one-line reason given (the service's cancel,
     * a failure before the first point); false when it had already ended.
     */
    public boolean endActive(String runId, String status, String reason, long nowMillis) throws SQLException {
        return writes.endActive(runId, status, reason, nowMillis);
    }

    /** Sets the status and reason of a run whatever its status (the service's verdict once its runner returned). */
    public void setStatus(String runId, String status, String reason) throws SQLException {
        writes.setStatus(runId, status, reason);
    }

    /** The stored request counts of a run whose requests live elsewhere (a sharded run's merge). */
    public void setCounts(String runId, long requests, long successes) throws SQLException {
        writes.setCounts(runId, requests, successes);
    }

    /** The run group a run belongs to: a shard's run, or the group's merged run (lists show only the latter). */
    public void setRunGroup(String runId, String group) throws SQLException {
        writes.setRunGroup(runId, group);
    }

    public void finishRun(String runId, String status, long nowMillis) throws SQLException {
        writes.finishRun(runId, status, nowMillis);
    }

    /** Why a recovered run ended (its reason): its process went away without storing its end. */
    public static final String ABANDONED_REASON = "the process running it ended without storing the run's end "
            + "(killed, e.g. kill -9, or crashed); what it stored up to its last commit is kept";

    /** The shards' rows a merged run's point is the union of (written with the merged run). */
    void addGroupParts(String runId, int point, List<MergedGroup.Part> parts) throws SQLException {
        writes.addGroupParts(runId, point, parts);
    }

    // ---- runs whose process is gone, deletion -----------------------------------------------------

    /**
     * Marks runs left {@code running} by a process that is gone as {@code interrupted} (ended at their last
     * commit) and computes the summaries of their unfinished points from the stored requests. A process of this
     * host is gone when its pid is not running (or belongs to a newer process); one of another host, when it has
     * not committed for {@link #FOREIGN_STALE_MILLIS}. Returns the ids recovered.
     */
    public List<String> recoverAbandoned(Owner me, long nowMillis) throws SQLException {
        return lifecycle.recoverAbandoned(me, nowMillis);
    }

    /**
     * Takes over the runs left {@code queued} by a service process that is gone (same rule as
     * {@link #recoverAbandoned}): they become {@code me}'s, to run in the order they were queued. Returns their ids
     * in that order.
     */
    public List<String> adoptQueued(Owner me, long nowMillis) throws SQLException {
        return lifecycle.adoptQueued(me, nowMillis);
    }

    /**
     * What {@link #deleteRun} removed: the runs, the one asked for first (empty when it was not stored), and the run
     * group whose merge claim it released (null when the run was not a merge), whose shards' runs stayed or not.
     */
    public record Deletion(List<String> runIds, String releasedGroup, boolean shardsKept) {}

    /**
     * The runs {@link #deleteRun} deletes with {@code runId}, it first: a run of several providers (X) with its
     * linked runs ({@code NAME/PROVIDER}, V13); one of those linked runs alone (X and its other providers stay, and X
     * no longer lists it); a merged run {@code group:G} with its shards' runs, unless {@code keepShards}.
     */
    public List<RunRow> deletedWith(String runId, boolean keepShards) throws SQLException {
        return deletion.deletedWith(runId, keepShards);
    }

    /**
     * Deletes {@link #deletedWith} in one transaction, with their requests. A merged run {@code group:G} also
     * releases its merge claim (V15), so the group can be merged again: with {@code keepShards} its shards' runs
     * stay (listed again until the service's poll or {@code runs merge G --store} stores the merge anew); without,
     * they and the shards' registrations go too, so nothing of G is left and the name may be used again.
     *
     * @throws IllegalStateException naming the run, when one of them is queued or running (nothing is deleted)
     */
    public Deletion deleteRun(String runId, boolean keepShards) throws SQLException {
        return deletion.deleteRun(runId, keepShards);
    }

    // ---- reading --------------------------------------------------------------------------------

    public List<RunRow> list(RunFilter f) throws SQLException {
        return queries.list(f);
    }

    /** How many runs the store holds. */
    public long count() throws SQLException {
        return queries.count();
    }

    /** A full run id from an id or a unique prefix of one. */
    public String resolveId(String idOrPrefix) throws SQLException {
        return queries.resolveId(idOrPrefix);
    }

    /** The run with its configuration, environment and points; bad input naming the id when there is none. */
    public StoredRun run(String runId) throws SQLException {
        return queries.run(runId);
    }

    /**
     * The first run imported from files of exactly these SHA-256 sums (its environment's {@code source_files}), or
     * null: {@code runs import} and the platform's upload refuse to store the same files twice unless asked.
     */
    public String importedAs(java.util.Collection<String> checksums) throws SQLException {
        return queries.importedAs(checksums);
    }

    /** The other providers' runs of a service run ({@link RunStart#parentRunId}), in the order they started. */
    public List<RunRow> linkedRuns(String parentRunId) throws SQLException {
        return queries.linkedRuns(parentRunId);
    }

    /** The service run a run belongs to (it is one of its providers after the first), or null. */
    public String parentRun(String runId) throws SQLException {
        return queries.parentRun(runId);
    }

    /** The server metrics stored for a point, or null when it had none. */
    public JsonNode pointServerMetrics(String runId, int index) throws SQLException {
        return queries.pointServerMetrics(runId, index);
    }

    /**
     * The last sweep point of each run given, by run id (a run's headline figures in a list of many runs): one
     * query per 500 runs, not one per run. Runs without a point are absent.
     */
    public Map<String, StoredPoint> lastPoints(List<String> runIds) throws SQLException {
        return queries.lastPoints(runIds);
    }

    /**
     * Streams a point's stored requests in index order, moments relative to the point's start; a merged run's
     * ({@code group:G}) are its shards', on the group's timeline ({@link GroupRequests}).
     */
    public void forEachRequest(String runId, int point, Consumer<RequestRecord> consumer) throws SQLException {
        requests.stream(runId, point, "idx", GroupRequests.BY_INDEX, consumer);
    }

    /**
     * Streams a point's stored requests in the order they finished (end, then index; a request without an end
     * last), the order a live run records them: what its metrics are rebuilt from. In index order the workload
     * timeline would run out of time order and its throughput come out too high.
     */
    public void replay(String runId, int point, Consumer<RequestRecord> consumer) throws SQLException {
        requests.stream(runId, point, BY_END, GroupRequests.BY_END, consumer);
    }

    /**
     * One request's moments for a chart of a point (milliseconds since the point's start; null when it did not
     * happen).
     */
    public record RequestSample(long index, double startMs, Double ttftMs, Double latencyMs, boolean success,
                                long startEpochMs) {}

    /**
     * At most {@code max} requests of a point, evenly spread over its request indices, for charts of one dot per
     * request: index lookups on the primary key, so a point of a million requests costs {@code max} lookups, not a
     * scan. {@code total} is the point's request count (indices 0 … total − 1).
     */
    public List<RequestSample> sampleRequests(String runId, int point, long total, int max) throws SQLException {
        return requests.sampleRequests(runId, point, total, max);
    }

    /**
     * Releases this store's share of the database's pool (the last one closes it). Declares {@code SQLException} as
     * a connection's close did, so the callers that close it quietly stay as they are.
     */
    @Override
    public void close() throws SQLException {
        db.close();
    }
}
