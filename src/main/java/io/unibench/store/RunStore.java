package io.unibench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Run history over one JDBC connection: SQLite or PostgreSQL, same schema ({@link Migrations}). Every public
 * method is one transaction; the object is thread-safe: one {@link ReentrantLock} serialises the calls (the writer
 * thread, the benchmark's main thread and the web service's request threads share it). A lock, not
 * {@code synchronized}: the web service reads on virtual threads, and on Java 21 a virtual thread blocked in JDBC I/O
 * inside a monitor pins its carrier (with PostgreSQL's pure-Java driver; SQLite's driver is JNI and pins whatever the
 * lock).
 */
public final class RunStore implements AutoCloseable {
    /** A run on another host whose writer has not committed for this long is taken as abandoned. */
    static final long FOREIGN_STALE_MILLIS = 10 * 60_000L;
    private static final Set<String> CONFIG_KEY_IGNORED =
            Set.of("name", "outputs_dir", "no_timestamp", "log_every_n_query", "debug");
    /** The id of a run group's merged run is this prefix and the group's name. */
    public static final String MERGED_PREFIX = "group:";
    private static final String MERGED_PREFIX_SQL = "'" + MERGED_PREFIX + "'";
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final StoreLocation location;
    private final Connection c;
    private final ReentrantLock lock = new ReentrantLock();

    private RunStore(StoreLocation location, Connection c) {
        this.location = location;
        this.c = c;
    }

    /** Opens (creating the SQLite file and its folder on first use) and migrates the schema. */
    public static RunStore open(StoreLocation location) throws SQLException {
        return new RunStore(location, connect(location));
    }

