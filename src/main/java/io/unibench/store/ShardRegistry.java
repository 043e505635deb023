package io.unibench.store;

import io.unibench.BadInputException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The shards of run groups ({@code run_shards}, V12) on their own connection to the store: a shard registers
 * (slice, clock offset, owner), waits at the start barrier by counting its group's registrations, links its run and
 * records how it ended; {@code runs merge} reads them back. Every method is one {@link Database} transaction.
 */
public final class ShardRegistry implements AutoCloseable {
    private static final String COLUMNS = "run_group, shard_index, shard_count, run_id, status, first_index, "
            + "registered_at, clock_offset_us, clock_rtt_us, owner_host, owner_pid, owner_started, selfcheck, ended_at";

    private final StoreLocation location;
    private final Database db;

    private ShardRegistry(StoreLocation location, Database db) {
        this.location = location;
        this.db = db;
    }

    public static ShardRegistry open(StoreLocation location) throws SQLException {
        return new ShardRegistry(location, Database.open(location));
    }

    public StoreLocation location() {
        return location;
    }

    /** The database's clock, epoch µs (PostgreSQL's {@code clock_timestamp()}; SQLite's is this machine's, in ms). */
    public long databaseNowMicros() throws SQLException {
        String sql = location.dialect() == Dialect.POSTGRES
                ? "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
                // SQLite's clock has whole milliseconds; julianday's double (~40 µs apart at today's dates) was off by up
                // to ~20 µs of them, so an offset fell outside its round trip's bound (GroupMergeTest, 1,009 > 1,003 µs)
                : "SELECT CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER) * 1000";
        return db.read(c -> Sql.first(c, sql, rs -> rs.getLong(1)));
    }

    /** This process's clock ({@code localMicros}, epoch µs) against the database's. */
    public ClockOffset measureOffset(LongSupplier localMicros) throws SQLException {
        return ClockOffset.measure(localMicros, this::databaseNowMicros, ClockOffset.SAMPLES);
    }

    /**
     * Registers shard {@code index}/{@code count} of {@code group}. A group's shards must agree on N, and each index
     * registers once: a second registration (a retried pod, a reused group name) would send its slice twice, so it
     * is bad input naming the flag.
     */
    public void register(String group, int index, int count, long firstIndex, ClockOffset clock, Owner owner)
            throws SQLException {
        try {
            db.write(c -> {
                Sql.update(c, "INSERT INTO run_shards (run_group, shard_index, shard_count, status, first_index, "
                                + "registered_at, clock_offset_us, clock_rtt_us, owner_host, owner_pid, owner_started) "
                                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", group, index, count, ShardRow.REGISTERED,
                        firstIndex, databaseMillis(c), clock.offsetMicros(), clock.rttMicros(), owner.host(),
                        owner.pid(), owner.startedAt());
                Integer theirs = Sql.first(c, "SELECT shard_count FROM run_shards WHERE run_group = ? AND shard_count <> ?",
                        rs -> rs.getInt(1), group, count);
                if (theirs != null) { // the registration is rolled back with the transaction
                    throw new BadInputException("--shard " + index + "/" + count + ": run group '" + group + "' has "
                            + theirs + " shards; every shard of a group gives the same N");
                }
                return null;
            });
        } catch (SQLException e) {
            if (!isUniqueViolation(e)) throw e;
            ShardRow holder = shards(group).stream().filter(r -> r.index() == index).findFirst().orElse(null);
            throw duplicate(group, index, count, holder == null ? "?" : holder.owner().host(),
                    holder == null ? 0 : holder.owner().pid());
        }
    }

    private static BadInputException duplicate(String group, int index, int count, String host, long pid) {
        return new BadInputException("--shard " + index + "/" + count + ": run group '" + group + "' already has shard "
                + index + " (registered by " + host + (pid > 0 ? " pid " + pid : "") + "); give each run a new "
                + "--run-group");
    }

    static boolean isUniqueViolation(SQLException e) {
        String state = e.getSQLState();
        String message = String.valueOf(e.getMessage());
        return "23505".equals(state) || message.contains("UNIQUE constraint") || message.contains("PRIMARY KEY");
    }

