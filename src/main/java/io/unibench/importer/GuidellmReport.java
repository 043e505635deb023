package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.Summary;
import io.unibench.store.ImportedRun;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GuideLLM's report JSON ({@code guidellm benchmark --output-path report.json}; vllm-project/guidellm
 * {@code src/guidellm/benchmark/schemas/report.py}): {@code benchmarks[]}, each one load level with its strategy,
 * start, end, duration, request totals and {@code metrics.<name>.successful} distributions (mean, median,
 * {@code percentiles.p001 … p999}). Two shapes are read: the current one ({@code metadata.version} 2,
 * {@code config.spec}, each benchmark's {@code config.strategy}, {@code metrics.request_totals}) and the 2025 one
 * (each benchmark's {@code args.strategy}, {@code worker.backend_model}, {@code request_totals}). Its
 * {@code requests} are samples, not every request, so a point keeps the tool's figures only.
 */
final class GuidellmReport {
    private GuidellmReport() {}

    /** GuideLLM's metric → our percentile column (same units: ms, seconds, tokens). */
    private static final Map<String, String> COLUMNS = new LinkedHashMap<>();
    static {
        COLUMNS.put("time_to_first_token_ms", PercentileRow.TTFT);
        COLUMNS.put("time_per_output_token_ms", PercentileRow.TPOT);
        COLUMNS.put("inter_token_latency_ms", PercentileRow.ITL);
        COLUMNS.put("request_latency", PercentileRow.LATENCY);
        COLUMNS.put("prompt_token_count", PercentileRow.INPUT_TOKENS);
        COLUMNS.put("output_token_count", PercentileRow.OUTPUT_TOKENS);
    }

    static boolean recognises(JsonNode root) {
        JsonNode first = root.path("benchmarks").path(0);
        return root.isObject() && first.path("type_").asText("").equals("generative_benchmark")
                && first.path("metrics").isObject();
    }

    static Foreign read(ForeignFile f, JsonNode root, long nowMillis) {
        JsonNode benchmarks = root.path("benchmarks");
        if (!benchmarks.isArray() || benchmarks.isEmpty()) throw f.error("/benchmarks", "missing, expected a list of benchmarks");
        List<ImportedRun.Point> points = new ArrayList<>();
        long started = Long.MAX_VALUE;
        for (int i = 0; i < benchmarks.size(); i++) {
            String at = "/benchmarks/" + i;
            JsonNode b = benchmarks.get(i);
            double start = f.number(root, at + "/start_time");
            started = Math.min(started, Math.round(start * 1e3));
            points.add(point(f, root, at, b, Math.round(start * 1e3)));
        }
        ObjectNode args = ForeignFile.MAPPER.createObjectNode();
        JsonNode spec = root.at("/config/spec");
        if (spec.isObject()) {
            args.set("spec", spec.deepCopy());
        } else {
            // the 2025 shape keeps its settings in each benchmark: the first one's stand for the run's
            JsonNode b0 = benchmarks.get(0);
            for (String k : List.of("args", "worker", "request_loader")) if (b0.has(k)) args.set(k, b0.get(k).deepCopy());
        }
        String model = root.at("/config/spec/backend/model").asText(
                benchmarks.get(0).at("/worker/backend_model").asText(benchmarks.get(0).at("/config/backend/model").asText(null)));
        if (model != null) args.put("model", model);
        String target = root.at("/config/spec/backend/target").asText(
                benchmarks.get(0).at("/worker/backend_target").asText(null));
        if (target != null) args.put("url", target);
        args.set("strategies", ForeignFile.MAPPER.valueToTree(points.stream().map(p -> p.info().label()).toList()));
        String version = root.at("/metadata/guidellm_version").asText(null);
        return new Foreign(ForeignFormat.GUIDELLM, version, Map.of(f.path.toString(), f.sha256), args,
                List.of("per-request rows (GuideLLM keeps samples only)", "phases", "cache figures", "server metrics"),
                points, started == Long.MAX_VALUE ? nowMillis : started);
    }

    private static ImportedRun.Point point(ForeignFile f, JsonNode root, String at, JsonNode b, long startedMillis) {
        String totalsAt = b.at("/metrics/request_totals").isObject() ? at + "/metrics/request_totals" : at + "/request_totals";
        long ok = (long) f.number(root, totalsAt + "/successful");
        long errored = (long) f.number(root, totalsAt + "/errored");
        long incomplete = (long) f.number(root, totalsAt + "/incomplete");
        JsonNode strategy = b.at("/config/strategy").isObject() ? b.at("/config/strategy") : b.at("/args/strategy");
        String type = strategy.path("type_").asText("unknown");
        int parallel = switch (type) {
            case "synchronous" -> 1;
            case "concurrent" -> strategy.path("streams").asInt(-1);
            default -> -1;
        };
        double rate = strategy.path("rate").isNumber() && strategy.path("rate").asDouble() > 0
                ? strategy.path("rate").asDouble() : -1;
        long number = ok + errored + incomplete;
        String label = parallel > 0 ? "parallel_" + parallel + "_number_" + number
                : rate > 0 ? "rate_" + rate + "_number_" + number : type + "_number_" + number;
        RunInfo info = new RunInfo(label, parallel, rate, (int) number);

        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put(Summary.TEST_DURATION, f.number(root, at + "/duration"));
        if (parallel > 0) figures.put(Summary.CONCURRENCY, (long) parallel);
        if (rate > 0) figures.put(Summary.REQUEST_RATE, rate);
        figures.put(Summary.TOTAL_REQUESTS, number);
        figures.put(Summary.SUCCESS_REQUESTS, ok);
        figures.put(Summary.FAILED_REQUESTS, errored + incomplete);
        figures.put(Summary.CANCELLED_REQUESTS, incomplete);
        String m = at + "/metrics/";
        figures.put(Summary.REQ_THROUGHPUT, f.optNumber(root, m + "requests_per_second/successful/mean"));
        figures.put(Summary.OUTPUT_THROUGHPUT, f.optNumber(root, m + "output_tokens_per_second/successful/mean"));
        figures.put(Summary.TOTAL_THROUGHPUT, f.optNumber(root, m + "tokens_per_second/successful/mean"));
        figures.put(Summary.AVG_LATENCY, f.optNumber(root, m + "request_latency/successful/mean"));
        figures.put(Summary.AVG_TTFT, f.optNumber(root, m + "time_to_first_token_ms/successful/mean"));
        figures.put(Summary.AVG_TPOT, f.optNumber(root, m + "time_per_output_token_ms/successful/mean"));
        figures.put(Summary.AVG_ITL, f.optNumber(root, m + "inter_token_latency_ms/successful/mean"));
        figures.put(Summary.AVG_INPUT_TOKENS, f.optNumber(root, m + "prompt_token_count/successful/mean"));
        figures.put(Summary.AVG_OUTPUT_TOKENS, f.optNumber(root, m + "output_token_count/successful/mean"));
        Double in = f.optNumber(root, m + "prompt_token_count/successful/total_sum");
        Double out = f.optNumber(root, m + "output_token_count/successful/total_sum");
        figures.put(Summary.TOTAL_INPUT_TOKENS, in == null ? null : in.longValue());
        figures.put(Summary.TOTAL_OUTPUT_TOKENS, out == null ? null : out.longValue());

        ForeignPoints.Rows rows = new ForeignPoints.Rows();
        COLUMNS.forEach((metric, column) -> {
            String base = m + metric + "/successful";
            rows.statistics(f, root, base + "/percentiles", column, 1);
            // the 2025 shape names the 50th percentile only as the median
            Double median = rows.has("50%", column) ? null : f.optNumber(root, base + "/median");
            if (median != null) rows.put("50%", column, median);
        });
        return ForeignPoints.figuresOnly(info, startedMillis, figures, rows.list());
    }
}