    /** A connection to the store, its folder created and its schema migrated, auto-commit off. */
    static Connection connect(StoreLocation location) throws SQLException {
        Connection c = location.connect();
        try {
            c.setAutoCommit(false);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public StoreLocation location() {
        return location;
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
        lock.lock();
        try {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO runs (run_id, name, model, url, status, "
                    + "started_at, heartbeat_at, owner_host, owner_pid, owner_started, config_key, config_json, "
                    + "environment_json, parent_run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, s.name());
                ps.setString(3, s.model());
                ps.setString(4, s.url());
                ps.setString(5, status);
                ps.setLong(6, nowMillis);
                ps.setLong(7, nowMillis);
                ps.setString(8, owner.host());
                ps.setLong(9, owner.pid());
                ps.setLong(10, owner.startedAt());
                ps.setString(11, configKey(s.config()));
                ps.setString(12, ResultJson.write(ResultJson.MAPPER.convertValue(s.config(), Object.class)));
                ps.setString(13, ResultJson.write(s.environment()));
                ps.setString(14, s.parentRunId());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_tags (run_id, tag) VALUES (?, ?)")) {
                for (String tag : new java.util.LinkedHashSet<>(s.tags())) {
                    ps.setString(1, id);
                    ps.setString(2, tag);
                    ps.executeUpdate();
                }
            }
            commit();
        } catch (SQLException | RuntimeException e) {
            rollback(e);
            throw e;
        } finally {
            lock.unlock();
        }
    }

    public void addPoint(String runId, int index, RunInfo info, long startedAtMillis)
            throws SQLException {
        lock.lock();
        try {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_points (run_id, point_index, label, "
                    + "concurrency, rate, number, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, runId);
                ps.setInt(2, index);
                ps.setString(3, info.label());
                ps.setInt(4, info.concurrency());
                ps.setDouble(5, info.rate());
                ps.setInt(6, info.number());
                ps.setLong(7, startedAtMillis);
                ps.executeUpdate();
            }
            commit();
        } finally {
            lock.unlock();
        }
    }

    /**
     * One batch of request records in one transaction, with the run's counters and heartbeat.
     *
     * @param baseNanos the point's start, subtracted from every moment
     */
    public void insertRequests(String runId, int point, long baseNanos, List<RequestRecord> batch,
                                            long nowMillis) throws SQLException {
        lock.lock();
        try {
            long successes = 0;
            ChunkTimes.Packer packer = new ChunkTimes.Packer();
            try (PreparedStatement ps = c.prepareStatement(RequestRows.INSERT)) {
                for (RequestRecord r : batch) {
                    RequestRows.bind(ps, runId, point, baseNanos, r, packer);
                    ps.addBatch();
                    if (r.success()) successes++;
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE runs SET heartbeat_at = ?, request_count = "
                    + "request_count + ?, success_count = success_count + ? WHERE run_id = ?")) {
                ps.setLong(1, nowMillis);
                ps.setLong(2, batch.size());
                ps.setLong(3, successes);
                ps.setString(4, runId);
                ps.executeUpdate();
            }
            commit();
        } finally {
            lock.unlock();
        }
    }

    public void heartbeat(String runId, long nowMillis) throws SQLException {
        update("UPDATE runs SET heartbeat_at = ? WHERE run_id = ?", nowMillis, runId);
    }

    /** The point's summaries, percentiles, workload throughput and errors, as computed at its end. */
    public void savePointResult(String runId, int index, RunResult r) throws SQLException {
        lock.lock();
        try {
            savePointResult(runId, index, r, Map.of());
        } finally {
            lock.unlock();
        }
    }

    public void savePointResult(String runId, int index, RunResult r, Map<String, Object> extraSummaryKeys)
            throws SQLException {
        update("UPDATE run_points SET summary_json = ?, percentiles_json = ?, workload_json = ?, errors_json = ?, "
                        + "traces_json = ?, turn_positions_json = ?, phases_json = ?, timeline_json = ? "
                        + "WHERE run_id = ? AND point_index = ?",
                ResultJson.summary(r, extraSummaryKeys), ResultJson.percentiles(r), ResultJson.workload(r),
                ResultJson.errors(r), ResultJson.traces(r), ResultJson.turnPositions(r), ResultJson.phases(r),
                ResultJson.timeline(r), runId, index);
    }

    /** A point's {@code server_metrics.json} object (the target server's own metrics during it). */
    public void savePointServerMetrics(String runId, int index, String json) throws SQLException {
        update("UPDATE run_points SET server_metrics_json = ? WHERE run_id = ? AND point_index = ?", json, runId, index);
    }

    /** The server metrics stored for a point, or null when it had none. */
    public JsonNode pointServerMetrics(String runId, int index) throws SQLException {
        lock.lock();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT server_metrics_json FROM run_points WHERE run_id = ? AND point_index = ?")) {
            ps.setString(1, runId);
            ps.setInt(2, index);
            JsonNode metrics;
            try (ResultSet rs = ps.executeQuery()) {
                metrics = rs.next() ? json(rs, 1) : null;
            }
            commit(); // ends the read: an open one keeps a snapshot the next write fails on (SQLite WAL)
            return metrics;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A queued run begins: {@code running}, started now, owned by {@code owner}, with what is known once it runs
     * (its model, URL, configuration and environment). False when it is no longer queued (cancelled meanwhile).
     */
    public boolean startQueued(String runId, RunStart s, Owner owner, long nowMillis) throws SQLException {
        return update("UPDATE runs SET status = ?, started_at = ?, heartbeat_at = ?, model = ?, url = ?, owner_host = ?, "
                        + "owner_pid = ?, owner_started = ?, config_key = ?, config_json = ?, environment_json = ? "
                        + "WHERE run_id = ? AND status = ?",
                RunRow.RUNNING, nowMillis, nowMillis, s.model(), s.url(), owner.host(), owner.pid(), owner.startedAt(),
                configKey(s.config()), ResultJson.write(ResultJson.MAPPER.convertValue(s.config(), Object.class)),
                ResultJson.write(s.environment()), runId, RunRow.QUEUED) == 1;
    }

    /** Where a started run really goes (an embedded simulator's port) and the environment it runs in. */
    public void setTarget(String runId, String url, Map<String, Object> environment) throws SQLException {
        update("UPDATE runs SET url = ?, environment_json = ? WHERE run_id = ?", url, ResultJson.write(environment), runId);
    }

    /**
     * Ends a run that is still queued or running with the status and one-line reason given (the service's cancel,
     * a failure before the first point); false when it had already ended.
     */
    public boolean endActive(String runId, String status, String reason, long nowMillis) throws SQLException {
        return update("UPDATE runs SET status = ?, status_reason = ?, ended_at = ?, heartbeat_at = ? "
                        + "WHERE run_id = ? AND status IN (?, ?)",
                status, reason, nowMillis, nowMillis, runId, RunRow.QUEUED, RunRow.RUNNING) == 1;
    }

    /** Sets the status and reason of a run whatever its status (the service's verdict once its runner returned). */
    public void setStatus(String runId, String status, String reason) throws SQLException {
        update("UPDATE runs SET status = ?, status_reason = ? WHERE run_id = ?", status, reason, runId);
    }

    /** The stored request counts of a run whose requests live elsewhere (a sharded run's merge). */
    public void setCounts(String runId, long requests, long successes) throws SQLException {
        update("UPDATE runs SET request_count = ?, success_count = ? WHERE run_id = ?", requests, successes, runId);
    }

    /** The run group a run belongs to: a shard's run, or the group's merged run (lists show only the latter). */
    public void setRunGroup(String runId, String group) throws SQLException {
        update("UPDATE runs SET run_group = ? WHERE run_id = ?", group, runId);
    }

    public void finishRun(String runId, String status, long nowMillis) throws SQLException {
        update("UPDATE runs SET status = ?, ended_at = ?, heartbeat_at = ? WHERE run_id = ?",
                status, nowMillis, nowMillis, runId);
    }

    /**
     * Marks runs left {@code running} by a process that is gone as {@code interrupted} (ended at their last
     * commit) and computes the summaries of their unfinished points from the stored requests. A process of this
     * host is gone when its pid is not running (or belongs to a newer process); one of another host, when it has
     * not committed for {@link #FOREIGN_STALE_MILLIS}. Returns the ids recovered.
     */
    public List<String> recoverAbandoned(Owner me, long nowMillis) throws SQLException {
        lock.lock();
        try {
            List<String> abandoned = ownedByTheGone(RunRow.RUNNING, me, nowMillis, false);
            commit();
            List<String> recovered = new ArrayList<>();
            for (String id : abandoned) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE runs SET status = ?, ended_at = heartbeat_at "
                        + "WHERE run_id = ? AND status = ?")) {
                    ps.setString(1, RunRow.INTERRUPTED);
                    ps.setString(2, id);
                    ps.setString(3, RunRow.RUNNING);
                    if (ps.executeUpdate() == 0) {
                        commit();
                        continue; // another process recovered it first
                    }
                }
                commit();
                recovered.add(id);
                for (StoredPoint p : points(id)) {
                    if (p.summary() != null) continue;
                    RunMetrics metrics = new RunMetrics();
                    replay(id, p.index(), metrics::accept);
                    savePointResult(id, p.index(), metrics.result(p.info()));
                }
            }
            return recovered;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The runs of this status whose owner is gone (oldest first): of this host, its pid is not running (or belongs
     * to a newer process); of another host, it has not committed for {@link #FOREIGN_STALE_MILLIS}. {@code me}'s own
     * runs count as gone only when {@code includeMine} (queued runs of this process have no thread yet).
     */
    private List<String> ownedByTheGone(String status, Owner me, long nowMillis, boolean includeMine)
            throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT run_id, owner_host, owner_pid, owner_started, "
                + "heartbeat_at FROM runs WHERE status = ? ORDER BY started_at, run_id")) {
            ps.setString(1, status);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Owner owner = new Owner(rs.getString(2), rs.getLong(3), rs.getLong(4));
                    boolean local = owner.host().equals(me.host());
                    boolean self = local && owner.pid() == me.pid();
                    boolean gone = self ? includeMine
                            : local ? owner.deadOn(me.host()) : nowMillis - rs.getLong(5) > FOREIGN_STALE_MILLIS;
                    if (gone) out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * Takes over the runs left {@code queued} by a service process that is gone (same rule as
     * {@link #recoverAbandoned}): they become {@code me}'s, to run in the order they were queued. Returns their ids
     * in that order.
     */
    public List<String> adoptQueued(Owner me, long nowMillis) throws SQLException {
        lock.lock();
        try {
            List<String> gone = ownedByTheGone(RunRow.QUEUED, me, nowMillis, true);
            List<String> adopted = new ArrayList<>();
            for (String id : gone) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE runs SET owner_host = ?, owner_pid = ?, "
                        + "owner_started = ?, heartbeat_at = ? WHERE run_id = ? AND status = ?")) {
                    ps.setString(1, me.host());
                    ps.setLong(2, me.pid());
                    ps.setLong(3, me.startedAt());
                    ps.setLong(4, nowMillis);
                    ps.setString(5, id);
                    ps.setString(6, RunRow.QUEUED);
                    if (ps.executeUpdate() == 1) adopted.add(id);
                }
            }
            commit();
            return adopted;
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            String group = runId.startsWith(MERGED_PREFIX) ? runId.substring(MERGED_PREFIX.length()) : null;
            List<RunRow> rows = new ArrayList<>(queryRuns("SELECT " + RUN_COLUMNS + " FROM runs r WHERE r.run_id = ?",
                    List.of(runId)));
            if (!rows.isEmpty() && group == null) {
                rows.addAll(queryRuns("SELECT " + RUN_COLUMNS + " FROM runs r WHERE r.parent_run_id = ? "
                        + "ORDER BY r.started_at, r.run_id", List.of(runId)));
            } else if (!rows.isEmpty() && !keepShards) {
                rows.addAll(queryRuns("SELECT " + RUN_COLUMNS + " FROM runs r WHERE r.run_group = ? AND r.run_id <> ? "
                        + "ORDER BY r.started_at, r.run_id", List.of(group, runId)));
            }
            commit();
            return rows;
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            List<RunRow> rows = deletedWith(runId, keepShards);
            String group = runId.startsWith(MERGED_PREFIX) && !rows.isEmpty() ? runId.substring(MERGED_PREFIX.length())
                    : null;
            for (RunRow r : rows) {
                if (r.active()) {
                    throw new IllegalStateException("run " + r.runId() + (r.runId().equals(runId) ? "" : ", deleted with "
                            + runId + ",") + " is " + r.status() + "; cancel it first");
                }
            }
            try {
                for (RunRow r : rows) {
                    // explicit order: no reliance on cascades being enabled on every connection
                    for (String table : List.of("requests", "run_group_parts", "run_points", "run_tags", "runs")) {
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE run_id = ?")) {
                            ps.setString(1, r.runId());
                            ps.executeUpdate();
                        }
                    }
                }
                if (group != null) {
                    for (String table : keepShards ? List.of("run_group_merges") : List.of("run_group_merges", "run_shards")) {
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE run_group = ?")) {
                            ps.setString(1, group);
                            ps.executeUpdate();
                        }
                    }
                }
                commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
            return new Deletion(rows.stream().map(RunRow::runId).toList(), group, keepShards);
        } finally {
            lock.unlock();
        }
    }