    private long databaseMillis(Connection c) throws SQLException {
        String sql = location.dialect() == Dialect.POSTGRES
                ? "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
                : "SELECT CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)";
        return Sql.first(c, sql, rs -> rs.getLong(1));
    }

    /** How many shards of the group have registered (the start barrier waits for all N). */
    public int registered(String group) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT COUNT(*) FROM run_shards WHERE run_group = ?", rs -> rs.getInt(1), group));
    }

    /**
     * The shard has reached sweep point {@code point} (a scenario file's level after the first) and waits there;
     * {@link #arrived} counts it.
     */
    public void arrive(String group, int index, int point) throws SQLException {
        db.write(c -> Sql.update(c, "UPDATE run_shards SET barrier_point = ? WHERE run_group = ? AND shard_index = ?",
                point, group, index));
    }

    /** The group's shards at point {@code point} or past it, and those that ended (they will not come). */
    public int arrived(String group, int point) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT COUNT(*) FROM run_shards WHERE run_group = ? AND "
                + "(barrier_point >= ? OR status NOT IN (?, ?))", rs -> rs.getInt(1), group, point, ShardRow.REGISTERED,
                ShardRow.RUNNING));
    }

    /** The barrier passed: the shard is sending. */
    public void started(String group, int index) throws SQLException {
        db.write(c -> Sql.update(c, "UPDATE run_shards SET status = ? WHERE run_group = ? AND shard_index = ?",
                ShardRow.RUNNING, group, index));
    }

    /** How the shard ended: its run (null when it stored none), status as the run's, and its self-check verdict. */
    public void finish(String group, int index, String runId, String status, String selfCheck) throws SQLException {
        db.write(c -> Sql.update(c, "UPDATE run_shards SET run_id = ?, status = ?, selfcheck = ?, ended_at = ? "
                + "WHERE run_group = ? AND shard_index = ?", runId, status, selfCheck, databaseMillis(c), group, index));
    }

    /** The group's shards in index order; empty when no shard registered under that name. */
    public List<ShardRow> shards(String group) throws SQLException {
        return db.read(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM run_shards WHERE run_group = ? ORDER BY shard_index",
                rs -> new ShardRow(rs.getString(1), rs.getInt(2), rs.getInt(3), rs.getString(4), rs.getString(5),
                        rs.getLong(6), rs.getLong(7), new ClockOffset(rs.getLong(8), rs.getLong(9)),
                        new Owner(rs.getString(10), rs.getLong(11), rs.getLong(12)), rs.getString(13),
                        Sql.optLong(rs, 14)), group));
    }

    /**
     * The shard's run: the one it linked, else (killed before it could) the first run its process started after it
     * registered; null when it started none.
     */
    public String runOf(ShardRow shard) throws SQLException {
        if (shard.runId() != null) return shard.runId();
        // started_at is the shard's clock, registered_at the database's: allow for the offset (and a second)
        return db.read(c -> Sql.first(c, "SELECT run_id FROM runs WHERE owner_host = ? AND owner_pid = ? "
                        + "AND owner_started = ? AND started_at >= ? ORDER BY started_at LIMIT 1", rs -> rs.getString(1),
                shard.owner().host(), shard.owner().pid(), shard.owner().startedAt(),
                shard.registeredAt() + shard.clock().offsetMicros() / 1000 - 1000));
    }

    /** The last commit of a run's writer (epoch ms, the writer's clock), or null when the run is not stored. */
    Long lastCommitMillis(String runId) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT heartbeat_at FROM runs WHERE run_id = ?", rs -> rs.getLong(1), runId));
    }

    /**
     * Where a point of a stored run starts on its own process's wall clock, epoch µs: a request's epoch start is read
     * just before its monotonic start, so {@code epoch − start} bounds the point's origin from below, and the
     * largest such bound over its requests is within a millisecond of it (epoch starts are whole milliseconds).
     * Null when the point stored no started request.
     */
    Long pointOriginMicros(String runId, int point) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT MAX(start_epoch_ms * 1000 - start_ns / 1000) FROM requests "
                + "WHERE run_id = ? AND point_index = ? AND start_ns IS NOT NULL", rs -> Sql.optLong(rs, 1), runId, point));
    }

    /** Releases this registry's share of the database's pool ({@link RunStore#close}). */
    @Override
    public void close() throws SQLException {
        db.close();
    }
}
