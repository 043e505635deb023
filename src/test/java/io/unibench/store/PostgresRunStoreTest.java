package io.unibench.store;

import java.nio.file.Path;

/** The store contract on the PostgreSQL server of {@code UNIBENCH_TEST_PG_URL} (started by {@code .ci/run}). */
class PostgresRunStoreTest extends RunStoreContract {
    @Override
    TestStores.Backend backend(Path tmp) throws Exception {
        return TestStores.postgres();
    }
}
