package io.unibench.store;

import io.unibench.metrics.RequestRecord;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/** A point's stored requests read back: streamed in full, or sampled for charts; a merged run's from its shards'. */
final class RequestStreams {
    private final Database db;

    RequestStreams(Database db) {
        this.db = db;
    }

    void stream(String runId, int point, String order, String unionOrder, Consumer<RequestRecord> consumer)
            throws SQLException {
        db.read(c -> {
            List<MergedGroup.Part> parts = GroupRequests.parts(c, runId, point);
            try (PreparedStatement ps = c.prepareStatement(parts.isEmpty() ? RequestRows.SELECT
                    + " WHERE run_id = ? AND point_index = ? ORDER BY " + order : GroupRequests.union(parts, unionOrder))) {
                if (parts.isEmpty()) Sql.bind(ps, runId, point);
                else GroupRequests.bind(ps, parts, point);
                ps.setFetchSize(2000); // PostgreSQL streams with a cursor instead of loading every row
                try (ResultSet rs = ps.executeQuery()) {
                    int part = parts.isEmpty() ? 0 : rs.findColumn("part");
                    while (rs.next()) {
                        RequestRecord r = RequestRows.read(rs);
                        consumer.accept(parts.isEmpty() ? r : parts.get(rs.getInt(part)).timeline().place(r));
                    }
                }
            }
            return null;
        });
    }

    List<RunStore.RequestSample> sampleRequests(String runId, int point, long total, int max) throws SQLException {
        return db.read(c -> {
            List<MergedGroup.Part> parts = GroupRequests.parts(c, runId, point);
            if (parts.isEmpty()) return sample(runId, point, total, max);
            // a merged run: each shard's share of the dots from its own rows, placed on the group's timeline
            long all = parts.stream().mapToLong(MergedGroup.Part::requests).sum();
            List<RunStore.RequestSample> out = new ArrayList<>();
            for (MergedGroup.Part p : parts) {
                int share = (int) Math.max(1, Math.round((double) max * p.requests() / Math.max(1, all)));
                for (RunStore.RequestSample s : sample(p.runId(), point, p.requests(), share)) {
                    out.add(new RunStore.RequestSample(p.firstIndex() + s.index() * p.indexStep(),
                            s.startMs() + p.shiftNanos() / 1e6, s.ttftMs(), s.latencyMs(), s.success(),
                            s.startEpochMs() - p.offsetMillis()));
                }
            }
            out.sort(Comparator.comparingLong(RunStore.RequestSample::index));
            return out;
        });
    }

    private List<RunStore.RequestSample> sample(String runId, int point, long total, int max) throws SQLException {
        List<RunStore.RequestSample> out = new ArrayList<>();
        if (total <= 0 || max <= 0) return out;
        double stride = Math.max(1.0, (double) total / max);
        List<Long> indices = new ArrayList<>();
        for (double i = 0; i < total && indices.size() < max; i += stride) indices.add((long) i);
        return db.read(c -> {
            for (List<Long> chunk : Sql.chunks(indices, 500)) {
                Object[] args = new Object[chunk.size() + 2];
                args[0] = runId;
                args[1] = point;
                for (int i = 0; i < chunk.size(); i++) args[i + 2] = chunk.get(i);
                Sql.query(c, "SELECT idx, start_ns, first_token_ns, end_ns, success, start_epoch_ms FROM requests "
                        + "WHERE run_id = ? AND point_index = ? AND idx IN (" + Sql.marks(chunk.size()) + ") ORDER BY idx", rs -> {
                    long start = rs.getLong(2);
                    if (rs.wasNull()) return null;
                    long first = rs.getLong(3);
                    Double ttft = rs.wasNull() ? null : (first - start) / 1e6;
                    long end = rs.getLong(4);
                    Double latency = rs.wasNull() ? null : (end - start) / 1e6;
                    out.add(new RunStore.RequestSample(rs.getLong(1), start / 1e6, ttft, latency, rs.getInt(5) != 0,
                            rs.getLong(6)));
                    return null;
                }, args);
            }
            return out;
        });
    }
}
