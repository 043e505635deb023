package io.unibench.schedule;

import io.unibench.store.Database;
import io.unibench.store.StoreLocation;

import java.sql.SQLException;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The run database (schema migrated by the store) as the schedule tables' stores use it: every {@link #tx} is one
 * write transaction of the store's one transaction helper ({@link Database#write}: committed, or rolled back on any
 * exception), on the database's pool; statements go through {@link io.unibench.store.Sql}.
 */
final class Db implements AutoCloseable {
    private final Database db;

    private Db(Database db) {
        this.db = db;
    }

    static Db open(StoreLocation location) throws SQLException {
        return new Db(Database.open(location));
    }

    <T> T tx(Database.Work<T> work) throws SQLException {
        return db.write(work);
    }

    /** A time-ordered id: {@code PREFIX-<epoch ms in hex>-<random>}, so ids sort by creation. */
    static String newId(String prefix, long nowMillis) {
        return prefix + "-" + Long.toHexString(nowMillis) + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
    }

    @Override
    public void close() {
        db.close();
    }
}
