package io.unibench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The writes of a run's life: created (or queued), its points, its requests in batches, its results and end. */
final class RunWrites {
    private static final Set<String> CONFIG_KEY_IGNORED =
            Set.of("name", "outputs_dir", "no_timestamp", "log_every_n_query", "debug");

    private final Database db;

    RunWrites(Database db) {
        this.db = db;
    }

    void createRun(String id, RunStart s, Owner owner, long nowMillis, String status) throws SQLException {
        db.write(c -> {
            insertRun(c, id, s, owner, nowMillis, status);
            return null;
        });
    }

    /**
     * Another tool's run stored whole in one transaction ({@code runs import}): its row, points, summaries and
     * requests, ended; nothing when any of it fails.
     */
    void storeImported(String id, ImportedRun run, Owner owner) throws SQLException {
        db.write(c -> {
            insertRun(c, id, run.start(), owner, run.startedAtMillis(), RunRow.FINISHED);
            long requests = 0;
            long successes = 0;
            int index = 0;
            for (ImportedRun.Point p : run.points()) {
                RunInfo info = p.info();
                Sql.update(c, "INSERT INTO run_points (run_id, point_index, label, concurrency, rate, number, started_at, "
                                + "summary_json, percentiles_json, workload_json, errors_json, phases_json, timeline_json) "
                                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", id, index, info.label(),
                        info.concurrency(), info.rate(), info.number(), p.startedAtMillis(),
                        ResultJson.write(p.summary()), ResultJson.write(p.percentiles()),
                        p.result() == null ? null : ResultJson.workload(p.result()),
                        p.result() == null ? null : ResultJson.errors(p.result()),
                        p.result() == null ? null : ResultJson.phases(p.result()),
                        p.result() == null ? null : ResultJson.timeline(p.result()));
                ChunkTimes.Packer packer = new ChunkTimes.Packer();
                try (PreparedStatement ps = c.prepareStatement(RequestRows.INSERT)) {
                    for (RequestRecord r : p.requests()) {
                        RequestRows.bind(ps, id, index, 0L, r, packer);
                        ps.addBatch();
                        requests++;
                        if (r.success()) successes++;
                    }
                    ps.executeBatch();
                }
                index++;
            }
            Sql.update(c, "UPDATE runs SET ended_at = ?, heartbeat_at = ?, request_count = ?, success_count = ? "
                    + "WHERE run_id = ?", run.endedAtMillis(), run.endedAtMillis(), requests, successes, id);
            return null;
        });
    }

    private static void insertRun(java.sql.Connection c, String id, RunStart s, Owner owner, long nowMillis,
                                  String status) throws SQLException {
            Sql.update(c, "INSERT INTO runs (run_id, name, model, url, status, started_at, heartbeat_at, owner_host, "
                            + "owner_pid, owner_started, config_key, config_json, environment_json, parent_run_id) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    id, s.name(), s.model(), s.url(), status, nowMillis, nowMillis, owner.host(), owner.pid(),
                    owner.startedAt(), configKey(s.config()),
                    ResultJson.write(ResultJson.MAPPER.convertValue(s.config(), Object.class)),
                    ResultJson.write(s.environment()), s.parentRunId());
            for (String tag : new LinkedHashSet<>(s.tags())) {
                Sql.update(c, "INSERT INTO run_tags (run_id, tag) VALUES (?, ?)", id, tag);
            }
    }

    void addPoint(String runId, int index, RunInfo info, long startedAtMillis) throws SQLException {
        update("INSERT INTO run_points (run_id, point_index, label, concurrency, rate, number, started_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)", runId, index, info.label(), info.concurrency(), info.rate(),
                info.number(), startedAtMillis);
    }

    void insertRequests(String runId, int point, long baseNanos, List<RequestRecord> batch, long nowMillis)
            throws SQLException {
        db.write(c -> {
            long successes = 0;
            ChunkTimes.Packer packer = new ChunkTimes.Packer();
            try (PreparedStatement ps = c.prepareStatement(RequestRows.INSERT)) {
                for (RequestRecord r : batch) {
                    RequestRows.bind(ps, runId, point, baseNanos, r, packer);
                    ps.addBatch();
                    if (r.success()) successes++;
                }
                ps.executeBatch();
            }
            Sql.update(c, "UPDATE runs SET heartbeat_at = ?, request_count = request_count + ?, "
                    + "success_count = success_count + ? WHERE run_id = ?", nowMillis, (long) batch.size(), successes, runId);
            return null;
        });
    }

    void heartbeat(String runId, long nowMillis) throws SQLException {
        update("UPDATE runs SET heartbeat_at = ? WHERE run_id = ?", nowMillis, runId);
    }

