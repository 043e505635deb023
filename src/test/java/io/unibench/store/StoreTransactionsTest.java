package io.unibench.store;

import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every public method of the run store is one transaction of the one helper ({@link Database}): when it throws after
 * its statements ran, nothing is left open behind it. A fault is injected into each method's transaction after its
 * work (so its reads took a snapshot and its writes the write lock); then another connection must be able to take
 * the write lock and commit, and the store must still write and see that commit.
 */
class StoreTransactionsTest {
    private static final RunInfo INFO = new RunInfo("parallel_1_number_3", 1, -1, 3);
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgres"})
    void noPublicMethodLeavesATransactionOpenWhenItFails(String kind) throws Exception {
        try (TestStores.Backend backend = TestStores.of(kind, tmp)) {
            StoreLocation loc = backend.location();
            Database db = Database.open(loc);
            try (RunStore store = RunStore.over(db)) {
                List<RequestRecord> records = TestStores.records(3, 1_000_000_000L, 1);
                String id = store.createRun(new RunStart("r", List.of("t"), "m", "http://127.0.0.1:1/v1",
                        ResultJson.MAPPER.createObjectNode(), Map.of()), Owner.current(), 1000, RunRow.RUNNING);
                store.addPoint(id, 0, INFO, 1000);
                store.insertRequests(id, 0, 1_000_000_000L, records, 1001);
                store.finishRun(id, RunRow.FINISHED, 1002); // an ended run: deleteRun's work runs to its end
                Map<Class<?>, Object> args = arguments(id, records);

                List<Method> methods = Arrays.stream(RunStore.class.getDeclaredMethods())
                        .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
                        .filter(m -> !Set.of("close", "location").contains(m.getName()))
                        .sorted(Comparator.comparing(Method::toString)).toList();
                assertThat(methods).hasSizeGreaterThan(30);
                int others = 0;
                for (Method m : methods) {
                    Object[] values = new Object[m.getParameterCount()];
                    for (int i = 0; i < values.length; i++) {
                        Class<?> type = m.getParameterTypes()[i];
                        if (!args.containsKey(type)) fail("no test argument for " + type + " of " + m);
                        values[i] = args.get(type);
                    }
                    if (m.getName().equals("insertRequests")) { // the stored point, requests not stored yet
                        values[1] = 0;
                        values[3] = TestStores.records(6, 1_000_000_000L, 1).subList(3, 6);
                    }
                    if (m.getName().equals("createRun") && m.getParameterTypes()[0] == String.class) {
                        values[0] = "new-" + m.getParameterCount(); // not an id already stored
                    }
                    RuntimeException fault = new IllegalStateException("injected into " + m.getName());
                    db.failAfterWork = fault;
                    try {
                        m.invoke(store, values);
                        fail(m + " did not run a transaction of the helper");
                    } catch (InvocationTargetException e) {
                        assertThat(e.getCause()).as(m.toString()).isSameAs(fault);
                    }
                    // nothing open: another connection takes the write lock at once and commits ...
                    try (Connection other = DriverManager.getConnection(loc.jdbcUrl(), loc.properties());
                         Statement st = other.createStatement()) {
                        if (loc.dialect() == Dialect.SQLITE) {
                            st.execute("PRAGMA busy_timeout = 0");
                            st.execute("BEGIN IMMEDIATE");
                        } else {
                            other.setAutoCommit(false);
                            try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                                    + "current_database() AND application_name = 'unibench' AND state LIKE 'idle in transaction%'")) {
                                rs.next();
                                assertThat(rs.getInt(1)).as("transactions left open by " + m).isZero();
                            }
                        }
                        st.execute("INSERT INTO run_tags (run_id, tag) VALUES ('" + id + "', 'other-" + others++ + "')");
                        if (loc.dialect() == Dialect.SQLITE) st.execute("COMMIT");
                        else other.commit();
                    }
                    // ... and the store writes after that commit, and sees it
                    store.heartbeat(id, 2000 + others);
                    assertThat(store.run(id).row().tags()).as(m.toString()).contains("other-" + (others - 1));
                }
            }
        }
    }

    private static Map<Class<?>, Object> arguments(String id, List<RequestRecord> records) {
        RunResult result = RunStoreContract.result(records);
        Map<Class<?>, Object> a = new HashMap<>();
        a.put(String.class, id);
        a.put(java.util.Collection.class, List.of("0".repeat(64))); // importedAs: a set of file checksums
        a.put(int.class, 1); // a point not stored yet: addPoint inserts it
        a.put(long.class, 3000L);
        a.put(boolean.class, true);
        a.put(RunStart.class, new RunStart("s", List.of(), "m", "u", ResultJson.MAPPER.createObjectNode(), Map.of()));
        a.put(Owner.class, Owner.current());
        a.put(RunInfo.class, INFO);
        a.put(RunResult.class, result);
        a.put(List.class, new ArrayList<>(List.of(id)));
        a.put(Map.class, Map.of());
        a.put(Set.class, Set.of());
        a.put(RunFilter.class, RunFilter.all(10));
        a.put(Consumer.class, (Consumer<Object>) r -> { });
        a.put(ImportedRun.class, new ImportedRun(new RunStart("imported", List.of(), "m", "u",
                ResultJson.MAPPER.createObjectNode(), Map.of()), 1000, 2000, List.of(new ImportedRun.Point(INFO, 1000,
                result, Map.of(), List.of(), records))));
        return a;
    }
}
