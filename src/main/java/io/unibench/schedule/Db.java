package io.unibench.schedule;

import io.unibench.store.StoreLocation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One JDBC connection to the run database (schema migrated by the store) shared by the schedule tables' stores:
 * every {@link #tx} is one transaction under one lock. A {@code ReentrantLock}, not a monitor: the service's
 * handlers run on virtual threads, which a monitor held across JDBC I/O would pin on Java 21.
 */
final class Db implements AutoCloseable {
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private final Connection c;
    private final ReentrantLock lock = new ReentrantLock();

    private Db(Connection c) {
        this.c = c;
    }

    static Db open(StoreLocation location) throws SQLException {
        Connection c = location.connect();
        c.setAutoCommit(false);
        return new Db(c);
    }

    <T> T tx(Work<T> work) throws SQLException {
        lock.lock();
        try {
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            return ps.executeUpdate();
        }
    }

    static <T> List<T> query(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(row.read(rs));
            }
        }
        return out;
    }

    private static void bind(PreparedStatement ps, Object[] args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            switch (a) {
                case null -> ps.setNull(i + 1, Types.NULL);
                case String s -> ps.setString(i + 1, s);
                case Long l -> ps.setLong(i + 1, l);
                case Integer n -> ps.setInt(i + 1, n);
                case Double d -> ps.setDouble(i + 1, d);
                case Boolean b -> ps.setInt(i + 1, b ? 1 : 0);
                default -> throw new IllegalArgumentException("unsupported argument " + a.getClass());
            }
        }
    }

    /** A column that may be SQL NULL, as a {@code Long}. */
    static Long optLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    static Double optDouble(ResultSet rs, int column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }

    /** A time-ordered id: {@code PREFIX-<epoch ms in hex>-<random>}, so ids sort by creation. */
    static String newId(String prefix, long nowMillis) {
        return prefix + "-" + Long.toHexString(nowMillis) + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
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
