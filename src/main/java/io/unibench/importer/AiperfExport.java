package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.Summary;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
        return first != null && (first.path("metadata").has("request_start_ns")
                || first.path("metadata").has("timestamp_ns")) && first.has("metrics");
    }

    static JsonNode firstLine(ForeignFile f) {
        String text = new String(f.bytes, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        try {
            return ForeignFile.MAPPER.readTree(nl < 0 ? text : text.substring(0, nl));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // a first line that is broken but meant as one: read it, so the error is located
            String line = text.substring(0, nl < 0 ? text.length() : nl);
            return line.contains("\"request_start_ns\"") || line.contains("\"timestamp_ns\"")
                    ? ForeignFile.MAPPER.createObjectNode().<com.fasterxml.jackson.databind.node.ObjectNode>set(
                    "metadata", ForeignFile.MAPPER.createObjectNode().put("request_start_ns", 0)).put("metrics", 0)
                    : null;
        }
    }

    /** The records alone, or with the aggregate file beside them ({@code profile_export_aiperf.json}) when there is one. */
    static Foreign read(ForeignFile f, long nowMillis) {
        java.nio.file.Path sibling = f.path.toAbsolutePath().resolveSibling(AGGREGATE);
        if (java.nio.file.Files.isRegularFile(sibling)) {
            ForeignFile agg = ForeignFile.read(sibling);
            JsonNode root = agg.json();
            if (recognisesAggregate(root)) return read(f, agg, root, nowMillis);
        }
        return read(f, null, null, nowMillis);
    }

    /** AIPerf's aggregate file's name. */
    static final String AGGREGATE = "profile_export_aiperf.json";
    /** AIPerf's per-request records' name. */
    static final String RECORDS = "profile_export.jsonl";

    /**
     * True when {@code root} is AIPerf's aggregate export: its figures under {@code records} (2025) or at the top
     * (later versions), each {@code {"tag"/"unit", "avg", "p50", …}}, and {@code input_config}.
     */
    static boolean recognisesAggregate(JsonNode root) {
        if (!root.isObject() || !root.has("input_config")) return false;
        JsonNode figures = root.path("records").isObject() ? root.path("records") : root;
        return figures.path("request_latency").has("avg") || figures.path("request_throughput").has("avg");
    }

    /** The aggregate file alone, or with the records beside it ({@code profile_export.jsonl}) when there are. */
    static Foreign readAggregate(ForeignFile agg, JsonNode root, long nowMillis) {
        java.nio.file.Path sibling = agg.path.toAbsolutePath().resolveSibling(RECORDS);
        if (java.nio.file.Files.isRegularFile(sibling)) return read(ForeignFile.read(sibling), agg, root, nowMillis);
        Aggregate a = aggregate(agg, root);
        Map<String, Object> files = new java.util.LinkedHashMap<>();
        files.put(agg.path.toString(), agg.sha256);
        return new Foreign(ForeignFormat.AIPERF, null, files, a.args,
                List.of("per-request rows (" + RECORDS + " not beside it)", "phases", "cache figures", "server metrics"),
                List.of(ForeignPoints.figuresOnly(a.info(-1), a.startedMillis(nowMillis), a.figures, a.rows)),
                a.startedMillis(nowMillis));
    }

    /** The aggregate's figures (our keys), percentile rows, the run's settings ({@code input_config}) and times. */
    private record Aggregate(Map<String, Object> figures, List<Map<String, Object>> rows, JsonNode args,
                             Integer concurrency, Double rate, String start) {
        RunInfo info(int records) {
            int parallel = concurrency == null ? -1 : concurrency;
            double r = rate == null ? -1 : rate;
            int n = records >= 0 ? records : figures.get(Summary.TOTAL_REQUESTS) instanceof Long l ? l.intValue() : -1;
            String label = parallel > 0 ? "parallel_" + parallel + "_number_" + n
                    : r > 0 ? "rate_" + r + "_number_" + n : "aiperf_number_" + n;
            return new RunInfo(label, parallel, r, n);
        }

        long startedMillis(long nowMillis) {
            if (start == null) return nowMillis;
            try {
                // AIPerf writes its local time without a zone: read as UTC (the stored time says so, no guess)
                return java.time.LocalDateTime.parse(start).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
            } catch (java.time.format.DateTimeParseException e) {
                return nowMillis;
            }
        }
    }

    /** AIPerf metric tag (both names it has used) → our percentile column, and the factor from its unit. */
    private record Metric(List<String> tags, String column, String unit, double factor) {}

    private static final List<Metric> METRICS = List.of(
            new Metric(List.of("time_to_first_token", "ttft"), PercentileRow.TTFT, "ms", 1),
            new Metric(List.of("inter_token_latency"), PercentileRow.TPOT, "ms", 1),
            new Metric(List.of("inter_chunk_latency"), PercentileRow.ITL, "ms", 1),
            new Metric(List.of("request_latency"), PercentileRow.LATENCY, "ms", 1e-3),
            new Metric(List.of("input_sequence_length"), PercentileRow.INPUT_TOKENS, "tokens", 1),
            new Metric(List.of("output_sequence_length"), PercentileRow.OUTPUT_TOKENS, "tokens", 1));

    private static Aggregate aggregate(ForeignFile f, JsonNode root) {
        String base = root.path("records").isObject() ? "/records/" : "/";
        Map<String, Object> figures = new java.util.LinkedHashMap<>();
        Double duration = stat(f, root, base, List.of("benchmark_duration"), "avg", "sec", 1);
        figures.put(Summary.TEST_DURATION, duration);
        Double ok = stat(f, root, base, List.of("request_count"), "avg", "requests", 1);
        Double failed = stat(f, root, base, List.of("error_request_count"), "avg", "requests", 1);
        if (ok != null) {
            figures.put(Summary.TOTAL_REQUESTS, ok.longValue() + (failed == null ? 0 : failed.longValue()));
            figures.put(Summary.SUCCESS_REQUESTS, ok.longValue());
            figures.put(Summary.FAILED_REQUESTS, failed == null ? 0L : failed.longValue());
        }
        figures.put(Summary.REQ_THROUGHPUT, stat(f, root, base, List.of("request_throughput"), "avg", null, 1));
        figures.put(Summary.OUTPUT_THROUGHPUT, stat(f, root, base, List.of("output_token_throughput"), "avg", null, 1));
        figures.put(Summary.AVG_LATENCY, stat(f, root, base, List.of("request_latency"), "avg", "ms", 1e-3));
        figures.put(Summary.AVG_TTFT, stat(f, root, base, List.of("time_to_first_token", "ttft"), "avg", "ms", 1));
        figures.put(Summary.AVG_TPOT, stat(f, root, base, List.of("inter_token_latency"), "avg", "ms", 1));
        figures.put(Summary.AVG_ITL, stat(f, root, base, List.of("inter_chunk_latency"), "avg", "ms", 1));
        figures.put(Summary.AVG_INPUT_TOKENS, stat(f, root, base, List.of("input_sequence_length"), "avg", "tokens", 1));
        figures.put(Summary.AVG_OUTPUT_TOKENS, stat(f, root, base, List.of("output_sequence_length"), "avg", "tokens", 1));
        Double isl = stat(f, root, base, List.of("total_isl"), "avg", "tokens", 1);
        Double osl = stat(f, root, base, List.of("total_osl"), "avg", "tokens", 1);
        figures.put(Summary.TOTAL_INPUT_TOKENS, isl == null ? null : isl.longValue());
        figures.put(Summary.TOTAL_OUTPUT_TOKENS, osl == null ? null : osl.longValue());
        ForeignPoints.Rows rows = new ForeignPoints.Rows();
        for (Metric m : METRICS) {
            String at = metric(f, root, base, m.tags(), m.unit());
            if (at != null) rows.statistics(f, root, at, m.column(), m.factor());
        }
        ObjectNode args = root.path("input_config").isObject() ? ((ObjectNode) root.path("input_config")).deepCopy()
                : ForeignFile.MAPPER.createObjectNode();
        JsonNode names = args.at("/endpoint/model_names");
        if (names.isArray() && !names.isEmpty()) args.put("model", names.get(0).asText());
        if (args.at("/endpoint/url").isTextual()) args.put("url", args.at("/endpoint/url").asText());
        JsonNode c = args.at("/loadgen/concurrency");
        JsonNode r = args.at("/loadgen/request_rate");
        return new Aggregate(figures, rows.list(), args, c.isNumber() ? c.asInt() : null,
                r.isNumber() ? r.asDouble() : null, root.path("start_time").asText(null));
    }

    /** One statistic of one metric (the first of its tags present) in our unit; null when absent or null. */
    private static Double stat(ForeignFile f, JsonNode root, String base, List<String> tags, String stat, String unit,
                               double factor) {
        String at = metric(f, root, base, tags, unit);
        Double v = at == null ? null : f.optNumber(root, at + "/" + stat);
        return v == null ? null : v * factor;
    }

    /** The pointer of the first of a metric's tags present; bad input when its unit is not {@code unit}. */
    private static String metric(ForeignFile f, JsonNode root, String base, List<String> tags, String unit) {
        for (String tag : tags) {
            JsonNode m = root.at(base + tag);
            if (!m.isObject()) continue;
            if (unit != null && m.has("unit") && !m.path("unit").asText().equals(unit)) {
                throw f.error(base + tag + "/unit", "expected \"" + unit + "\", found " + m.path("unit"));
            }
            return base + tag;
        }
        return null;
    }

    private static Foreign read(ForeignFile f, ForeignFile agg, JsonNode aggRoot, long nowMillis) {
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
            base = Math.min(base, startNs(f, lineNumbers.get(i), rows.get(i)) / 1e9);
        }
        // AIPerf's times are epoch nanoseconds: the records keep their own wall-clock times
        long epoch = Math.round(base * 1e3);
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            JsonNode r = rows.get(i);
            int line = lineNumbers.get(i);
            double start = startNs(f, line, r) / 1e9;
            JsonNode m = r.path("metrics");
            // the end: request_end_ns; AIPerf's 2025 records have none: the start plus its request_latency
            double end = r.path("metadata").has("request_end_ns") ? at(f, line, r, "/metadata/request_end_ns") / 1e9
                    : m.has("request_latency") ? start + ms(f, line, r, "request_latency") : start;
            JsonNode error = r.path("error");
            boolean ok = error.isMissingNode() || error.isNull();
            int prompt = (int) (m.has("input_sequence_length") ? at(f, line, r, "/metrics/input_sequence_length/value")
                    : m.has("error_isl") ? at(f, line, r, "/metrics/error_isl/value") : -1);
            RequestRecord rec;
            if (ok) {
                String ttftTag = m.has("time_to_first_token") ? "time_to_first_token" : "ttft";
                double ttft = m.has(ttftTag) ? ms(f, line, r, ttftTag) : Double.NaN;
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
                rec = ForeignPoints.record(i, base, epoch, start, ttft, gaps, latency, prompt, completion,
                        RequestRecord.TokenSource.TOKENIZER, !Double.isNaN(ttft), null);
            } else {
                rec = ForeignPoints.record(i, base, epoch, start, Double.NaN, new double[0], end - start, prompt,
                        -1, RequestRecord.TokenSource.TOKENIZER, true, error.path("message").asText("failed"));
                int code = error.path("code").asInt(0);
                String type = error.path("type").asText("error");
                rec = rec.withOutcome(r.path("metadata").path("was_cancelled").asBoolean(false)
                        ? Outcome.failed(Outcome.CANCELLED, code, error.path("message").asText(type))
                        : Outcome.failed(type, code, error.path("message").asText(type)));
            }
            records.add(rec);
        }
        Map<String, Object> files = new java.util.LinkedHashMap<>();
        files.put(f.path.toString(), f.sha256);
        if (agg == null) {
            RunInfo info = new RunInfo("aiperf_number_" + records.size(), -1, -1, records.size());
            return new Foreign(ForeignFormat.AIPERF, null, files, null,
                    List.of("phases", "cache figures", "server metrics", "load settings (" + AGGREGATE + " not beside it)"),
                    List.of(ForeignPoints.recomputed(info, epoch, records, Map.of(), List.of())), epoch);
        }
        files.put(agg.path.toString(), agg.sha256);
        Aggregate a = aggregate(agg, aggRoot);
        long started = epoch;
        return new Foreign(ForeignFormat.AIPERF, null, files, a.args,
                List.of("phases", "cache figures", "server metrics"),
                List.of(ForeignPoints.recomputed(a.info(records.size()), started, records, a.figures, a.rows)), started);
    }

    /** A record's start: {@code metadata.request_start_ns}, or the 2025 records' {@code metadata.timestamp_ns}. */
    private static double startNs(ForeignFile f, int line, JsonNode r) {
        return r.path("metadata").has("request_start_ns") || !r.path("metadata").has("timestamp_ns")
                ? at(f, line, r, "/metadata/request_start_ns") : at(f, line, r, "/metadata/timestamp_ns");
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
