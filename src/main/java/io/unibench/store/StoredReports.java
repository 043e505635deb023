package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of a stored run's report (which {@code report.TerminalReport} renders), recomputed from its stored
 * requests by the same aggregation {@code perf} uses, so it equals the report printed at the end of the run, and
 * exists for a run that was killed before its end.
 */
public final class StoredReports {
    private StoredReports() {}

    /**
     * One result per stored sweep point (a point with no stored request is left out); a sharded run's merge
     * ({@code group:G}) from the union of its shards' requests on the group's timeline ({@link RunStore#replay}),
     * in the order {@link GroupMerge} merged them.
     */
    public static List<RunResult> results(RunStore store, StoredRun run) throws SQLException {
        List<RunResult> results = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            RunMetrics metrics = new RunMetrics();
            store.replay(run.runId(), p.index(), metrics::accept);
            if (metrics.total() > 0) results.add(withStoredVerdict(metrics.result(p.info()), p.summary()));
        }
        return results;
    }

    /**
     * The result with the verdict the run judged and stored in the point's summary ({@link PointVerdict}'s keys), so
     * the re-rendered report heads with it as the run's did; a point stored before verdicts existed has none. The
     * stored reasons come back as their one joined line (what the report prints).
     */
    static RunResult withStoredVerdict(RunResult result, JsonNode summary) {
        if (summary == null || !summary.hasNonNull(PointVerdict.KEY)) return result;
        String reasons = summary.path(PointVerdict.REASONS_KEY).asText(null);
        return result.withVerdict(new PointVerdict(summary.get(PointVerdict.KEY).asText(),
                reasons == null || reasons.isBlank() ? List.of() : List.of(reasons),
                number(summary, PointVerdict.OFFERED_RATE), number(summary, PointVerdict.DELIVERED_RATE),
                number(summary, PointVerdict.DISPATCH_LAG_P99), number(summary, PointVerdict.MEAN_IN_FLIGHT)));
    }

    private static Double number(JsonNode summary, String key) {
        JsonNode v = summary.get(key);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    /** The "Basic Information" rows of the stored run's report: which run, its state, target and tags. */
    public static Map<String, String> basicInfo(StoredRun run) {
        Map<String, String> info = new LinkedHashMap<>();
        RunRow r = run.row();
        info.put("Run", r.runId() + (r.name() != null ? " (" + r.name() + ")" : ""));
        info.put("Status", r.status() + (RunRow.FINISHED.equals(r.status()) ? "" : " (report from the stored requests)"));
        info.put("Started", Instant.ofEpochMilli(r.startedAt()).toString());
        info.put("Model", r.model());
        info.put("Target", r.url());
        if (run.config() != null && run.config().hasNonNull("dataset")) {
            info.put("Dataset", run.config().get("dataset").asText());
        }
        if (!r.tags().isEmpty()) info.put("Tags", String.join(", ", r.tags()));
        info.put("Stored Requests", Long.toString(r.requestCount()));
        return info;
    }
}
