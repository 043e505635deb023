package io.unibench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.StrictJson;

import java.util.LinkedHashMap;
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
