package io.unibench.store;

import io.unibench.metrics.RunMetrics;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs whose owning process is gone: a running one is recovered as {@code interrupted} (its unfinished points'
 * summaries rebuilt from its stored requests), a queued one is adopted by the service that finds it.
 */
final class RunLifecycle {
    private final Database db;
    private final RunWrites writes;
    private final RequestStreams requests;

    RunLifecycle(Database db, RunWrites writes, RequestStreams requests) {
        this.db = db;
        this.writes = writes;
        this.requests = requests;
    }

    List<String> recoverAbandoned(Owner me, long nowMillis) throws SQLException {
        List<String> abandoned = db.read(c -> ownedByTheGone(c, RunRow.RUNNING, me, nowMillis, false));
        List<String> recovered = new ArrayList<>();
        for (String id : abandoned) {
            // one transaction per run; another process may recover it first
            List<StoredPoint> points = db.write(c -> Sql.update(c, "UPDATE runs SET status = ?, ended_at = heartbeat_at, "
                    + "status_reason = COALESCE(status_reason, ?) WHERE run_id = ? AND status = ?", RunRow.INTERRUPTED,
                    RunStore.ABANDONED_REASON, id, RunRow.RUNNING) == 0 ? null
                    : RunRows.points(c, id));
            if (points == null) continue;
            recovered.add(id);
            for (StoredPoint p : points) {
                if (p.summary() != null) continue;
                RunMetrics metrics = new RunMetrics();
                requests.stream(id, p.index(), RunStore.BY_END, GroupRequests.BY_END, metrics::accept);
                writes.savePointResult(id, p.index(), metrics.result(p.info()), Map.of());
            }
        }
        return recovered;
    }

    /**
     * The runs of this status whose owner is gone (oldest first): of this host, its pid is not running (or belongs
     * to a newer process); of another host, it has not committed for {@link RunStore#FOREIGN_STALE_MILLIS}. {@code
     * me}'s own runs count as gone only when {@code includeMine} (queued runs of this process have no thread yet).
     */
    private static List<String> ownedByTheGone(Connection c, String status, Owner me, long nowMillis,
                                               boolean includeMine) throws SQLException {
        List<String> out = new ArrayList<>();
        Sql.query(c, "SELECT run_id, owner_host, owner_pid, owner_started, heartbeat_at FROM runs WHERE status = ? "
                + "ORDER BY started_at, run_id", rs -> {
            Owner owner = new Owner(rs.getString(2), rs.getLong(3), rs.getLong(4));
            boolean local = owner.host().equals(me.host());
            boolean self = local && owner.pid() == me.pid();
            boolean gone = self ? includeMine
                    : local ? owner.deadOn(me.host()) : nowMillis - rs.getLong(5) > RunStore.FOREIGN_STALE_MILLIS;
            if (gone) out.add(rs.getString(1));
            return null;
        }, status);
        return out;
    }

    List<String> adoptQueued(Owner me, long nowMillis) throws SQLException {
        return db.write(c -> {
            List<String> adopted = new ArrayList<>();
            for (String id : ownedByTheGone(c, RunRow.QUEUED, me, nowMillis, true)) {
                if (Sql.update(c, "UPDATE runs SET owner_host = ?, owner_pid = ?, owner_started = ?, heartbeat_at = ? "
                        + "WHERE run_id = ? AND status = ?", me.host(), me.pid(), me.startedAt(), nowMillis, id,
                        RunRow.QUEUED) == 1) {
                    adopted.add(id);
                }
            }
            return adopted;
        });
    }
}
