package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * AIPerf's {@code profile_export.jsonl} (docs/tutorials/working-with-profile-exports.md of ai-dynamo/aiperf): one
 * record per request, {@code metadata} (epoch-nanosecond start and end, session, turn, cancelled) and {@code metrics}
 * ({@code time_to_first_token}, {@code inter_chunk_latency}, {@code request_latency}, sequence lengths, each
 * {@code {"value", "unit"}}), or an {@code error}. Every figure is recomputed from the records.
 */
final class AiperfExport {
    private AiperfExport() {}

    /** True when the first line is an AIPerf per-request record. */
    static boolean recognises(JsonNode first) {
        return first != null && first.path("metadata").has("request_start_ns") && first.has("metrics");
    }

    static JsonNode firstLine(ForeignFile f) {
        String text = new String(f.bytes, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        try {
            return ForeignFile.MAPPER.readTree(nl < 0 ? text : text.substring(0, nl));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // a first line that is broken but meant as one: read it, so the error is located
            return text.substring(0, nl < 0 ? text.length() : nl).contains("\"request_start_ns\"")
                    ? ForeignFile.MAPPER.createObjectNode().<com.fasterxml.jackson.databind.node.ObjectNode>set(
                    "metadata", ForeignFile.MAPPER.createObjectNode().put("request_start_ns", 0)).put("metrics", 0)
                    : null;
        }
    }

    static Foreign read(ForeignFile f, long nowMillis) {
        String[] lines = new String(f.bytes, StandardCharsets.UTF_8).split("\n");
        List<JsonNode> rows = new ArrayList<>();
        List<Integer> lineNumbers = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) continue;
            try {
                rows.add(ForeignFile.MAPPER.readTree(lines[i]));
                lineNumbers.add(i + 1);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new BadInputException(f.path + ":" + (i + 1) + ": not JSON: " + e.getOriginalMessage());
            }
        }
        if (rows.isEmpty()) throw f.error("", "no records");
        double base = Double.POSITIVE_INFINITY;
        for (int i = 0; i < rows.size(); i++) {
            base = Math.min(base, at(f, lineNumbers.get(i), rows.get(i), "/metadata/request_start_ns") / 1e9);
        }
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            JsonNode r = rows.get(i);
            int line = lineNumbers.get(i);
            double start = at(f, line, r, "/metadata/request_start_ns") / 1e9;
            double end = at(f, line, r, "/metadata/request_end_ns") / 1e9;
            JsonNode error = r.path("error");
            boolean ok = error.isMissingNode() || error.isNull();
            JsonNode m = r.path("metrics");
            int prompt = (int) (m.has("input_sequence_length") ? at(f, line, r, "/metrics/input_sequence_length/value")
                    : m.has("error_isl") ? at(f, line, r, "/metrics/error_isl/value") : -1);
            RequestRecord rec;
            if (ok) {
                double ttft = m.has("time_to_first_token") ? ms(f, line, r, "time_to_first_token") : Double.NaN;
                double[] gaps = new double[0];
                JsonNode icl = m.path("inter_chunk_latency").path("value");
                if (icl.isArray()) {
                    gaps = new double[icl.size()];
                    for (int j = 0; j < gaps.length; j++) {
                        gaps[j] = at(f, line, r, "/metrics/inter_chunk_latency/value/" + j) / 1e3;
                    }
                }
                double latency = m.has("request_latency") ? ms(f, line, r, "request_latency") : end - start;
                int completion = (int) at(f, line, r, "/metrics/output_sequence_length/value");
                rec = ForeignPoints.record(i, base, nowMillis, start, ttft, gaps, latency, prompt, completion,
                        RequestRecord.TokenSource.TOKENIZER, !Double.isNaN(ttft), null);
            } else {
                rec = ForeignPoints.record(i, base, nowMillis, start, Double.NaN, new double[0], end - start, prompt,
                        -1, RequestRecord.TokenSource.TOKENIZER, true, error.path("message").asText("failed"));
                int code = error.path("code").asInt(0);
                String type = error.path("type").asText("error");
                rec = rec.withOutcome(r.path("metadata").path("was_cancelled").asBoolean(false)
                        ? Outcome.failed(Outcome.CANCELLED, code, error.path("message").asText(type))
                        : Outcome.failed(type, code, error.path("message").asText(type)));
            }
            records.add(rec);
        }
        RunInfo info = new RunInfo("aiperf_number_" + records.size(), -1, -1, records.size());
        return new Foreign(ForeignFormat.AIPERF, null, Map.of(f.path.toString(), f.sha256), null,
                List.of("phases", "cache figures", "server metrics", "load settings (in profile_export_aiperf.json)"),
                List.of(ForeignPoints.recomputed(info, nowMillis, records, Map.of(), List.of())), nowMillis);
    }

    /** A {@code {"value", "unit": "ms"}} metric in seconds; bad input for another unit. */
    private static double ms(ForeignFile f, int line, JsonNode r, String metric) {
        String unit = r.path("metrics").path(metric).path("unit").asText("");
        if (!unit.equals("ms")) {
            throw new BadInputException(f.path + ":" + line + ": /metrics/" + metric + "/unit: expected \"ms\", found \""
                    + unit + "\"");
        }
        return at(f, line, r, "/metrics/" + metric + "/value") / 1e3;
    }

    private static double at(ForeignFile f, int line, JsonNode r, String pointer) {
        JsonNode n = r.at(pointer);
        if (!n.isNumber()) {
            throw new BadInputException(f.path + ":" + line + ": " + pointer + ": "
                    + (n.isMissingNode() || n.isNull() ? "missing, expected a number" : "expected a number, found "
                    + ForeignFile.abbreviate(n.toString())));
        }
        return n.asDouble();
    }
}
