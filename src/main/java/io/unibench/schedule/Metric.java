package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.ConfidenceIntervals;
import io.unibench.metrics.Interval;
import io.unibench.metrics.Summary;
import io.unibench.store.StoredPoint;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A figure of one stored sweep point that a rule watches, by its short name: {@code {ttft,latency,tpot,itl}_{p50,
 * p90,p95,p99,mean}_{ms,s}}, {@code success_rate}, {@code error_rate} (optionally of one error class), {@code output_tps},
 * {@code rps}, {@code cache_hit_rate}, {@code cost_per_1k}. Read from the point's stored summary, percentiles and
 * errors (the evalscope-keyed documents), so every evaluation of a round gives the same value. The timing figures
 * (percentiles and means) also have the 95 % confidence interval stored beside them ({@link #interval}).
 *
 * @param errorClass for {@code error_rate}: only this class ({@code http_429}, {@code timeout_read}, …); else null
 */
public record Metric(String name, String errorClass) {
    public static final List<String> SIMPLE = List.of("success_rate", "error_rate", "output_tps", "rps",
            "cache_hit_rate", "cost_per_1k");
    /** A timing figure: a percentile ({@code p95}) or the mean ({@code mean}) of TTFT, latency, TPOT or ITL. */
    private static final Pattern PERCENTILE = Pattern.compile("(ttft|latency|tpot|itl)_(p50|p90|p95|p99|mean)_(ms|s)");

    /** Every short name, percentiles first ({@code ttft_p50_ms}, {@code ttft_p50_s}, …): the UI's rule editor offers them. */
    public static List<String> names() {
        List<String> out = new java.util.ArrayList<>();
        for (String kind : List.of("ttft", "latency", "tpot", "itl")) {
            for (String p : List.of("p50", "p90", "p95", "p99", "mean")) {
                for (String unit : List.of("ms", "s")) out.add(kind + "_" + p + "_" + unit);
            }
        }
        out.addAll(SIMPLE);
        return out;
    }

    /** Whether {@code name} is a short name this class reads. */
    public static boolean known(String name) {
        return SIMPLE.contains(name) || PERCENTILE.matcher(name).matches();
    }

    /** The unit shown beside values: ms, s, %, tok/s, req/s, or the price's currency per 1,000 requests. */
    public String unit() {
        Matcher m = PERCENTILE.matcher(name);
        if (m.matches()) return m.group(3);
        return switch (name) {
            case "output_tps" -> "tok/s";
            case "rps" -> "req/s";
            case "cost_per_1k" -> "per 1k requests";
            default -> "%";
        };
    }

    /**
     * What the metric is, as a message or page names it before its value: {@code TTFT p95}, {@code Latency p99},
     * {@code Success rate}; in Chinese ({@code zh}) {@code 延迟 p99}, {@code 成功率} (TTFT, TPOT and ITL keep their names). An error class follows in
     * brackets.
     */
    public String display(String language) {
        boolean zh = "zh".equals(language);
        Matcher m = PERCENTILE.matcher(name);
        String out;
        if (m.matches()) {
            String kind = switch (m.group(1)) {
                case "ttft" -> "TTFT";
                case "tpot" -> "TPOT";
                case "itl" -> "ITL";
                default -> zh ? "延迟" : "Latency";
            };
            out = kind + " " + (m.group(2).equals("mean") ? (zh ? "均值" : "mean") : m.group(2));
        } else {
            out = switch (name) {
                case "success_rate" -> zh ? "成功率" : "Success rate";
                case "error_rate" -> zh ? "错误率" : "Error rate";
                case "output_tps" -> zh ? "输出吞吐" : "Output throughput";
                case "rps" -> zh ? "请求吞吐" : "Request throughput";
                case "cache_hit_rate" -> zh ? "缓存命中率" : "Cache hit rate";
                case "cost_per_1k" -> zh ? "每千次请求成本" : "Cost";
                default -> name;
            };
        }
        return errorClass == null ? out : out + " [" + errorClass + "]";
    }

    /** The unit in a language: {@code cost_per_1k}'s is words ({@code per 1k requests}); the others are symbols. */
    public static String unit(String unit, String language) {
        return "zh".equals(language) && "per 1k requests".equals(unit) ? "/千次请求" : unit;
    }

    /** The metric of a short name with an optional error class ({@code error_rate[http_429]}), or null. */
    public static Metric ofLabel(String label) {
        if (label == null) return null;
        int b = label.indexOf('[');
        String name = b < 0 ? label : label.substring(0, b);
        String cls = b < 0 || !label.endsWith("]") ? null : label.substring(b + 1, label.length() - 1);
        return known(name) ? new Metric(name, cls) : null;
    }

    /** The name with its error class: {@code error_rate[http_429]}. */
    public String label() {
        return errorClass == null ? name : name + "[" + errorClass + "]";
    }

    /** The value of this metric at {@code point}, or null when the point does not have it (no summary, no price, …). */
    public Double of(StoredPoint point, JsonNode price) {
        JsonNode s = point.summary();
        if (s == null) return null;
        Matcher m = PERCENTILE.matcher(name);
        if (m.matches() && m.group(2).equals("mean")) return converted(number(s, meanKey(m.group(1))), m.group(1), m.group(3));
        if (m.matches()) return percentile(point.percentiles(), m.group(1), m.group(2).substring(1) + "%", m.group(3));
        // the success rate's denominator: cancelled requests (a stopped run) are neither
        double total = s.path("Success Requests").asDouble(0) + s.path("Failed Requests").asDouble(0);
        return switch (name) {
            case "success_rate" -> number(s, "Success Rate (%)");
            case "error_rate" -> total <= 0 ? null : 100.0 * failed(point, s) / total;
            case "output_tps" -> positive(number(s, "Output Throughput (tok/s)"));
            case "rps" -> positive(number(s, "Req Throughput (req/s)"));
            case "cache_hit_rate" -> number(s, "KV Cache Hit Rate (%)");
            case "cost_per_1k" -> costPer1k(s, price);
            default -> throw new IllegalStateException("unknown metric " + name);
        };
    }

    private double failed(StoredPoint point, JsonNode s) {
        if (errorClass == null) return s.path("Failed Requests").asDouble(0);
        JsonNode errors = point.errors();
        return errors == null ? 0 : errors.path("counts").path(errorClass).asDouble(0);
    }

    /**
     * The 95 % confidence interval ({@link ConfidenceIntervals}) stored beside this metric's value at {@code point},
     * in the metric's unit: a percentile's order-statistic interval from {@code benchmark_percentile.json}
     * ({@code "TTFT (ms) 95% CI"}), a mean's t-interval from the summary ({@code "Avg TTFT (ms) 95% CI"}). Null for
     * the figures that have none (rates, throughputs, cost), and where the point's requests were too few for one
     * (a p99 needs {@code ConfidenceIntervals.minimumSamples(0.99)}) or it was stored before intervals were.
     */
    public Interval interval(StoredPoint point) {
        Matcher m = PERCENTILE.matcher(name);
        if (!m.matches() || point.summary() == null) return null;
        JsonNode ci;
        if (m.group(2).equals("mean")) {
            ci = point.summary().get(meanKey(m.group(1)) + ConfidenceIntervals.KEY_SUFFIX);
        } else {
            JsonNode row = row(point.percentiles(), m.group(2).substring(1) + "%");
            ci = row == null ? null : row.get(column(m.group(1)) + ConfidenceIntervals.KEY_SUFFIX);
        }
        if (ci == null || !ci.isArray() || ci.size() != 2 || !ci.get(0).isNumber() || !ci.get(1).isNumber()) return null;
        Double low = converted(ci.get(0).asDouble(), m.group(1), m.group(3));
        Double high = converted(ci.get(1).asDouble(), m.group(1), m.group(3));
        return new Interval(Math.min(low, high), Math.max(low, high));
    }

    /** Whether the metric is a timing figure, whose value has an interval when its point had the samples for one. */
    public boolean hasInterval() {
        return PERCENTILE.matcher(name).matches();
    }

    /** The column of {@code benchmark_percentile.json}: TTFT/TPOT/ITL in ms, latency in s. */
    private static Double percentile(JsonNode rows, String kind, String label, String unit) {
        JsonNode row = row(rows, label);
        if (row == null) return null;
        JsonNode v = row.get(column(kind));
        if (v == null || !v.isNumber()) return null;
        return converted(v.asDouble(), kind, unit);
    }

    private static JsonNode row(JsonNode rows, String label) {
        if (rows == null) return null;
        for (JsonNode row : rows) if (label.equals(row.path("Percentiles").asText())) return row;
        return null;
    }

    private static String column(String kind) {
        return switch (kind) {
            case "ttft" -> "TTFT (ms)";
            case "tpot" -> "TPOT (ms)";
            case "itl" -> "ITL (ms)";
            default -> "Latency (s)";
        };
    }

    /** The summary's average of a kind: TTFT/TPOT/ITL in ms, latency in s. */
    private static String meanKey(String kind) {
        return switch (kind) {
            case "ttft" -> Summary.AVG_TTFT;
            case "tpot" -> Summary.AVG_TPOT;
            case "itl" -> Summary.AVG_ITL;
            default -> Summary.AVG_LATENCY;
        };
    }

    /** A stored figure (latency in s, the others in ms) in the metric's unit. */
    private static Double converted(Double x, String kind, String unit) {
        if (x == null) return null;
        boolean storedInSeconds = kind.equals("latency");
        if (storedInSeconds && unit.equals("ms")) return x * 1000;
        if (!storedInSeconds && unit.equals("s")) return x / 1000;
        return x;
    }

    /** Priced as {@code unibench run} prices: uncached input, cached input and output tokens of the successes. */
    private static Double costPer1k(JsonNode s, JsonNode price) {
        if (price == null || !price.has("input") || !price.has("output")) return null;
        double ok = s.path("Success Requests").asDouble(0);
        if (ok <= 0) return null;
        double input = s.path("Total Input Tokens").asDouble(0);
        double cached = s.path("Total Cached Tokens").asDouble(0);
        double output = s.path("Total Output Tokens").asDouble(0);
        double in = price.get("input").asDouble();
        double cost = ((input - cached) * in + cached * price.path("cached_input").asDouble(in)
                + output * price.get("output").asDouble()) / 1e6;
        return cost / ok * 1000;
    }

    private static Double number(JsonNode s, String key) {
        JsonNode v = s.get(key);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    /** Throughputs are −1 in a summary when they cannot be computed (no duration): no data, not a value. */
    private static Double positive(Double v) {
        return v == null || v < 0 ? null : v;
    }

    @Override
    public String toString() {
        return label().toLowerCase(Locale.ROOT);
    }
}
