package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reading runs and their points into values, inside a transaction: the columns, the rows, their tags. */
final class RunRows {
    static final String RUN_COLUMNS = "r.run_id, r.name, r.model, r.url, r.status, r.started_at, "
            + "r.ended_at, r.request_count, r.success_count, r.config_key, r.status_reason, r.verdict";
    static final String POINT_COLUMNS = "point_index, label, concurrency, rate, number, started_at, "
            + "summary_json, percentiles_json, workload_json, errors_json, traces_json, turn_positions_json, "
            + "phases_json, timeline_json";

    private RunRows() {}

    /** The runs a query of {@link #RUN_COLUMNS} (over {@code runs r}) selects, with their tags. */
    static List<RunRow> runs(Connection c, String sql, Object... args) throws SQLException {
        List<Object[]> raw = Sql.query(c, sql, rs -> new Object[] {rs.getString(1), rs.getString(2), rs.getString(3),
                rs.getString(4), rs.getString(5), rs.getLong(6), Sql.optLong(rs, 7), rs.getLong(8), rs.getLong(9),
                rs.getString(10), rs.getString(11), rs.getString(12)}, args);
        Map<String, List<String>> tags = tags(c, raw.stream().map(r -> (String) r[0]).toList());
        List<RunRow> rows = new ArrayList<>(raw.size());
        for (Object[] r : raw) {
            rows.add(new RunRow((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4],
                    (Long) r[5], (Long) r[6], (Long) r[7], (Long) r[8], tags.getOrDefault((String) r[0], List.of()),
                    (String) r[9], (String) r[10], (String) r[11]));
        }
        return rows;
    }

    /** Tags of many runs in chunks of 500 ids (one query per chunk, not one per run). */
    private static Map<String, List<String>> tags(Connection c, List<String> runIds) throws SQLException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (List<String> chunk : Sql.chunks(runIds, 500)) {
            for (String[] t : Sql.query(c, "SELECT run_id, tag FROM run_tags WHERE run_id IN (" + Sql.marks(chunk.size())
                    + ") ORDER BY run_id, tag", rs -> new String[] {rs.getString(1), rs.getString(2)}, chunk.toArray())) {
                out.computeIfAbsent(t[0], k -> new ArrayList<>()).add(t[1]);
            }
        }
        return out;
    }

    /** A run's points in order. */
    static List<StoredPoint> points(Connection c, String runId) throws SQLException {
        return Sql.query(c, "SELECT " + POINT_COLUMNS + " FROM run_points WHERE run_id = ? ORDER BY point_index",
                rs -> point(rs, 0), runId);
    }

    /** The point of the current row, its {@link #POINT_COLUMNS} starting after {@code skip} other columns. */
    static StoredPoint point(ResultSet rs, int skip) throws SQLException {
        int i = skip;
        return new StoredPoint(rs.getInt(i + 1), rs.getString(i + 2), rs.getInt(i + 3), rs.getDouble(i + 4),
                rs.getInt(i + 5), rs.getLong(i + 6), json(rs, i + 7), json(rs, i + 8), json(rs, i + 9), json(rs, i + 10),
                new StoredPoint.Details(json(rs, i + 11), json(rs, i + 12), json(rs, i + 13), json(rs, i + 14)));
    }

    static JsonNode json(ResultSet rs, int column) throws SQLException {
        return ResultJson.read(rs.getString(column));
    }
}