    // ---- reading --------------------------------------------------------------------------------

    public List<RunRow> list(RunFilter f) throws SQLException {
        lock.lock();
        try {
            // a sharded run is listed once: its merged run (group:G) stands for its shards' runs once it exists
            StringBuilder sql = new StringBuilder("SELECT " + RUN_COLUMNS + " FROM runs r WHERE NOT (r.run_group IS "
                    + "NOT NULL AND r.run_id <> " + MERGED_PREFIX_SQL + " || r.run_group AND EXISTS (SELECT 1 FROM runs m "
                    + "WHERE m.run_id = " + MERGED_PREFIX_SQL + " || r.run_group))");
            List<Object> args = new ArrayList<>();
            like(sql, args, "r.model", f.model());
            like(sql, args, "r.url", f.url());
            like(sql, args, "r.name", f.name());
            if (f.status() != null) {
                sql.append(" AND r.status = ?");
                args.add(f.status());
            }
            if (f.since() != null) {
                sql.append(" AND r.started_at >= ?");
                args.add(f.since());
            }
            if (f.until() != null) {
                sql.append(" AND r.started_at < ?");
                args.add(f.until());
            }
            for (String tag : f.tags()) {
                sql.append(" AND EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.run_id AND t.tag = ?)");
                args.add(tag);
            }
            if (f.after() != null) { // keyset paging in the list's order: runs older than the cursor's
                sql.append(" AND (r.started_at < ? OR (r.started_at = ? AND r.run_id < ?))");
                args.add(f.after().startedAt());
                args.add(f.after().startedAt());
                args.add(f.after().runId());
            }
            sql.append(" ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?");
            args.add(f.limit());
            List<RunRow> rows = queryRuns(sql.toString(), args);
            commit();
            return rows;
        } finally {
            lock.unlock();
        }
    }

