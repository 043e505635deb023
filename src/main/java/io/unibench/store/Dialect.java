package io.unibench.store;

/** The two databases the store speaks; the schema is the same, only a few type names and locks differ. */
public enum Dialect {
    SQLITE("BLOB"),
    POSTGRES("BYTEA");

    private final String blobType;

    Dialect(String blobType) {
        this.blobType = blobType;
    }

    String blobType() {
        return blobType;
    }

    static Dialect of(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:sqlite:")) return SQLITE;
        if (jdbcUrl.startsWith("jdbc:postgresql:")) return POSTGRES;
        throw new IllegalArgumentException("not a store URL: " + jdbcUrl);
    }
}
