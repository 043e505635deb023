package io.unibench.store;

import java.nio.file.Path;

/** The store contract on a SQLite file. */
class SqliteRunStoreTest extends RunStoreContract {
    @Override
    TestStores.Backend backend(Path tmp) {
        return TestStores.sqlite(tmp);
    }
}
