package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The runs as the lists, pages and commands ask for them: filtered lists, one run with its points, relations. */
final class RunQueries {
    private static final String MERGED_PREFIX_SQL = "'" + RunStore.MERGED_PREFIX + "'";

    private final Database db;

    RunQueries(Database db) {
        this.db = db;
    }

    List<RunRow> list(RunFilter f) throws SQLException {
        // a sharded run is listed once: its merged run (group:G) stands for its shards' runs once it exists
        StringBuilder sql = new StringBuilder("SELECT " + RunRows.RUN_COLUMNS + " FROM runs r WHERE NOT (r.run_group IS "
                + "NOT NULL AND r.run_id <> " + MERGED_PREFIX_SQL + " || r.run_group AND EXISTS (SELECT 1 FROM runs m "
                + "WHERE m.run_id = " + MERGED_PREFIX_SQL + " || r.run_group))");
        List<Object> args = new ArrayList<>();
        like(sql, args, "r.model", f.model());
        like(sql, args, "r.url", f.url());
        like(sql, args, "r.name", f.name());
        if (f.status() != null) {
            sql.append(" AND r.status = ?");
            args.add(f.status());
        }
        if (f.since() != null) {
            sql.append(" AND r.started_at >= ?");
            args.add(f.since());
        }
        if (f.until() != null) {
            sql.append(" AND r.started_at < ?");
            args.add(f.until());
        }
        for (String tag : f.tags()) {
            sql.append(" AND EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.run_id AND t.tag = ?)");
            args.add(tag);
        }
        if (f.after() != null) { // keyset paging in the list's order: runs older than the cursor's
            sql.append(" AND (r.started_at < ? OR (r.started_at = ? AND r.run_id < ?))");
            args.add(f.after().startedAt());
            args.add(f.after().startedAt());
            args.add(f.after().runId());
        }
        sql.append(" ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?");
        args.add(f.limit());
        return db.read(c -> RunRows.runs(c, sql.toString(), args.toArray()));
    }

    long count() throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT COUNT(*) FROM runs", rs -> rs.getLong(1)));
    }

    String resolveId(String idOrPrefix) throws SQLException {
        // an empty prefix would match every run and pick one when the store holds only one
        if (idOrPrefix.isBlank()) throw new BadInputException("run '" + idOrPrefix + "': empty; give a run id or a prefix of one");
        List<String> ids = db.read(c -> Sql.query(c, "SELECT run_id FROM runs WHERE run_id = ? OR run_id LIKE ? "
                + "ESCAPE '\\' ORDER BY run_id LIMIT 3", rs -> rs.getString(1), idOrPrefix, escapeLike(idOrPrefix) + "%"));
        if (ids.contains(idOrPrefix)) return idOrPrefix;
        if (ids.isEmpty()) throw new BadInputException("run '" + idOrPrefix + "': no such run in " + db.location().display());
        if (ids.size() > 1) {
            throw new BadInputException("run '" + idOrPrefix + "': ambiguous (" + String.join(", ", ids.subList(0, 2))
                    + ", …); give more of the id");
        }
        return ids.getFirst();
    }

    StoredRun run(String runId) throws SQLException {
        StoredRun run = db.read(c -> {
            List<RunRow> rows = RunRows.runs(c, "SELECT " + RunRows.RUN_COLUMNS + " FROM runs r WHERE r.run_id = ?", runId);
            if (rows.isEmpty()) return null;
            JsonNode[] docs = Sql.first(c, "SELECT config_json, environment_json FROM runs WHERE run_id = ?",
                    rs -> new JsonNode[] {RunRows.json(rs, 1), RunRows.json(rs, 2)}, runId);
            return new StoredRun(rows.getFirst(), docs[0], docs[1], RunRows.points(c, runId));
        });
        if (run == null) throw new BadInputException("run '" + runId + "': no such run in " + db.location().display());
        return run;
    }

    String importedAs(java.util.Collection<String> checksums) throws SQLException {
        if (checksums.isEmpty()) return null;
        java.util.Set<String> want = new java.util.HashSet<>(checksums);
        // narrowed by one checksum in the stored text, then decided exactly on the whole set
        return db.read(c -> {
            for (String[] r : Sql.query(c, "SELECT run_id, environment_json FROM runs WHERE environment_json LIKE ? "
                    + "ORDER BY started_at, run_id", rs -> new String[] {rs.getString(1), rs.getString(2)},
                    "%" + checksums.iterator().next() + "%")) {
                java.util.Set<String> have = new java.util.HashSet<>();
                ResultJson.read(r[1]).path("source_files").forEach(v -> have.add(v.asText()));
                if (have.equals(want)) return r[0];
            }
            return null;
        });
    }

    List<RunRow> linkedRuns(String parentRunId) throws SQLException {
        return db.read(c -> RunRows.runs(c, "SELECT " + RunRows.RUN_COLUMNS + " FROM runs r WHERE r.parent_run_id = ? "
                + "ORDER BY r.started_at, r.run_id", parentRunId));
    }

    String parentRun(String runId) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT parent_run_id FROM runs WHERE run_id = ?", rs -> rs.getString(1), runId));
    }

    JsonNode pointServerMetrics(String runId, int index) throws SQLException {
        return db.read(c -> Sql.first(c, "SELECT server_metrics_json FROM run_points WHERE run_id = ? AND point_index = ?",
                rs -> RunRows.json(rs, 1), runId, index));
    }

    Map<String, StoredPoint> lastPoints(List<String> runIds) throws SQLException {
        return db.read(c -> {
            Map<String, StoredPoint> out = new LinkedHashMap<>();
            for (List<String> chunk : Sql.chunks(runIds, 500)) {
                Sql.query(c, "SELECT p.run_id, " + RunRows.POINT_COLUMNS.replace("point_index,", "p.point_index,")
                                + " FROM run_points p WHERE p.run_id IN (" + Sql.marks(chunk.size()) + ") AND p.point_index = "
                                + "(SELECT MAX(q.point_index) FROM run_points q WHERE q.run_id = p.run_id)",
                        rs -> out.put(rs.getString(1), RunRows.point(rs, 1)), chunk.toArray());
            }
            return out;
        });
    }

    private static void like(StringBuilder sql, List<Object> args, String column, String value) {
        if (value == null || value.isEmpty()) return;
        sql.append(" AND LOWER(").append(column).append(") LIKE ? ESCAPE '\\'");
        args.add("%" + escapeLike(value.toLowerCase(Locale.ROOT)) + "%");
    }

    private static String escapeLike(String s) {
        return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
