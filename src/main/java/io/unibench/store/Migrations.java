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
 * class), applied in order when a process first opens the store ({@link Database}) and recorded in
 * {@code schema_version} with each file's checksum, so a file edited after it was applied is refused. One file serves both databases:
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
            "V17__group_parts.sql", "V21__reasoning.sql", "V22__run_verdict.sql");
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

    /**
     * Brings the schema to {@link #latest()}; returns the version found before. An applied file whose text changed
     * since (its checksum, recorded when it was applied) is refused: a released migration is never edited.
     */
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
                        + "description TEXT NOT NULL, applied_at BIGINT NOT NULL, checksum TEXT)");
                if (!hasChecksumColumn(st, dialect)) {
                    // a store made before checksums: the column added, its files' sums recorded as they are now
                    st.execute("ALTER TABLE schema_version ADD COLUMN checksum TEXT");
                }
                int current = 0;
                java.util.Map<Integer, String> applied = new java.util.HashMap<>();
                try (ResultSet rs = st.executeQuery("SELECT version, checksum FROM schema_version")) {
                    while (rs.next()) {
                        applied.put(rs.getInt(1), rs.getString(2));
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
                    String text = read(file);
                    String sum = checksum(text);
                    if (applied.containsKey(v)) {
                        String recorded = applied.get(v);
                        if (recorded == null) {
                            st.execute("UPDATE schema_version SET checksum = '" + sum + "' WHERE version = " + v);
                        } else if (!recorded.equals(sum)) {
                            throw new SQLException("migration " + file + " was applied to this store with checksum "
                                    + recorded + " but this build's file has " + sum + ": an applied migration must "
                                    + "not be edited; restore it and put the change in a new V<n> file");
                        }
                        continue;
                    }
                    for (String sql : statements(text.replace("${BLOB}", dialect.blobType()))) st.execute(sql);
                    st.execute("INSERT INTO schema_version (version, description, applied_at, checksum) VALUES (" + v
                            + ", '" + file.replace("'", "") + "', " + System.currentTimeMillis() + ", '" + sum + "')");
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

    private static boolean hasChecksumColumn(Statement st, Dialect dialect) throws SQLException {
        String sql = dialect == Dialect.SQLITE
                ? "SELECT 1 FROM pragma_table_info('schema_version') WHERE name = 'checksum'"
                : "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                        + "AND table_name = 'schema_version' AND column_name = 'checksum'";
        try (ResultSet rs = st.executeQuery(sql)) {
            return rs.next();
        }
    }

    /** A file's checksum: SHA-256 of its text (line ends as {@code \n}), the first 16 hex digits. */
    static String checksum(String text) {
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(hash, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The script's statements, split at semicolons; {@code --} line comments and {@code /* *}{@code /} block comments
     * dropped, but only outside string literals ({@code '…'}, {@code ''} inside one) and quoted names ({@code "…"}).
     */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        int n = script.length();
        for (int i = 0; i < n; i++) {
            char ch = script.charAt(i);
            if (ch == '\'' || ch == '"') {
                int end = i + 1;
                while (end < n) {
                    if (script.charAt(end) == ch) {
                        if (end + 1 < n && script.charAt(end + 1) == ch) end += 2; // a doubled quote inside
                        else break;
                    } else {
                        end++;
                    }
                }
                if (end >= n) throw new IllegalArgumentException("unterminated " + ch + " in a migration");
                sb.append(script, i, end + 1);
                i = end;
            } else if (ch == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                while (i < n && script.charAt(i) != '\n') i++;
                sb.append('\n');
            } else if (ch == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                if (end < 0) throw new IllegalArgumentException("unterminated /* in a migration");
                sb.append(' ');
                i = end + 1;
            } else if (ch == ';') {
                add(out, sb);
            } else {
                sb.append(ch);
            }
        }
        add(out, sb);
        return out;
    }

    private static void add(List<String> out, StringBuilder sb) {
        String sql = sb.toString().strip();
        if (!sql.isEmpty()) out.add(sql);
        sb.setLength(0);
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
