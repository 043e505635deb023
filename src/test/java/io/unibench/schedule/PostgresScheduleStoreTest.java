package io.unibench.schedule;

import io.unibench.store.TestStores;

import java.nio.file.Path;

/** The schedule tables on the PostgreSQL server of {@code UNIBENCH_TEST_PG_URL} (started by {@code .ci/run}). */
class PostgresScheduleStoreTest extends ScheduleStoreContract {
    @Override
    TestStores.Backend backend(Path tmp) throws Exception {
        return TestStores.postgres();
    }
}
