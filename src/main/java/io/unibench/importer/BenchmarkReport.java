package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.Summary;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * llm-d's Benchmark Report v0.2 (llm-d-benchmark's {@code br_v0_2_json_schema.json}, example
 * {@code br_v0_2_example.yaml}): {@code run} (times), {@code scenario} (stack, load: the tool and its settings) and
 * {@code results.request_performance.aggregate} (requests, throughput and latency statistics in seconds). No
 * per-request rows: the figures are the report's.
 */
public final class BenchmarkReport {
    /** The report's statistic names (its schema's; our labels: {@link ForeignPoints#percentileLabel}). */
    static final List<String> STATS = List.of("min", "p0p1", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95",
            "p99", "p99p9", "max");

    /**
     * The report's latency statistics → our percentile column and the factor from the report's unit (the one an
     * export writes); a time the report gives in milliseconds ({@code ms}, {@code ms/token}) is read too.
     */
    record Column(String path, String column, String unit, double factor) {
        /** The factor from {@code units} to ours; null when the report's schema has no such time unit here. */
        Double factor(String units) {
            if (units.equals(unit)) return factor;
            return unit.startsWith("s") && units.equals("m" + unit) ? factor / 1e3 : null;
        }
    }

    static final List<Column> COLUMNS = List.of(
            new Column("latency/time_to_first_token", PercentileRow.TTFT, "s", 1e3),
            new Column("latency/time_per_output_token", PercentileRow.TPOT, "s/token", 1e3),
            new Column("latency/inter_token_latency", PercentileRow.ITL, "s/token", 1e3),
            new Column("latency/request_latency", PercentileRow.LATENCY, "s", 1),
            new Column("requests/input_length", PercentileRow.INPUT_TOKENS, "count", 1),
            new Column("requests/output_length", PercentileRow.OUTPUT_TOKENS, "count", 1));

    /** Our percentile column → the summary key of its mean. */
    private static final Map<String, String> MEANS = Map.of(PercentileRow.TTFT, Summary.AVG_TTFT,
            PercentileRow.TPOT, Summary.AVG_TPOT, PercentileRow.ITL, Summary.AVG_ITL,
            PercentileRow.LATENCY, Summary.AVG_LATENCY, PercentileRow.INPUT_TOKENS, Summary.AVG_INPUT_TOKENS,
            PercentileRow.OUTPUT_TOKENS, Summary.AVG_OUTPUT_TOKENS);

    private BenchmarkReport() {}

    static boolean recognises(JsonNode root) {
        return root.isObject() && root.path("version").asText("").startsWith("0.2") && root.has("results");
    }

    static Foreign read(ForeignFile f, JsonNode root, long nowMillis) {
        String agg = "/results/request_performance/aggregate";
        JsonNode a = root.at(agg);
        if (!a.isObject()) throw f.error(agg, "missing, expected the aggregate results");
        Map<String, Object> figures = new LinkedHashMap<>();
        Double seconds = null;
        String d = root.at("/run/time/duration").asText(null);
        if (d != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("PT(\\d+(?:\\.\\d+)?)S").matcher(d);
            try {
                // llm-d writes more than the nine fraction digits java.time.Duration reads
                seconds = m.matches() ? Double.parseDouble(m.group(1)) : Duration.parse(d).toNanos() / 1e9;
            } catch (java.time.format.DateTimeParseException e) {
                throw f.error("/run/time/duration", "not an ISO-8601 duration: " + d);
            }
        }
        long started = nowMillis;
        String start = root.at("/run/time/start").asText(null);
        if (start != null) {
            try {
                started = Instant.parse(start).toEpochMilli();
            } catch (java.time.format.DateTimeParseException e) {
                throw f.error("/run/time/start", "not an ISO-8601 time: " + start);
            }
        }
        long total = (long) f.number(root, agg + "/requests/total");
        Double failures = f.optNumber(root, agg + "/requests/failures");
        long failed = failures == null ? 0 : failures.longValue();
        figures.put(Summary.TEST_DURATION, seconds);
        figures.put(Summary.TOTAL_REQUESTS, total);
        figures.put(Summary.SUCCESS_REQUESTS, total - failed);
        figures.put(Summary.FAILED_REQUESTS, failed);
        figures.put(Summary.REQ_THROUGHPUT, f.optNumber(root, agg + "/throughput/request_rate/mean"));
        figures.put(Summary.OUTPUT_THROUGHPUT, f.optNumber(root, agg + "/throughput/output_token_rate/mean"));
        figures.put(Summary.TOTAL_THROUGHPUT, f.optNumber(root, agg + "/throughput/total_token_rate/mean"));
        // absent unless the report gives them, in the summary's order
        for (String k : List.of(Summary.AVG_LATENCY, Summary.AVG_TTFT, Summary.AVG_TPOT, Summary.AVG_ITL,
                Summary.AVG_INPUT_TOKENS, Summary.AVG_OUTPUT_TOKENS)) figures.put(k, null);
        ForeignPoints.Rows rows = new ForeignPoints.Rows();
        for (Column c : COLUMNS) {
            String p = agg + "/" + c.path();
            JsonNode stat = root.at(p);
            if (!stat.isObject()) continue;
            String unit = stat.path("units").asText(c.unit());
            Double factor = c.factor(unit);
            if (factor == null) {
                throw f.error(p + "/units", "expected \"" + c.unit() + "\"" + (c.unit().startsWith("s")
                        ? " or \"m" + c.unit() + "\"" : "") + ", found \"" + unit + "\"");
            }
            Double mean = f.optNumber(root, p + "/mean");
            figures.put(MEANS.get(c.column()), mean == null ? null : mean * factor);
            rows.statistics(f, root, p, c.column(), factor);
        }
        JsonNode load = root.at("/scenario/load/standardized");
        Double rate = load.path("rate_qps").isNumber() ? load.path("rate_qps").asDouble() : null;
        Double concurrency = load.path("concurrency").isNumber() && !Double.isInfinite(load.path("concurrency").asDouble())
                ? load.path("concurrency").asDouble() : null;
        figures.put(Summary.CONCURRENCY, concurrency == null ? null : concurrency.longValue());
        figures.put(Summary.REQUEST_RATE, rate);
        int parallel = concurrency == null ? -1 : concurrency.intValue();
        RunInfo info = new RunInfo(rate != null ? "rate_" + rate + "_number_" + total
                : "parallel_" + parallel + "_number_" + total, parallel, rate == null ? -1 : rate, (int) total);
        List<String> lacks = new ArrayList<>(List.of("per-request rows", "phases", "cache figures"));
        if (start == null) lacks.add(ForeignPoints.NO_START);
        String tool = load.path("tool").asText(null);
        String version = root.path("version").asText();
        return new Foreign(ForeignFormat.BR_V0_2, "report " + version + (tool == null ? ""
                : ", measured by " + (tool + " " + load.path("tool_version").asText("")).strip()),
                Map.of(f.path.toString(), f.sha256), root.path("scenario"), lacks,
                List.of(ForeignPoints.figuresOnly(info, started, figures, rows.list())), started);
    }

