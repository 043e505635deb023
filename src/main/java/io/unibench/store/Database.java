package io.unibench.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one way to the run database: a connection pool per database and process, the schema migrated once per process
 * and database ({@link Migrations}), and the one transaction helper, {@link #read} and {@link #write}, that every
 * store method (and the schedule tables' stores) goes through: the work runs in one transaction that is committed, or
 * rolled back on any exception, so no failure leaves a transaction open on a pooled connection.
 *
 * <p>SQLite allows one writer: its pool is one writer connection, whose transactions begin with {@code BEGIN
 * IMMEDIATE} (the write lock taken up front, waited for up to the busy timeout against other processes; in this
 * process the writers queue for the connection), and a few reader connections, whose deferred transactions read a
 * WAL snapshot without blocking the writer. A read transaction that writes would fail on SQLite, so every method
 * that writes uses {@link #write}. PostgreSQL has one pool for both.
 *
 * <p>Work nested in a transaction of the same thread and database joins it (no second connection, no deadlock on
 * the single writer), except a write inside a SQLite read, which gets its own write transaction. The pools are
 * shared by every {@code Database} open on the same URL in this process (the one piece of static state of the store,
 * which a pool is by nature) and closed when the last is closed.
 */
public final class Database implements AutoCloseable {
    /** Work in a transaction. */
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private static final ReentrantLock REGISTRY = new ReentrantLock();
    private static final Map<String, Pools> OPEN = new HashMap<>();
    /** The databases (by key) whose schema this process has checked and migrated. */
    private static final Set<String> MIGRATED = ConcurrentHashMap.newKeySet();
    private static final ThreadLocal<Tx> CURRENT = new ThreadLocal<>();
    static final int SQLITE_READERS = 4;
    static final int POSTGRES_POOL = 8;

    private record Tx(Pools pools, Connection c, boolean write) {}

    /** A database's pools and how many open {@code Database}s share them. */
    private static final class Pools {
        final String key;
        final Dialect dialect;
        final HikariDataSource writer;
        final HikariDataSource readers;
        int users;

        Pools(String key, Dialect dialect, HikariDataSource writer, HikariDataSource readers) {
            this.key = key;
            this.dialect = dialect;
            this.writer = writer;
            this.readers = readers;
        }

        void close() {
            writer.close();
            if (readers != writer) readers.close();
        }
    }

    private final StoreLocation location;
    private final Pools pools;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Tests: thrown by the next transaction after its work ran, before it commits (then cleared). */
    volatile RuntimeException failAfterWork;

    private Database(StoreLocation location, Pools pools) {
        this.location = location;
        this.pools = pools;
    }

    /** The database at {@code location}: its pools (created on first use, with the SQLite file and its folder). */
    public static Database open(StoreLocation location) throws SQLException {
        String key = key(location);
        REGISTRY.lock();
        try {
            Pools p = OPEN.get(key);
            if (p == null) {
                p = create(location, key);
                OPEN.put(key, p);
            }
            p.users++;
            return new Database(location, p);
        } finally {
            REGISTRY.unlock();
        }
    }

    private static Pools create(StoreLocation location, String key) throws SQLException {
        if (location.file() != null) {
            try {
                if (location.file().getParent() != null) Files.createDirectories(location.file().getParent());
            } catch (java.io.IOException e) {
                throw new SQLException("cannot create " + location.file().getParent() + ": " + e.getMessage(), e);
            }
            if (!Files.exists(location.file())) MIGRATED.remove(key); // a new (or deleted) file: a new database
        }
        Pools p;
        if (location.dialect() == Dialect.SQLITE) {
            HikariDataSource writer = pool(location, "writer", 1, true);
            try {
                p = new Pools(key, Dialect.SQLITE, writer, pool(location, "readers", SQLITE_READERS, true));
            } catch (SQLException | RuntimeException e) {
                writer.close();
                throw e;
            }
        } else {
            HikariDataSource both = pool(location, "pool", POSTGRES_POOL, false);
            p = new Pools(key, Dialect.POSTGRES, both, both);
        }
        try {
            if (!MIGRATED.contains(key)) {
                try (Connection c = p.writer.getConnection()) {
                    Migrations.apply(c, location.dialect());
                }
                MIGRATED.add(key);
            }
            return p;
        } catch (SQLException | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /**
     * A pool of at most {@code size} connections. SQLite's stay in auto-commit mode: {@link #tx} says {@code BEGIN}
     * (or {@code BEGIN IMMEDIATE}) and {@code COMMIT} itself, so an idle connection holds neither a snapshot nor a lock.
     */
    private static HikariDataSource pool(StoreLocation location, String role, int size, boolean autoCommit)
            throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(location.jdbcUrl());
        config.setDataSourceProperties(location.properties());
        config.setPoolName("unibench-store-" + role);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setAutoCommit(autoCommit);
        // the wait for a connection: SQLite's writers queue here behind the one writer (its busy timeout is 15 s)
        config.setConnectionTimeout(60_000);
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) { // HikariPool.PoolInitializationException, or a URL the driver refuses
            // the driver's own one-line reason (refused, authentication, bad port, …), credentials masked; the
            // exception is not chained: its message and the pool's quote the URL in clear
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof SQLException)) cause = cause.getCause();
            String state = cause instanceof SQLException s ? s.getSQLState() : null;
            throw new SQLException(StoreLocation.mask(String.valueOf(cause.getMessage())), state);
        }
    }

    /** Tests: the next open of {@code location} checks and migrates its schema again, as a new process would. */
    static void forgetMigrated(StoreLocation location) {
        MIGRATED.remove(key(location));
    }

    private static String key(StoreLocation location) {
        return location.jdbcUrl() + "\n" + new TreeMap<>(location.properties());
    }

    public StoreLocation location() {
        return location;
    }

    public Dialect dialect() {
        return pools.dialect;
    }

    /** Reads in one transaction (on SQLite a snapshot, never a lock); the work must not write. */
    public <T> T read(Work<T> work) throws SQLException {
        return tx(false, work);
    }

    /** Reads and writes in one transaction: committed when the work returns, rolled back when it throws. */
    public <T> T write(Work<T> work) throws SQLException {
        return tx(true, work);
    }

    private <T> T tx(boolean write, Work<T> work) throws SQLException {
        if (closed.get()) throw new SQLException("the store " + location.display() + " is closed");
        Tx outer = CURRENT.get();
        if (outer != null && outer.pools == pools && (outer.write || !write || pools.dialect == Dialect.POSTGRES)) {
            return work.run(outer.c); // joins the enclosing transaction, which commits or rolls back
        }
        HikariDataSource pool = write ? pools.writer : pools.readers;
        try (Connection c = pool.getConnection()) {
            boolean sqlite = pools.dialect == Dialect.SQLITE;
            if (sqlite) execute(c, write ? "BEGIN IMMEDIATE" : "BEGIN");
            CURRENT.set(new Tx(pools, c, write));
            try {
                T result = work.run(c);
                RuntimeException fault = failAfterWork;
                if (fault != null) {
                    failAfterWork = null;
                    throw fault;
                }
                if (sqlite) execute(c, "COMMIT");
                else c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(pool, c, sqlite, e);
                throw e;
            } finally {
                if (outer == null) CURRENT.remove();
                else CURRENT.set(outer);
            }
        }
    }

    /** Ends a failed transaction; a connection that cannot roll back leaves the pool instead of serving again. */
    private static void rollback(HikariDataSource pool, Connection c, boolean sqlite, Throwable cause) {
        try {
            if (sqlite) execute(c, "ROLLBACK");
            else c.rollback();
        } catch (SQLException e) {
            // SQLite already ended it (BEGIN failed, or an error that rolls back by itself): nothing is open
            if (sqlite && String.valueOf(e.getMessage()).contains("no transaction is active")) return;
            cause.addSuppressed(e);
            pool.evictConnection(c);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            pool.evictConnection(c);
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Releases this handle; the last one of a database closes its pools. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        REGISTRY.lock();
        try {
            if (--pools.users == 0) {
                OPEN.remove(pools.key);
                pools.close();
            }
        } finally {
            REGISTRY.unlock();
        }
    }
}
