package io.unibench.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Deleting a run with what belongs to it: its requests and points, linked providers' runs, a merge's shards. */
final class RunDeletion {
    private final Database db;

    RunDeletion(Database db) {
        this.db = db;
    }

    List<RunRow> deletedWith(String runId, boolean keepShards) throws SQLException {
        return db.read(c -> deletedWith(c, runId, keepShards));
    }

    private static List<RunRow> deletedWith(Connection c, String runId, boolean keepShards) throws SQLException {
        String group = runId.startsWith(RunStore.MERGED_PREFIX) ? runId.substring(RunStore.MERGED_PREFIX.length()) : null;
        String select = "SELECT " + RunRows.RUN_COLUMNS + " FROM runs r WHERE ";
        List<RunRow> rows = new ArrayList<>(RunRows.runs(c, select + "r.run_id = ?", runId));
        if (!rows.isEmpty() && group == null) {
            rows.addAll(RunRows.runs(c, select + "r.parent_run_id = ? ORDER BY r.started_at, r.run_id", runId));
        } else if (!rows.isEmpty() && !keepShards) {
            rows.addAll(RunRows.runs(c, select + "r.run_group = ? AND r.run_id <> ? ORDER BY r.started_at, r.run_id",
                    group, runId));
        }
        return rows;
    }

    RunStore.Deletion deleteRun(String runId, boolean keepShards) throws SQLException {
        return db.write(c -> {
            List<RunRow> rows = deletedWith(c, runId, keepShards);
            String group = runId.startsWith(RunStore.MERGED_PREFIX) && !rows.isEmpty()
                    ? runId.substring(RunStore.MERGED_PREFIX.length()) : null;
            for (RunRow r : rows) {
                if (r.active()) {
                    throw new IllegalStateException("run " + r.runId() + (r.runId().equals(runId) ? "" : ", deleted with "
                            + runId + ",") + " is " + r.status() + "; cancel it first");
                }
            }
            for (RunRow r : rows) {
                // explicit order: no reliance on cascades being enabled on every connection
                for (String table : List.of("requests", "run_group_parts", "run_points", "run_tags", "runs")) {
                    Sql.update(c, "DELETE FROM " + table + " WHERE run_id = ?", r.runId());
                }
            }
            if (group != null) {
                for (String table : keepShards ? List.of("run_group_merges") : List.of("run_group_merges", "run_shards")) {
                    Sql.update(c, "DELETE FROM " + table + " WHERE run_group = ?", group);
                }
            }
            return new RunStore.Deletion(rows.stream().map(RunRow::runId).toList(), group, keepShards);
        });
    }
}
