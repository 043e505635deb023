package io.unibench.web;

import io.unibench.engine.LoadPlan;
import io.unibench.engine.live.PhaseStarted;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunEvent;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.Snapshot;
import io.unibench.metrics.PercentileRow;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A live event as the SSE stream sends it: {@code event:} the record's name in snake_case, {@code data:} one JSON
 * object of its fields (snake_case, units in the names; NaN — no sample yet — as null). A finished point carries its
 * summary and the p50/p95/p99 rows of its exact percentiles, not the whole result.
 */
final class EventJson {
    private EventJson() {}

    static String name(RunEvent e) {
        return switch (e) {
            case PhaseStarted p -> "phase";
            case PointStarted p -> "point_started";
            case Snapshot s -> "snapshot";
            case PointFinished f -> "point_finished";
            case RunFinished r -> "run_finished";
        };
    }

    static Map<String, Object> of(RunEvent e) {
        return switch (e) {
            case PhaseStarted p -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("phase", p.phase());
                m.put("detail", p.detail());
                yield m;
            }
            case PointStarted p -> pointStarted(p);
            case Snapshot s -> snapshot(s);
            case PointFinished f -> pointFinished(f);
            case RunFinished r -> runFinished(r.status().name().toLowerCase(Locale.ROOT), r.reason());
        };
    }

    static Map<String, Object> runFinished(String status, String reason) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status);
        m.put("reason", reason);
        return m;
    }

    private static Map<String, Object> pointStarted(PointStarted p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("point", p.point());
        m.put("points", p.points());
        m.put("label", p.label());
        m.put("search", p.search());
        LoadPlan plan = p.plan();
        Map<String, Object> pm = new LinkedHashMap<>();
        pm.put("concurrency", plan.concurrency());
        pm.put("number", plan.duration() != null ? null : plan.number());
        pm.put("rate", plan.rate() > 0 ? plan.rate() : null);
        pm.put("duration_s", plan.duration() == null ? null : plan.duration().toMillis() / 1000.0);
        pm.put("open_loop", plan.openLoop());
        m.put("plan", pm);
        return m;
    }

    private static Map<String, Object> snapshot(Snapshot s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("point", s.point());
        m.put("elapsed_s", num(s.elapsedSeconds()));
        m.put("completed", s.completed());
        m.put("succeeded", s.succeeded());
        m.put("failed", s.failed());
        m.put("cancelled", s.cancelled());
        m.put("failed_by_class", s.failedByClass());
        m.put("in_flight", s.inFlight() < 0 ? null : s.inFlight());
        m.put("requests_per_second", num(s.requestsPerSecond()));
        m.put("output_tokens_per_second", num(s.outputTokensPerSecond()));
        m.put("ttft_ms", quantiles(s.ttftMs()));
        m.put("latency_ms", quantiles(s.latencyMs()));
        if (s.reasoning()) m.put("ttfct_ms", quantiles(s.ttfctMs())); // replies that reasoned first only
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("cpu_percent_of_one_core", num(s.client().cpuPercentOfOneCore()));
        c.put("loop_lag_p99_ms", num(s.client().loopLagP99Ms()));
        c.put("warning", s.client().warning());
        m.put("client", c);
        return m;
    }

    private static Map<String, Object> pointFinished(PointFinished f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("point", f.point());
        m.put("label", f.label());
        m.put("summary", f.result().summary().toMap());
        Map<String, Object> q = new LinkedHashMap<>();
        for (String label : new String[] {"50%", "95%", "99%"}) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("ttft_ms", f.result().percentile(label, PercentileRow.TTFT));
            row.put("latency_s", f.result().percentile(label, PercentileRow.LATENCY));
            q.put(label, row);
        }
        m.put("percentiles", q);
        return m;
    }

    private static Map<String, Object> quantiles(Snapshot.Quantiles q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", num(q.p50()));
        m.put("p95", num(q.p95()));
        m.put("p99", num(q.p99()));
        return m;
    }

    private static Double num(double v) {
        return Double.isFinite(v) ? Math.round(v * 1000) / 1000.0 : null;
    }
}
