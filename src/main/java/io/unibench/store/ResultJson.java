package io.unibench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.WorkloadThroughput;

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
        m.putAll(extraKeys);
        return write(m);
    }

    static String percentiles(RunResult r) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (PercentileRow row : r.percentiles()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(PercentileRow.PERCENTILES, row.label());
            m.putAll(row.values());
            rows.add(m);
        }
        return write(rows);
    }

    static String workload(RunResult r) {
        WorkloadThroughput w = r.workload();
        if (w == null) return null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n_samples", w.nSamples());
        m.put("wall_time_s", w.wallTimeSeconds());
        m.put("last_window_s", w.lastWindowSeconds());
        m.put("warmup_frac", w.warmupFraction());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (WorkloadThroughput.Row row : w.rows()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("metric", row.metric());
            rm.put("overall", row.overall());
            rm.put("last_window", row.lastWindow());
            rm.put("steady_state", row.steadyState());
            rows.add(rm);
        }
        m.put("rows", rows);
        return write(m);
    }

    static String errors(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("counts", r.errors());
        m.put("samples", r.sampleErrors());
        return write(m);
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(strict(value));
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

    /** A copy with every non-finite double replaced by null. */
    static Object strict(Object value) {
        if (value instanceof Double d) return Double.isFinite(d) ? d : null;
        if (value instanceof Float f) return Float.isFinite(f) ? f : null;
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(k, strict(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object v : list) out.add(strict(v));
            return out;
        }
        return value;
    }
}
