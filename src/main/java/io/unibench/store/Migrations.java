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
 *
 * <p>A file's version is the number in its name, not its place in {@link #FILES}: numbers may have gaps (they are
 * handed out to parallel lines of work), and every file whose version the store has not recorded is applied, in
 * version order, so a version merged in below one already applied is still applied.
 */
final class Migrations {
    /** In order; append, never edit a released file (its version is already applied somewhere). */
    static final List<String> FILES = List.of("V1__run_history.sql", "V2__stale_connection_retry.sql", "V3__server_words.sql",
            "V7__point_details.sql", "V9__run_queue.sql", "V10__schedules_alerts.sql", "V11__server_metrics.sql",
            "V12__run_shards.sql", "V13__run_parent.sql", "V15__merged_runs.sql", "V16__cached_token_field.sql",
            "V17__group_parts.sql");
    private static final long ADVISORY_LOCK_KEY = 0x756e6962656e6368L; // "unibench"

    private Migrations() {}

    /** The highest version this build knows. */
    static int latest() {
        int max = 0;
        for (String f : FILES) max = Math.max(max, version(f));
        return max;
    }

    /** The number of {@code V<n>__<what>.sql}. */
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
                java.util.Set<Integer> applied = new java.util.HashSet<>();
                try (ResultSet rs = st.executeQuery("SELECT version FROM schema_version")) {
                    while (rs.next()) {
                        applied.add(rs.getInt(1));
                        current = Math.max(current, rs.getInt(1));
                    }
                }
                if (current > latest()) {
                    throw new SQLException("the store's schema is version " + current + ", newer than this "
                            + "unibench knows (" + latest() + "): upgrade unibench");
                }
                List<String> files = new ArrayList<>(FILES);
                files.sort(java.util.Comparator.comparingInt(Migrations::version));
                for (String file : files) {
                    int v = version(file);
                    if (applied.contains(v)) continue;
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
