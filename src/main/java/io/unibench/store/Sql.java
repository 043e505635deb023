package io.unibench.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Statements inside a {@link Database} transaction: arguments bound in order (a String, null included, as text; an
 * Integer, Long or Double as a number; a Boolean as 1 or 0), rows read by a {@link Row}. Used by the run store and the
 * schedule tables' stores alike.
 */
public final class Sql {
    /** Reads the current row. */
    public interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private Sql() {}

    /** One statement that changes rows; returns how many. */
    public static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            return ps.executeUpdate();
        }
    }

    /** Every row of a query. */
    public static <T> List<T> query(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(row.read(rs));
            }
        }
        return out;
    }

    /** The first row of a query, or null when there is none. */
    public static <T> T first(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? row.read(rs) : null;
            }
        }
    }

    public static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case null -> ps.setNull(i + 1, Types.NULL);
                case String s -> ps.setString(i + 1, s);
                case Long l -> ps.setLong(i + 1, l);
                case Integer n -> ps.setInt(i + 1, n);
                case Double d -> ps.setDouble(i + 1, d);
                case Boolean b -> ps.setInt(i + 1, b ? 1 : 0);
                default -> throw new IllegalArgumentException("unsupported argument " + args[i].getClass());
            }
        }
    }

    /** A column that may be SQL NULL, as a {@code Long}. */
    public static Long optLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    public static Double optDouble(ResultSet rs, int column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }

    /** {@code n} comma-separated placeholders, for {@code IN (…)}. */
    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** The list in chunks of at most {@code size} (one {@code IN (…)} query per chunk). */
    static <T> List<List<T>> chunks(List<T> all, int size) {
        List<List<T>> out = new ArrayList<>();
        for (int from = 0; from < all.size(); from += size) out.add(all.subList(from, Math.min(all.size(), from + size)));
        return out;
    }
}
