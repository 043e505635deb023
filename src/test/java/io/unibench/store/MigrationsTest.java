package io.unibench.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Versions are the numbers in the file names: gaps are allowed and every version not yet recorded is applied. */
class MigrationsTest {
    @TempDir
    Path dir;

    @Test
    void aStoreAtVersionOneGetsTheLaterVersionsAcrossTheGap() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("old.db"))) {
            try (Statement st = c.createStatement()) {
                // the store as version 1 left it, with one stored request
                st.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
                        + "applied_at BIGINT NOT NULL)");
                for (String sql : Migrations.statements(new String(MigrationsTest.class.getResourceAsStream(
                        "migrations/V1__run_history.sql").readAllBytes()).replace("${BLOB}", "BLOB"))) {
                    st.execute(sql);
                }
                st.execute("INSERT INTO schema_version VALUES (1, 'V1__run_history.sql', 0)");
            }
            assertThat(Migrations.apply(c, Dialect.SQLITE)).isEqualTo(1);
            assertThat(versions(c)).containsExactlyElementsOf(Migrations.FILES.stream().map(Migrations::version).sorted().toList());
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT error_type, server_prompt_ms FROM requests")) {
                assertThat(rs.next()).isFalse(); // the V3 columns exist
            }
            assertThat(Migrations.apply(c, Dialect.SQLITE)).isEqualTo(Migrations.latest()); // nothing left to do
            assertThat(versions(c)).containsExactlyElementsOf(Migrations.FILES.stream().map(Migrations::version).sorted().toList());
        }
    }

    @Test
    void aStoreWithoutChecksumsGetsThemAndAnEditedMigrationIsRefusedInOneLine() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("sums.db"))) {
            try (Statement st = c.createStatement()) { // the table as builds before checksums made it
                st.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
                        + "applied_at BIGINT NOT NULL)");
            }
            Migrations.apply(c, Dialect.SQLITE);
            Migrations.apply(c, Dialect.SQLITE); // the recorded sums match the files
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM schema_version WHERE checksum IS NULL")) {
                rs.next();
                assertThat(rs.getInt(1)).isZero();
            }
            try (Statement st = c.createStatement()) { // as if V3's file had been edited since it was applied
                st.execute("UPDATE schema_version SET checksum = '0123456789abcdef' WHERE version = 3");
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Migrations.apply(c, Dialect.SQLITE))
                    .isInstanceOf(java.sql.SQLException.class)
                    .hasMessageContaining("migration V3__server_words.sql was applied to this store with checksum "
                            + "0123456789abcdef")
                    .hasMessageContaining("must not be edited")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void statementsKeepWhatIsInsideStringLiteralsAndDropOnlyComments() {
        assertThat(Migrations.statements("""
                -- a comment's apostrophe; and a semicolon
                CREATE TABLE t (a TEXT DEFAULT '--not a comment; nor a split', -- the column's note
                    b TEXT DEFAULT 'it''s'); /* a block; comment */
                INSERT INTO t (a) VALUES ('x;y');
                """)).containsExactly(
                "CREATE TABLE t (a TEXT DEFAULT '--not a comment; nor a split', \n    b TEXT DEFAULT 'it''s')",
                "INSERT INTO t (a) VALUES ('x;y')");
    }

    @Test
    void theVersionIsTheNumberInTheName() {
        assertThat(Migrations.version("V1__run_history.sql")).isEqualTo(1);
        assertThat(Migrations.version("V12__later.sql")).isEqualTo(12);
        assertThat(Migrations.latest()).isGreaterThanOrEqualTo(3);
    }

    private static List<Integer> versions(Connection c) throws Exception {
        List<Integer> v = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
            while (rs.next()) v.add(rs.getInt(1));
        }
        return v;
    }
}