    void savePointResult(String runId, int index, RunResult r, Map<String, Object> extraSummaryKeys)
            throws SQLException {
        Object verdict = r.verdict() != null ? r.verdict().verdict() : extraSummaryKeys.get(PointVerdict.KEY);
        if (verdict instanceof String v) { // the run's verdict: the union of its points' (PointVerdict.combine)
            db.write(c -> Sql.update(c, "UPDATE runs SET verdict = ? WHERE run_id = ?", PointVerdict.combine(
                    java.util.Arrays.asList(Sql.first(c, "SELECT verdict FROM runs WHERE run_id = ?",
                            rs -> rs.getString(1), runId), v)), runId));
        }
        update("UPDATE run_points SET summary_json = ?, percentiles_json = ?, workload_json = ?, errors_json = ?, "
                        + "traces_json = ?, turn_positions_json = ?, phases_json = ?, timeline_json = ? "
                        + "WHERE run_id = ? AND point_index = ?",
                ResultJson.summary(r, extraSummaryKeys), ResultJson.percentiles(r), ResultJson.workload(r),
                ResultJson.errors(r), ResultJson.traces(r), ResultJson.turnPositions(r), ResultJson.phases(r),
                ResultJson.timeline(r), runId, index);
    }

    void savePointServerMetrics(String runId, int index, String json) throws SQLException {
        update("UPDATE run_points SET server_metrics_json = ? WHERE run_id = ? AND point_index = ?", json, runId, index);
    }

    boolean startQueued(String runId, RunStart s, Owner owner, long nowMillis) throws SQLException {
        return update("UPDATE runs SET status = ?, started_at = ?, heartbeat_at = ?, model = ?, url = ?, owner_host = ?, "
                        + "owner_pid = ?, owner_started = ?, config_key = ?, config_json = ?, environment_json = ? "
                        + "WHERE run_id = ? AND status = ?",
                RunRow.RUNNING, nowMillis, nowMillis, s.model(), s.url(), owner.host(), owner.pid(), owner.startedAt(),
                configKey(s.config()), ResultJson.write(ResultJson.MAPPER.convertValue(s.config(), Object.class)),
                ResultJson.write(s.environment()), runId, RunRow.QUEUED) == 1;
    }

    void setTarget(String runId, String url, Map<String, Object> environment) throws SQLException {
        update("UPDATE runs SET url = ?, environment_json = ? WHERE run_id = ?", url, ResultJson.write(environment), runId);
    }

    boolean endActive(String runId, String status, String reason, long nowMillis) throws SQLException {
        return update("UPDATE runs SET status = ?, status_reason = ?, ended_at = ?, heartbeat_at = ? "
                        + "WHERE run_id = ? AND status IN (?, ?)",
                status, reason, nowMillis, nowMillis, runId, RunRow.QUEUED, RunRow.RUNNING) == 1;
    }

    void setStatus(String runId, String status, String reason) throws SQLException {
        update("UPDATE runs SET status = ?, status_reason = ? WHERE run_id = ?", status, reason, runId);
    }

    void setCounts(String runId, long requests, long successes) throws SQLException {
        update("UPDATE runs SET request_count = ?, success_count = ? WHERE run_id = ?", requests, successes, runId);
    }

    void setRunGroup(String runId, String group) throws SQLException {
        update("UPDATE runs SET run_group = ? WHERE run_id = ?", group, runId);
    }

    void finishRun(String runId, String status, long nowMillis) throws SQLException {
        update("UPDATE runs SET status = ?, ended_at = ?, heartbeat_at = ? WHERE run_id = ?",
                status, nowMillis, nowMillis, runId);
    }

    void addGroupParts(String runId, int point, List<MergedGroup.Part> parts) throws SQLException {
        db.write(c -> {
            GroupRequests.insert(c, runId, point, parts);
            return null;
        });
    }

    /** One statement that changes rows, in a write transaction of its own; returns how many it changed. */
    private int update(String sql, Object... args) throws SQLException {
        return db.write(c -> Sql.update(c, sql, args));
    }

    /**
     * Hash of the configuration minus what does not change the measurement (names, output places, logging):
     * runs with the same key are repeats, whose spread tells a real difference from noise.
     */
    static String configKey(JsonNode config) {
        ObjectNode copy = config != null && config.isObject() ? ((ObjectNode) config).deepCopy()
                : ResultJson.MAPPER.createObjectNode();
        CONFIG_KEY_IGNORED.forEach(copy::remove);
        // the embedded simulator listens on a new free port each run: its URL says nothing about the target
        if (copy.path("embedded_simulator").asBoolean(false)) copy.remove("url");
        try {
            Object canonical = ResultJson.MAPPER.convertValue(copy, Object.class);
            String text = ResultJson.MAPPER.copy().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
                    .writeValueAsString(canonical);
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 12);
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
