package io.unibench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.StrictJson;
import io.unibench.metrics.TurnPositionRow;
import io.unibench.metrics.WorkloadTimeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A point's summaries as the JSON documents stored beside it, with evalscope's file keys (the same as
 * {@code benchmark_summary.json}, {@code benchmark_percentile.json}, {@code workload_throughput.json}), so a
 * reader of the files reads the store the same way. Strict JSON: undefined values are null, never NaN.
 */
final class ResultJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private ResultJson() {}

    /** The summary keys plus run-level figures that do not come from records (the client self-check). */
    static String summary(RunResult r, Map<String, Object> extraKeys) {
        Map<String, Object> m = new LinkedHashMap<>(r.summary().toMap());
        m.putAll(r.goodputKeys());
        m.putAll(extraKeys);
        return write(m);
    }

    static String percentiles(RunResult r) {
        return write(PercentileRow.toMaps(r.percentiles()));
    }

    static String workload(RunResult r) {
        return r.workload() == null ? null : write(r.workload().toMap());
    }

    static String errors(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("counts", r.errors());
        m.put("samples", r.sampleErrors());
        return write(m);
    }

    /** Timeline points kept in the store: enough for a chart of any width, small for a million requests. */
    static final int TIMELINE_POINTS = 2000;

    static String traces(RunResult r) {
        return r.traces() == null ? null : write(r.traces().toMap());
    }

    static String turnPositions(RunResult r) {
        return r.traces() == null ? null : write(TurnPositionRow.toMaps(r.turnPositions()));
    }

    static String phases(RunResult r) {
        return r.phases().isEmpty() ? null : write(r.phases().toMap());
    }

    /** The workload timeline with every n-th point (and the last) so at most {@link #TIMELINE_POINTS} remain. */
    static String timeline(RunResult r) {
        WorkloadTimeline t = r.timeline();
        if (t == null || t.points().isEmpty()) return null;
        List<WorkloadTimeline.Point> all = t.points();
        int every = Math.max(1, (all.size() + TIMELINE_POINTS - 2) / (TIMELINE_POINTS - 1));
        List<WorkloadTimeline.Point> kept = new ArrayList<>();
        for (int i = 0; i < all.size() - 1; i += every) kept.add(all.get(i));
        kept.add(all.getLast());
        return write(new WorkloadTimeline(t.wallStartSeconds(), kept, t.successes(), t.sampledEvery() * every).toMap());
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(StrictJson.strict(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode read(String text) {
        if (text == null) return null;
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt JSON in the store: " + e.getOriginalMessage(), e);
        }
    }
}
