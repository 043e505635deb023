package io.unibench.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Versioned schema migrations as plain numbered SQL files ({@code migrations/V<n>__<what>.sql} beside this
 * class), applied in order on open and recorded in {@code schema_version}. One file serves both databases:
 * {@code ${BLOB}} becomes the dialect's binary type.
 *
 * <p>Several runners may start at once (a team's PostgreSQL, or two shells on one SQLite file), so the check
 * and the upgrade run under a database-wide lock: a transaction-scoped advisory lock on PostgreSQL,
 * {@code BEGIN IMMEDIATE} (the write lock) on SQLite. DDL is transactional in both, so a failed migration
 * leaves the previous version intact.
 */
final class Migrations {
    /**
     * In version order; append, never edit a released file (its version is already applied somewhere). A file's
     * version is the number after its {@code V}; numbers may skip (versions are reserved per branch of work), and
     * each is applied once, in order, when the store's version is below it.
     */
    static final List<String> FILES = List.of("V1__run_history.sql", "V2__stale_connection_retry.sql");
    private static final long ADVISORY_LOCK_KEY = 0x756e6962656e6368L; // "unibench"

    private Migrations() {}

    static int latest() {
        return version(FILES.getLast());
    }

    /** The version a file name carries: {@code V12__what.sql} is 12. */
    static int version(String file) {
        return Integer.parseInt(file.substring(1, file.indexOf("__")));
    }

    /** Brings the schema to {@link #latest()}; returns the version found before. */
    static int apply(Connection c, Dialect dialect) throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement st = c.createStatement()) {
            if (dialect == Dialect.SQLITE) {
                c.setAutoCommit(true);
                st.execute("BEGIN IMMEDIATE");
            } else {
                c.setAutoCommit(false);
                st.execute("SELECT pg_advisory_xact_lock(" + ADVISORY_LOCK_KEY + ")");
            }
            try {
                st.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                        + "description TEXT NOT NULL, applied_at BIGINT NOT NULL)");
                int current = 0;
                try (ResultSet rs = st.executeQuery("SELECT MAX(version) FROM schema_version")) {
                    if (rs.next()) current = rs.getInt(1);
                }
                if (current > latest()) {
                    throw new SQLException("the store's schema is version " + current + ", newer than this "
                            + "unibench knows (" + latest() + "): upgrade unibench");
                }
                for (String file : FILES) {
                    int v = version(file);
                    if (v <= current) continue;
                    for (String sql : statements(read(file).replace("${BLOB}", dialect.blobType()))) st.execute(sql);
                    st.execute("INSERT INTO schema_version (version, description, applied_at) VALUES (" + v + ", '"
                            + file.replace("'", "") + "', " + System.currentTimeMillis() + ")");
                }
                if (dialect == Dialect.SQLITE) st.execute("COMMIT");
                else c.commit();
                return current;
            } catch (SQLException | RuntimeException e) {
                if (dialect == Dialect.SQLITE) st.execute("ROLLBACK");
                else c.rollback();
                throw e;
            }
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** The file's statements: {@code --} comments dropped, split at semicolons ending a line. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (String line : script.split("\n")) {
            int comment = line.indexOf("--");
            String code = (comment >= 0 ? line.substring(0, comment) : line).strip();
            if (code.isEmpty()) continue;
            sb.append(code).append('\n');
            if (code.endsWith(";")) {
                out.add(sb.substring(0, sb.lastIndexOf(";")).strip());
                sb.setLength(0);
            }
        }
        if (!sb.toString().isBlank()) out.add(sb.toString().strip());
        return out;
    }

    private static String read(String file) {
        try (InputStream in = Migrations.class.getResourceAsStream("migrations/" + file)) {
            if (in == null) throw new IllegalStateException("missing migration " + file);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
