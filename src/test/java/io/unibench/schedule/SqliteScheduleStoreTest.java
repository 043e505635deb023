package io.unibench.schedule;

import io.unibench.store.TestStores;

import java.nio.file.Path;

class SqliteScheduleStoreTest extends ScheduleStoreContract {
    @Override
    TestStores.Backend backend(Path tmp) {
        return TestStores.sqlite(tmp);
    }
}
