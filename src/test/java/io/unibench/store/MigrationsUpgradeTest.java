package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Upgrades: a store of an older version gains the later files, whatever numbers lie between them. */
class MigrationsUpgradeTest {
    @TempDir
    Path tmp;

    @Test
    void aVersionOneStoreIsUpgradedAndItsRunsStillRead() throws Exception {
        StoreLocation loc = StoreLocation.sqlite(tmp.resolve("old.db"));
        try (Connection c = DriverManager.getConnection(loc.jdbcUrl(), loc.properties());
             Statement st = c.createStatement()) {
            st.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
                    + "applied_at BIGINT NOT NULL)");
            String v1 = new String(Migrations.class.getResourceAsStream("migrations/V1__run_history.sql").readAllBytes(),
                    StandardCharsets.UTF_8).replace("${BLOB}", "BLOB");
            for (String sql : Migrations.statements(v1)) st.execute(sql);
            st.execute("INSERT INTO schema_version VALUES (1, 'V1__run_history.sql', 0)");
            st.execute("INSERT INTO runs (run_id, status, started_at, heartbeat_at, owner_host, owner_pid, "
                    + "owner_started, config_key, config_json, environment_json) VALUES ('old', 'finished', 1, 1, 'h', "
                    + "1, 1, 'k', '{}', '{}')");
            st.execute("INSERT INTO run_points (run_id, point_index, label, concurrency, rate, number, started_at) "
                    + "VALUES ('old', 0, 'p', 1, -1, 1, 1)");
        }
        try (RunStore store = RunStore.open(loc)) {
            StoredPoint p = store.run("old").points().getFirst();
            assertThat(p.details()).isEqualTo(StoredPoint.Details.NONE);
        }
        try (Connection c = DriverManager.getConnection(loc.jdbcUrl(), loc.properties());
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
            List<Integer> versions = new ArrayList<>();
            while (rs.next()) versions.add(rs.getInt(1));
            assertThat(versions).containsExactlyElementsOf(Migrations.FILES.stream().map(Migrations::version).toList());
        }
    }

    @Test
    void versionsComeFromTheFileNames() {
        assertThat(Migrations.version("V7__point_details.sql")).isEqualTo(7);
        assertThat(Migrations.latest()).isEqualTo(Migrations.version(Migrations.FILES.getLast()));
    }
}