    /** How many runs the store holds. */
    public long count() throws SQLException {
        lock.lock();
        try {
            long n;
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM runs");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                n = rs.getLong(1);
            }
            commit();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** A full run id from an id or a unique prefix of one. */
    public String resolveId(String idOrPrefix) throws SQLException {
        lock.lock();
        try {
            // an empty prefix would match every run and pick one when the store holds only one
            if (idOrPrefix.isBlank()) throw new BadInputException("run '" + idOrPrefix + "': empty; give a run id or a prefix of one");
            List<String> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT run_id FROM runs WHERE run_id = ? OR run_id LIKE ? ESCAPE '\\' ORDER BY run_id LIMIT 3")) {
                ps.setString(1, idOrPrefix);
                ps.setString(2, escapeLike(idOrPrefix) + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) ids.add(rs.getString(1));
                }
            }
            commit();
            if (ids.contains(idOrPrefix)) return idOrPrefix;
            if (ids.isEmpty()) throw new BadInputException("run '" + idOrPrefix + "': no such run in " + location.display());
            if (ids.size() > 1) {
                throw new BadInputException("run '" + idOrPrefix + "': ambiguous (" + String.join(", ", ids.subList(0, 2))
                        + ", …); give more of the id");
            }
            return ids.getFirst();
        } finally {
            lock.unlock();
        }
    }

    public StoredRun run(String runId) throws SQLException {
        lock.lock();
        try {
            List<RunRow> rows = queryRuns("SELECT " + RUN_COLUMNS + " FROM runs r WHERE r.run_id = ?", List.of(runId));
            if (rows.isEmpty()) throw new BadInputException("run '" + runId + "': no such run in " + location.display());
            JsonNode config;
            JsonNode env;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT config_json, environment_json FROM runs WHERE run_id = ?")) {
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    config = ResultJson.read(rs.getString(1));
                    env = ResultJson.read(rs.getString(2));
                }
            }
            List<StoredPoint> points = points(runId);
            commit();
            return new StoredRun(rows.getFirst(), config, env, points);
        } finally {
            lock.unlock();
        }
    }

    /** The other providers' runs of a service run ({@link RunStart#parentRunId}), in the order they started. */
    public List<RunRow> linkedRuns(String parentRunId) throws SQLException {
        lock.lock();
        try {
            List<RunRow> rows = queryRuns("SELECT " + RUN_COLUMNS + " FROM runs r WHERE r.parent_run_id = ? "
                    + "ORDER BY r.started_at, r.run_id", List.of(parentRunId));
            commit();
            return rows;
        } finally {
            lock.unlock();
        }
    }

    /** The service run a run belongs to (it is one of its providers after the first), or null. */
    public String parentRun(String runId) throws SQLException {
        lock.lock();
        try (PreparedStatement ps = c.prepareStatement("SELECT parent_run_id FROM runs WHERE run_id = ?")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                String parent = rs.next() ? rs.getString(1) : null;
                commit();
                return parent;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Streams a point's stored requests in index order, moments relative to the point's start; a merged run's
     * ({@code group:G}) are its shards', on the group's timeline ({@link GroupRequests}).
     */
    public void forEachRequest(String runId, int point, Consumer<RequestRecord> consumer) throws SQLException {
        stream(runId, point, "idx", GroupRequests.BY_INDEX, consumer);
    }

    /**
     * Streams a point's stored requests in the order they finished (end, then index; a request without an end
     * last), the order a live run records them: what its metrics are rebuilt from. In index order the workload
     * timeline would run out of time order and its throughput come out too high.
     */
    public void replay(String runId, int point, Consumer<RequestRecord> consumer) throws SQLException {
        stream(runId, point, "CASE WHEN end_ns IS NULL THEN 1 ELSE 0 END, end_ns, idx", GroupRequests.BY_END, consumer);
    }

    private void stream(String runId, int point, String order, String unionOrder, Consumer<RequestRecord> consumer)
            throws SQLException {
        lock.lock();
        try {
            List<MergedGroup.Part> parts = GroupRequests.parts(c, runId, point);
            try (PreparedStatement ps = c.prepareStatement(parts.isEmpty() ? RequestRows.SELECT
                    + " WHERE run_id = ? AND point_index = ? ORDER BY " + order : GroupRequests.union(parts, unionOrder))) {
                if (parts.isEmpty()) {
                    ps.setString(1, runId);
                    ps.setInt(2, point);
                } else {
                    GroupRequests.bind(ps, parts, point);
                }
                ps.setFetchSize(2000); // PostgreSQL streams with a cursor instead of loading every row
                try (ResultSet rs = ps.executeQuery()) {
                    int part = parts.isEmpty() ? 0 : rs.findColumn("part");
                    while (rs.next()) {
                        RequestRecord r = RequestRows.read(rs);
                        consumer.accept(parts.isEmpty() ? r : parts.get(rs.getInt(part)).timeline().place(r));
                    }
                }
            }
            commit();
        } finally {
            lock.unlock();
        }
    }

    /** The shards' rows a merged run's point is the union of (written with the merged run). */
    void addGroupParts(String runId, int point, List<MergedGroup.Part> parts) throws SQLException {
        lock.lock();
        try {
            GroupRequests.insert(c, runId, point, parts);
            commit();
        } finally {
            lock.unlock();
        }
    }

    private static final String RUN_COLUMNS = "r.run_id, r.name, r.model, r.url, r.status, r.started_at, "
            + "r.ended_at, r.request_count, r.success_count, r.config_key, r.status_reason";

    private List<RunRow> queryRuns(String sql, List<?> args) throws SQLException {
        List<Object[]> raw = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindAll(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long ended = rs.getLong(7);
                    Long endedAt = rs.wasNull() ? null : ended;
                    raw.add(new Object[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getLong(6), endedAt, rs.getLong(8), rs.getLong(9), rs.getString(10),
                            rs.getString(11)});
                }
            }
        }
        Map<String, List<String>> tags = tags(raw.stream().map(r -> (String) r[0]).toList());
        List<RunRow> rows = new ArrayList<>(raw.size());
        for (Object[] r : raw) {
            rows.add(new RunRow((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4],
                    (Long) r[5], (Long) r[6], (Long) r[7], (Long) r[8], tags.getOrDefault((String) r[0], List.of()),
                    (String) r[9], (String) r[10]));
        }
        return rows;
    }

    /** Tags of many runs in chunks of 500 ids (one query per chunk, not one per run). */
    private Map<String, List<String>> tags(List<String> runIds) throws SQLException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int from = 0; from < runIds.size(); from += 500) {
            List<String> chunk = runIds.subList(from, Math.min(runIds.size(), from + 500));
            String marks = String.join(", ", java.util.Collections.nCopies(chunk.size(), "?"));
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT run_id, tag FROM run_tags WHERE run_id IN (" + marks + ") ORDER BY run_id, tag")) {
                bindAll(ps, chunk);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return out;
    }

    private static final String POINT_COLUMNS = "point_index, label, concurrency, rate, number, started_at, "
            + "summary_json, percentiles_json, workload_json, errors_json, traces_json, turn_positions_json, "
            + "phases_json, timeline_json";

    private List<StoredPoint> points(String runId) throws SQLException {
        List<StoredPoint> points = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + POINT_COLUMNS + " FROM run_points "
                + "WHERE run_id = ? ORDER BY point_index")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) points.add(point(rs));
            }
        }
        return points;
    }

    private static StoredPoint point(ResultSet rs) throws SQLException {
        return point(rs, 0);
    }

    /** The point of the current row, its {@link #POINT_COLUMNS} starting after {@code skip} other columns. */
    private static StoredPoint point(ResultSet rs, int skip) throws SQLException {
        int i = skip;
        return new StoredPoint(rs.getInt(i + 1), rs.getString(i + 2), rs.getInt(i + 3), rs.getDouble(i + 4),
                rs.getInt(i + 5), rs.getLong(i + 6), json(rs, i + 7), json(rs, i + 8), json(rs, i + 9), json(rs, i + 10),
                new StoredPoint.Details(json(rs, i + 11), json(rs, i + 12), json(rs, i + 13), json(rs, i + 14)));
    }

    private static JsonNode json(ResultSet rs, int column) throws SQLException {
        return ResultJson.read(rs.getString(column));
    }

    /**
     * The last sweep point of each run given, by run id (a run's headline figures in a list of many runs): one
     * query per 500 runs, not one per run. Runs without a point are absent.
     */
    public Map<String, StoredPoint> lastPoints(List<String> runIds) throws SQLException {
        lock.lock();
        try {
            Map<String, StoredPoint> out = new LinkedHashMap<>();
            for (int from = 0; from < runIds.size(); from += 500) {
                List<String> chunk = runIds.subList(from, Math.min(runIds.size(), from + 500));
                String marks = String.join(", ", java.util.Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement ps = c.prepareStatement("SELECT p.run_id, " + POINT_COLUMNS.replace("point_index,",
                        "p.point_index,") + " FROM run_points p WHERE p.run_id IN (" + marks + ") AND p.point_index = "
                        + "(SELECT MAX(q.point_index) FROM run_points q WHERE q.run_id = p.run_id)")) {
                    bindAll(ps, chunk);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) out.put(rs.getString(1), point(rs, 1));
                    }
                }
            }
            commit();
            return out;
        } finally {
            lock.unlock();
        }
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
    public List<RequestSample> sampleRequests(String runId, int point, long total, int max)
            throws SQLException {
        lock.lock();
        try {
            List<MergedGroup.Part> parts = GroupRequests.parts(c, runId, point);
            if (parts.isEmpty()) return sample(runId, point, total, max);
            // a merged run: each shard's share of the dots from its own rows, placed on the group's timeline
            long all = parts.stream().mapToLong(MergedGroup.Part::requests).sum();
            List<RequestSample> out = new ArrayList<>();
            for (MergedGroup.Part p : parts) {
                int share = (int) Math.max(1, Math.round((double) max * p.requests() / Math.max(1, all)));
                for (RequestSample s : sample(p.runId(), point, p.requests(), share)) {
                    out.add(new RequestSample(p.firstIndex() + s.index() * p.indexStep(), s.startMs() + p.shiftNanos() / 1e6,
                            s.ttftMs(), s.latencyMs(), s.success(), s.startEpochMs() - p.offsetMillis()));
                }
            }
            out.sort(java.util.Comparator.comparingLong(RequestSample::index));
            return out;
        } finally {
            lock.unlock();
        }
    }

    private List<RequestSample> sample(String runId, int point, long total, int max) throws SQLException {
        lock.lock();
        try {
            List<RequestSample> out = new ArrayList<>();
            if (total <= 0 || max <= 0) return out;
            double stride = Math.max(1.0, (double) total / max);
            List<Long> indices = new ArrayList<>();
            for (double i = 0; i < total && indices.size() < max; i += stride) indices.add((long) i);
            for (int from = 0; from < indices.size(); from += 500) {
                List<Long> chunk = indices.subList(from, Math.min(indices.size(), from + 500));
                String marks = String.join(", ", java.util.Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement ps = c.prepareStatement("SELECT idx, start_ns, first_token_ns, end_ns, success, "
                        + "start_epoch_ms "
                        + "FROM requests WHERE run_id = ? AND point_index = ? AND idx IN (" + marks + ") ORDER BY idx")) {
                    ps.setString(1, runId);
                    ps.setInt(2, point);
                    for (int i = 0; i < chunk.size(); i++) ps.setLong(i + 3, chunk.get(i));
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long start = rs.getLong(2);
                            if (rs.wasNull()) continue;
                            long first = rs.getLong(3);
                            Double ttft = rs.wasNull() ? null : (first - start) / 1e6;
                            long end = rs.getLong(4);
                            Double latency = rs.wasNull() ? null : (end - start) / 1e6;
                            out.add(new RequestSample(rs.getLong(1), start / 1e6, ttft, latency, rs.getInt(5) != 0,
                                    rs.getLong(6)));
                        }
                    }
                }
            }
            commit();
            return out;
        } finally {
            lock.unlock();
        }
    }

    private static void like(StringBuilder sql, List<Object> args, String column, String value) {
        if (value == null || value.isEmpty()) return;
        sql.append(" AND LOWER(").append(column).append(") LIKE ? ESCAPE '\\'");
        args.add("%" + escapeLike(value.toLowerCase(java.util.Locale.ROOT)) + "%");
    }

    private static String escapeLike(String s) {
        return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    private static void bindAll(PreparedStatement ps, List<?> args) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            Object a = args.get(i);
            if (a instanceof String s) ps.setString(i + 1, s);
            else if (a instanceof Long l) ps.setLong(i + 1, l);
            else if (a instanceof Integer n) ps.setInt(i + 1, n);
            else throw new IllegalArgumentException("unsupported argument " + a);
        }
    }

    private void commit() throws SQLException {
        c.commit();
    }

    /**
     * Ends a failed transaction: left open it would hold SQLite's write lock (other connections wait, then fail) or a
     * stale snapshot (every later write on this connection fails at once), so one failure would fail every call after.
     */
    private void rollback(Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * One statement that changes rows, committed, under the store's lock: {@code args} bound in order (a String,
     * null included, as text; an Integer or Long as a number). Returns how many rows it changed.
     */
    private int update(String sql, Object... args) throws SQLException {
        lock.lock();
        try {
            int n;
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    switch (args[i]) {
                        case Integer v -> ps.setInt(i + 1, v);
                        case Long v -> ps.setLong(i + 1, v);
                        case null -> ps.setString(i + 1, null);
                        default -> ps.setString(i + 1, (String) args[i]);
                    }
                }
                n = ps.executeUpdate();
            }
            commit();
            return n;
        } catch (SQLException | RuntimeException e) {
            rollback(e);
            throw e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Hash of the configuration minus what does not change the measurement (names, output places, logging):
     * runs with the same key are repeats, whose spread tells a real difference from noise.
     */
    static String configKey(JsonNode config) {
        ObjectNode copy = config != null && config.isObject() ? ((ObjectNode) config).deepCopy()
                : ResultJson.MAPPER.createObjectNode();
        CONFIG_KEY_IGNORED.forEach(copy::remove);
        // the embedded simulator listens on a new free port each run: its URL says nothing about the target
        if (copy.path("embedded_simulator").asBoolean(false)) copy.remove("url");
        try {
            Object canonical = ResultJson.MAPPER.convertValue(copy, Object.class);
            String text = ResultJson.MAPPER.copy().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
                    .writeValueAsString(canonical);
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 12);
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws SQLException {
        lock.lock();
        try {
            c.close();
        } finally {
            lock.unlock();
        }
    }
}
