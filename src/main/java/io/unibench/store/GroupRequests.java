package io.unibench.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The requests of a merged run ({@code group:G}) read as the union of its shards' stored rows, never copied: per
 * point, the parts the merge recorded ({@code run_group_parts}, V17) say which shard runs' rows and where they sit on
 * the group's timeline; one {@code UNION ALL} over them, ordered on the placed values, streams them in the order a
 * single run's would come ({@link RunStore} places each row with its part's {@link ShardTimeline}).
 */
final class GroupRequests {
    /** The union in group-wide index order (a download). */
    static final String BY_INDEX = "placed_idx, part";
    /** The union in the order the requests ended on the group's timeline (a report rebuilt from them). */
    static final String BY_END = "CASE WHEN placed_end IS NULL THEN 1 ELSE 0 END, placed_end, part, idx";

    private GroupRequests() {}

    /** The parts of one point of merged run {@code runId}, by shard; empty for a run that is not a merge. */
    static List<MergedGroup.Part> parts(Connection c, String runId, int point) throws SQLException {
        List<MergedGroup.Part> parts = new ArrayList<>();
        if (!runId.startsWith(RunStore.MERGED_PREFIX)) return parts;
        try (PreparedStatement ps = c.prepareStatement("SELECT shard_index, shard_run_id, first_index, index_step, "
                + "shift_ns, offset_ms, requests FROM run_group_parts WHERE run_id = ? AND point_index = ? "
                + "ORDER BY shard_index")) {
            ps.setString(1, runId);
            ps.setInt(2, point);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    parts.add(new MergedGroup.Part(rs.getInt(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
                            rs.getLong(5), rs.getLong(6), rs.getLong(7)));
                }
            }
        }
        return parts;
    }

    static void insert(Connection c, String runId, int point, List<MergedGroup.Part> parts) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_group_parts (run_id, point_index, shard_index, "
                + "shard_run_id, first_index, index_step, shift_ns, offset_ms, requests) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (MergedGroup.Part p : parts) {
                ps.setString(1, runId);
                ps.setInt(2, point);
                ps.setInt(3, p.shard());
                ps.setString(4, p.runId());
                ps.setLong(5, p.firstIndex());
                ps.setLong(6, p.indexStep());
                ps.setLong(7, p.shiftNanos());
                ps.setLong(8, p.offsetMillis());
                ps.setLong(9, p.requests());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * The union's query: {@link RequestRows#READ_COLUMNS} (so {@link RequestRows#read} reads a row as any other),
     * then the placed end and index and the part's position in {@code parts}; bind with {@link #bind}. The placements
     * are numbers the merge wrote, inlined as literals (PostgreSQL types a bound value of a UNION branch poorly).
     */
    static String union(List<MergedGroup.Part> parts, String order) {
        StringBuilder sql = new StringBuilder("SELECT * FROM (");
        for (int i = 0; i < parts.size(); i++) {
            MergedGroup.Part p = parts.get(i);
            if (i > 0) sql.append(" UNION ALL ");
            sql.append("SELECT ").append(RequestRows.READ_COLUMNS).append(", end_ns + ").append(p.shiftNanos())
                    .append(" AS placed_end, ").append(p.firstIndex()).append(" + idx * ").append(p.indexStep())
                    .append(" AS placed_idx, ").append(i).append(" AS part FROM requests WHERE run_id = ? AND point_index = ?");
        }
        return sql.append(") u ORDER BY ").append(order).toString();
    }

    static void bind(PreparedStatement ps, List<MergedGroup.Part> parts, int point) throws SQLException {
        for (int i = 0; i < parts.size(); i++) {
            ps.setString(2 * i + 1, parts.get(i).runId());
            ps.setInt(2 * i + 2, point);
        }
    }
}
