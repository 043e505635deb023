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
 * records how it ended; {@code runs merge} reads them back. Every method is one transaction. Used by one thread.
 */
public final class ShardRegistry implements AutoCloseable {
    private static final String COLUMNS = "run_group, shard_index, shard_count, run_id, status, first_index, "
            + "registered_at, clock_offset_us, clock_rtt_us, owner_host, owner_pid, owner_started, selfcheck, ended_at";

    private final StoreLocation location;
    private final Connection c;

    private ShardRegistry(StoreLocation location, Connection c) {
        this.location = location;
        this.c = c;
    }

    public static ShardRegistry open(StoreLocation location) throws SQLException {
        return new ShardRegistry(location, RunStore.connect(location));
    }

    public StoreLocation location() {
        return location;
    }

    /** The database's clock, epoch µs (PostgreSQL's {@code clock_timestamp()}; SQLite's is this machine's, in ms). */
    public long databaseNowMicros() throws SQLException {
        String sql = location.dialect() == Dialect.POSTGRES
                ? "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
                : "SELECT CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)";
        long now;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            now = rs.getLong(1);
        }
        commit();
        return now;
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
        // the write first: SQLite then waits for the write lock (busy timeout) instead of failing to upgrade a read
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_shards (run_group, shard_index, "
                + "shard_count, status, first_index, registered_at, clock_offset_us, clock_rtt_us, owner_host, "
                + "owner_pid, owner_started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, group);
            ps.setInt(2, index);
            ps.setInt(3, count);
            ps.setString(4, ShardRow.REGISTERED);
            ps.setLong(5, firstIndex);
            ps.setLong(6, databaseMillisInTransaction());
            ps.setLong(7, clock.offsetMicros());
            ps.setLong(8, clock.rttMicros());
            ps.setString(9, owner.host());
            ps.setLong(10, owner.pid());
            ps.setLong(11, owner.startedAt());
            ps.executeUpdate();
        } catch (SQLException e) {
            c.rollback();
            if (!isUniqueViolation(e)) throw e;
            ShardRow holder = shards(group).stream().filter(r -> r.index() == index).findFirst().orElse(null);
            throw duplicate(group, index, count, holder == null ? "?" : holder.owner().host(),
                    holder == null ? 0 : holder.owner().pid());
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT shard_count FROM run_shards WHERE run_group = ? AND shard_count <> ?")) {
            ps.setString(1, group);
            ps.setInt(2, count);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    int theirs = rs.getInt(1);
                    rs.close();
                    c.rollback();
                    throw new BadInputException("--shard " + index + "/" + count + ": run group '" + group + "' has "
                            + theirs + " shards; every shard of a group gives the same N");
                }
            }
        }
        c.commit();
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

    private long databaseMillisInTransaction() throws SQLException {
        String sql = location.dialect() == Dialect.POSTGRES
                ? "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
                : "SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** How many shards of the group have registered (the start barrier waits for all N). */
    public int registered(String group) throws SQLException {
        int n;
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM run_shards WHERE run_group = ?")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                n = rs.getInt(1);
            }
        }
        commit();
        return n;
    }

    /**
     * The shard has reached sweep point {@code point} (a scenario file's level after the first) and waits there;
     * {@link #arrived} counts it.
     */
    public void arrive(String group, int index, int point) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE run_shards SET barrier_point = ? WHERE run_group = ? AND shard_index = ?")) {
            ps.setInt(1, point);
            ps.setString(2, group);
            ps.setInt(3, index);
            ps.executeUpdate();
        }
        c.commit();
    }

    /** The group's shards at point {@code point} or past it, and those that ended (they will not come). */
    public int arrived(String group, int point) throws SQLException {
        int n;
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM run_shards WHERE run_group = ? AND "
                + "(barrier_point >= ? OR status NOT IN (?, ?))")) {
            ps.setString(1, group);
            ps.setInt(2, point);
            ps.setString(3, ShardRow.REGISTERED);
            ps.setString(4, ShardRow.RUNNING);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                n = rs.getInt(1);
            }
        }
        commit();
        return n;
    }

    /** The barrier passed: the shard is sending. */
    public void started(String group, int index) throws SQLException {
        update(group, index, "UPDATE run_shards SET status = ? WHERE run_group = ? AND shard_index = ?",
                ShardRow.RUNNING);
    }

    /** How the shard ended: its run (null when it stored none), status as the run's, and its self-check verdict. */
    public void finish(String group, int index, String runId, String status, String selfCheck) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE run_shards SET run_id = ?, status = ?, selfcheck = ?, "
                + "ended_at = ? WHERE run_group = ? AND shard_index = ?")) {
            ps.setString(1, runId);
            ps.setString(2, status);
            ps.setString(3, selfCheck);
            ps.setLong(4, databaseMillisInTransaction());
            ps.setString(5, group);
            ps.setInt(6, index);
            ps.executeUpdate();
        }
        c.commit();
    }

    private void update(String group, int index, String sql, String value) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, value);
            ps.setString(2, group);
            ps.setInt(3, index);
            ps.executeUpdate();
        }
        c.commit();
    }

    /** The group's shards in index order; empty when no shard registered under that name. */
    public List<ShardRow> shards(String group) throws SQLException {
        List<ShardRow> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM run_shards WHERE run_group = ? "
                + "ORDER BY shard_index")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long ended = rs.getLong(14);
                    Long endedAt = rs.wasNull() ? null : ended;
                    out.add(new ShardRow(rs.getString(1), rs.getInt(2), rs.getInt(3), rs.getString(4), rs.getString(5),
                            rs.getLong(6), rs.getLong(7), new ClockOffset(rs.getLong(8), rs.getLong(9)),
                            new Owner(rs.getString(10), rs.getLong(11), rs.getLong(12)), rs.getString(13), endedAt));
                }
            }
        }
        commit();
        return out;
    }

    /**
     * The shard's run: the one it linked, else (killed before it could) the first run its process started after it
     * registered; null when it started none.
     */
    public String runOf(ShardRow shard) throws SQLException {
        if (shard.runId() != null) return shard.runId();
        String id;
        try (PreparedStatement ps = c.prepareStatement("SELECT run_id FROM runs WHERE owner_host = ? AND owner_pid = ? "
                + "AND owner_started = ? AND started_at >= ? ORDER BY started_at LIMIT 1")) {
            ps.setString(1, shard.owner().host());
            ps.setLong(2, shard.owner().pid());
            ps.setLong(3, shard.owner().startedAt());
            // started_at is the shard's clock, registered_at the database's: allow for the offset (and a second)
            ps.setLong(4, shard.registeredAt() + shard.clock().offsetMicros() / 1000 - 1000);
            try (ResultSet rs = ps.executeQuery()) {
                id = rs.next() ? rs.getString(1) : null;
            }
        }
        commit();
        return id;
    }

    /** The last commit of a run's writer (epoch ms, the writer's clock), or null when the run is not stored. */
    Long lastCommitMillis(String runId) throws SQLException {
        Long at;
        try (PreparedStatement ps = c.prepareStatement("SELECT heartbeat_at FROM runs WHERE run_id = ?")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                at = rs.next() ? rs.getLong(1) : null;
            }
        }
        commit();
        return at;
    }

    /**
     * Where a point of a stored run starts on its own process's wall clock, epoch µs: a request's epoch start is read
     * just before its monotonic start, so {@code epoch − start} bounds the point's origin from below, and the
     * largest such bound over its requests is within a millisecond of it (epoch starts are whole milliseconds).
     * Null when the point stored no started request.
     */
    Long pointOriginMicros(String runId, int point) throws SQLException {
        Long origin;
        try (PreparedStatement ps = c.prepareStatement("SELECT MAX(start_epoch_ms * 1000 - start_ns / 1000) FROM "
                + "requests WHERE run_id = ? AND point_index = ? AND start_ns IS NOT NULL")) {
            ps.setString(1, runId);
            ps.setInt(2, point);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                origin = rs.wasNull() ? null : v;
            }
        }
        commit();
        return origin;
    }

    /**
     * Ends the transaction after its statements are closed: on SQLite a statement still open keeps the read
     * snapshot, so a waiting shard would count the same registrations for ever.
     */
    private void commit() throws SQLException {
        c.commit();
    }

    @Override
    public void close() throws SQLException {
        c.close();
    }
}