    /**
     * Our stored run as a Benchmark Report v0.2 ({@code runs export RUN --format br-v0.2}): its last point's figures
     * as {@code results.request_performance.aggregate} (means from the summary, statistics from the percentile
     * rows, in the report's units), which {@link #read} reads back to the same figures.
     */
    public static Map<String, Object> export(io.unibench.store.StoredRun run) {
        if (run.points().isEmpty() || run.points().getLast().summary() == null) {
            throw new io.unibench.BadInputException("run " + run.runId() + ": no finished point to export");
        }
        io.unibench.store.StoredPoint p = run.points().getLast();
        JsonNode s = p.summary();
        Map<String, Object> time = new LinkedHashMap<>();
        time.put("start", Instant.ofEpochMilli(run.row().startedAt()).toString());
        if (run.row().endedAt() != null) time.put("end", Instant.ofEpochMilli(run.row().endedAt()).toString());
        if (s.path(Summary.TEST_DURATION).isNumber()) time.put("duration", "PT" + s.path(Summary.TEST_DURATION).asText() + "S");
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("uid", run.runId());
        r.put("time", time);
        r.put("description", "unibench run " + run.runId() + ", point " + p.label());
        Map<String, Object> requests = new LinkedHashMap<>();
        requests.put("total", s.path(Summary.TOTAL_REQUESTS).asLong());
        requests.put("failures", s.path(Summary.FAILED_REQUESTS).asLong());
        Map<String, Object> latency = new LinkedHashMap<>();
        for (Column c : COLUMNS) {
            JsonNode mean = s.path(MEANS.get(c.column()));
            if (!mean.isNumber()) continue;
            Map<String, Object> stat = new LinkedHashMap<>();
            stat.put("units", c.unit());
            stat.put("mean", mean.asDouble() / c.factor());
            STATS.forEach(name -> {
                String label = ForeignPoints.percentileLabel(name);
                for (JsonNode row : p.percentiles() == null ? ForeignFile.MAPPER.createArrayNode() : p.percentiles()) {
                    if (row.path(PercentileRow.PERCENTILES).asText().equals(label) && row.path(c.column()).isNumber()) {
                        stat.put(name, row.path(c.column()).asDouble() / c.factor());
                    }
                }
            });
            String[] path = c.path().split("/");
            (path[0].equals("requests") ? requests : latency).put(path[1], stat);
        }
        Map<String, Object> throughput = new LinkedHashMap<>();
        rate(throughput, "request_rate", "queries/s", s.path(Summary.REQ_THROUGHPUT));
        rate(throughput, "output_token_rate", "tokens/s", s.path(Summary.OUTPUT_THROUGHPUT));
        rate(throughput, "total_token_rate", "tokens/s", s.path(Summary.TOTAL_THROUGHPUT));
        Map<String, Object> aggregate = new LinkedHashMap<>();
        aggregate.put("requests", requests);
        aggregate.put("latency", latency);
        aggregate.put("throughput", throughput);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", "0.2");
        doc.put("run", r);
        doc.put("results", Map.of("request_performance", Map.of("aggregate", aggregate)));
        return doc;
    }

    private static void rate(Map<String, Object> into, String name, String units, JsonNode value) {
        if (!value.isNumber()) return;
        Map<String, Object> stat = new LinkedHashMap<>();
        stat.put("units", units);
        stat.put("mean", value.asDouble());
        into.put(name, stat);
    }
}
