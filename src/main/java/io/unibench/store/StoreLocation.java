package io.unibench.store;

import io.unibench.BadInputException;
import io.unibench.Secrets;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Where runs are stored: a SQLite file (the default {@code ~/.unibench/unibench.db}) or a PostgreSQL server.
 *
 * <p>Chosen by, first to last: {@code --db}, the {@code UNIBENCH_DB} variable, the {@code unibench.db} system
 * property (the test suite's store under {@code target/}), the default file: {@code $UNIBENCH_HOME/unibench.db},
 * else {@code $HOME/.unibench/unibench.db} (the variable, as every Unix tool reads it: Java's {@code user.home}
 * comes from the password database and ignores {@code HOME=/tmp/x}), else {@code user.home}'s. A value is a
 * {@code jdbc:postgresql://…} URL, a {@code jdbc:sqlite:PATH} URL or a plain file path.
 * PostgreSQL credentials come from the URL ({@code ?user=…&password=…}) or from {@code UNIBENCH_DB_USER} /
 * {@code UNIBENCH_DB_PASSWORD} (else {@code PGUSER} / {@code PGPASSWORD}).
 *
 * @param jdbcUrl    the URL given to the driver (may contain a password: never print it, use {@link #display()})
 * @param dialect    which database
 * @param file       the SQLite file, or null for PostgreSQL
 * @param properties driver properties (credentials, pragmas)
 */
public record StoreLocation(String jdbcUrl, Dialect dialect, Path file, Properties properties) {
    public static final String ENV = "UNIBENCH_DB";
    public static final String PROPERTY = "unibench.db";
    /** The folder of the default store (instead of {@code ~/.unibench}). */
    public static final String HOME_ENV = "UNIBENCH_HOME";
    private static final Pattern PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");

    public static StoreLocation resolve(String flag, Map<String, String> env) {
        return resolve(flag, env, System.getProperty(PROPERTY), System.getProperty("user.home"));
    }

    /** {@link #resolve(String, Map)} with the system property and Java's home directory given (tests). */
    static StoreLocation resolve(String flag, Map<String, String> env, String property, String userHome) {
        if (flag != null && flag.isBlank()) throw new BadInputException("--db '" + flag + "': must not be empty");
        String value = flag;
        String source = "--db";
        if (value == null || value.isBlank()) {
            value = env.get(ENV);
            source = ENV;
        }
        if (value == null || value.isBlank()) {
            value = property;
            source = "-D" + PROPERTY;
        }
        if (value == null || value.isBlank()) return sqlite(defaultFile(env, userHome));
        value = value.trim();
        if (value.startsWith("jdbc:postgresql:")) {
            Properties p = new Properties();
            String user = first(env, "UNIBENCH_DB_USER", "PGUSER");
            String password = first(env, "UNIBENCH_DB_PASSWORD", "PGPASSWORD");
            if (user != null && !value.contains("user=")) p.setProperty("user", user);
            if (password != null && !value.contains("password=")) p.setProperty("password", password);
            // one multi-row INSERT per batch instead of one round trip per request
            p.setProperty("reWriteBatchedInserts", "true");
            p.setProperty("ApplicationName", "unibench");
            return new StoreLocation(value, Dialect.POSTGRES, null, p);
        }
        if (value.startsWith("jdbc:sqlite:")) return sqlite(Path.of(value.substring("jdbc:sqlite:".length())));
        if (value.startsWith("jdbc:")) {
            throw new BadInputException(source + " '" + mask(value) + "': only jdbc:postgresql:, jdbc:sqlite: "
                    + "or a file path");
        }
        return sqlite(Path.of(value));
    }

    private static Path defaultFile(Map<String, String> env, String userHome) {
        String dir = env.get(HOME_ENV);
        if (dir != null && !dir.isBlank()) return Path.of(dir, "unibench.db");
        String home = env.get("HOME");
        return Path.of(home != null && !home.isBlank() ? home : userHome, ".unibench", "unibench.db");
    }

    public static StoreLocation sqlite(Path file) {
        Properties p = new Properties();
        // WAL: readers (runs list, a web UI) never block the writer; NORMAL sync is durable against a killed
        // process (only an OS crash may lose the last commits), and much cheaper than FULL.
        p.setProperty("journal_mode", "WAL");
        p.setProperty("synchronous", "NORMAL");
        p.setProperty("foreign_keys", "true");
        p.setProperty("busy_timeout", "15000");
        Path abs = file.toAbsolutePath();
        return new StoreLocation("jdbc:sqlite:" + abs, Dialect.SQLITE, abs, p);
    }

    /** The URL with its user info and credential-named parameters masked, for messages. */
    public String display() {
        return mask(jdbcUrl);
    }

    /** Never the URL in clear: a record's generated {@code toString} would print the password. */
    @Override
    public String toString() {
        return display();
    }

    /**
     * A text (URL or error message) with URL user info, credential-named query parameters ({@code ?password=},
     * {@code &sslpassword=}, …) and any other {@code password=…} (e.g. quoted by a driver's message) masked.
     */
    public static String mask(String text) {
        return text == null ? null : Secrets.redact(PASSWORD.matcher(text).replaceAll("$1***"));
    }

    private static String first(Map<String, String> env, String a, String b) {
        String v = env.get(a);
        return v != null ? v : env.get(b);
    }
}
