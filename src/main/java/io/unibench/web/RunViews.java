package io.unibench.web;

import static io.unibench.report.DisplayNumbers.AVG_COUNT;
import static io.unibench.report.DisplayNumbers.COUNT;
import static io.unibench.report.DisplayNumbers.MILLIS;
import static io.unibench.report.DisplayNumbers.PERCENT;
import static io.unibench.report.DisplayNumbers.RATE;
import static io.unibench.report.DisplayNumbers.SECONDS;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.engine.ConnectionTest;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.PhaseSummary;
import io.unibench.metrics.Summary;
import io.unibench.report.DisplayNumbers;
import io.unibench.report.ServerMetricsReport;
import io.unibench.store.RunRow;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the pages and the API show of stored runs, read from what the store kept at each point's end (the report's
 * own summaries, percentile rows and tables), never recomputed from the requests.
 */
final class RunViews {
    static final String OUTPUT_THROUGHPUT = "Output Throughput (tok/s)";

    private RunViews() {}

    /**
     * A run's figures in a list: success over all its points, the other three of its last point (a sweep's last
     * point is its heaviest load).
     */
    record Headline(Double successPercent, Double ttftP95Ms, Double latencyP95Seconds, Double outputTokensPerSecond) {
        static Headline of(RunRow row, StoredPoint last) {
            Double success = row.requestCount() == 0 ? null : 100.0 * row.successCount() / row.requestCount();
            if (last == null) return new Headline(success, null, null, null);
            return new Headline(success, percentile(last, "95%", PercentileRow.TTFT),
                    percentile(last, "95%", PercentileRow.LATENCY), number(last.summary(), OUTPUT_THROUGHPUT));
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("success_percent", successPercent);
            m.put("ttft_p95_ms", ttftP95Ms);
            m.put("latency_p95_s", latencyP95Seconds);
            m.put("output_tok_s", outputTokensPerSecond);
            return m;
        }
    }

    /** A run as listed by {@code GET /api/runs}. */
    static Map<String, Object> listEntry(RunRow r, Headline h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.runId());
        m.put("name", r.name());
        m.put("status", r.status());
        if (r.statusReason() != null) m.put("status_reason", r.statusReason());
        m.put("created", Instant.ofEpochMilli(r.startedAt()).toString());
        m.put("ended", r.endedAt() == null ? null : Instant.ofEpochMilli(r.endedAt()).toString());
        m.put("model", r.model());
        m.put("base_url", r.url());
        m.put("tags", r.tags());
        m.put("request_count", r.requestCount());
        m.put("success_count", r.successCount());
        m.put("config_key", r.configKey());
        m.put("headline", h.toMap());
        return m;
    }

    /** {@code GET /api/runs/{id}}: the row, configuration (masked when stored), environment and every point. */
    static Map<String, Object> detail(StoredRun run, Headline h) {
        Map<String, Object> m = listEntry(run.row(), h);
        m.put("config", run.config());
        m.put("environment", run.environment());
        List<Map<String, Object>> points = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("index", p.index());
            pm.put("label", p.label());
            pm.put("concurrency", p.concurrency());
            pm.put("rate", p.rate());
            pm.put("number", p.number());
            pm.put("started_at", Instant.ofEpochMilli(p.startedAt()).toString());
            pm.put("summary", p.summary());
            pm.put("percentiles", p.percentiles());
            pm.put("workload", p.workload());
            pm.put("errors", p.errors());
            pm.put("traces", p.details().traces());
            pm.put("turn_positions", p.details().turnPositions());
            pm.put("phases", p.details().phases());
            pm.put("timeline", p.details().timeline());
            points.add(pm);
        }
        m.put("points", points);
        return m;
    }

    /** What the page says of a figure an imported run's source did not measure (stored absent, never zero). */
    static final String NOT_MEASURED_BY_SOURCE = "not measured by the tool it was imported from";

    /** An imported run ({@code runs import}, the import form): its configuration names the tool it came from. */
    static boolean imported(StoredRun run) {
        return run.config() != null && run.config().hasNonNull("imported_from");
    }

    /** The terminal report's tables of a stored run, in its order; a table without rows is left out. */
    static List<Table> tables(StoredRun run) {
        List<StoredPoint> done = run.points().stream().filter(p -> p.summary() != null).toList();
        Table.Builder overview = new Table.Builder("Performance Overview", 1, "Point", "Conc.", "Rate", "Num", "RPS",
                "Gen/s", "Success", Table.VERDICT);
        Table.Builder perRequest = new Table.Builder("Per-Request Metrics", 2, "Point", "Metric", "avg", "p50", "p95",
                "p99", "max");
        Table.Builder phases = new Table.Builder("Phases", 2, "Point", "Phase (ms)", "n", "avg", "p50", "p95", "p99");
        Table.Builder traces = new Table.Builder("Per-Trace Metrics", 2, "Point", "Metric", "mean", "p50", "p90",
                "p99", "max");
        Table.Builder turns = new Table.Builder("Per-Turn-Position Metrics", 1, "Point", "Turn", "Requests", "Success",
                "Input Tokens", "TTFT avg (ms)", "p50", "p90", "p99", "Cache Hit (%)");
        Table.Builder workload = new Table.Builder("Workload Throughput", 2, "Point", "Metric (tok/s)", "Overall",
                "Last 30s", "Steady (drop 20%)");
        Table.Builder errors = new Table.Builder("Errors", 2, "Point", "Error class", "Count", "Sample message");
        Table.Builder server = new Table.Builder("Server", 1,
                ServerMetricsReport.COLUMNS.toArray(String[]::new));
        for (StoredPoint p : done) {
            JsonNode s = p.summary();
            overview.row(p.label(), p.concurrency() < 0 ? "INF" : Integer.toString(p.concurrency()),
                    p.rate() < 0 ? "-" : fmt(p.rate(), RATE), fmt(number(s, "Total Requests"), COUNT),
                    avail(number(s, "Req Throughput (req/s)"), RATE), avail(number(s, OUTPUT_THROUGHPUT), RATE),
                    s.hasNonNull("Success Rate (%)") ? fmt(number(s, "Success Rate (%)"), PERCENT) + "%" : "—",
                    // the point's own verdict (a badge); a point stored before verdicts existed has none
                    s.path(io.unibench.metrics.PointVerdict.KEY).asText("—"));
            String label = p.label();
            for (String[] metric : new String[][] {{"Latency (s)", "Avg Latency (s)", PercentileRow.LATENCY, "s"},
                    {"TTFT (ms)", "Avg TTFT (ms)", PercentileRow.TTFT, "ms"},
                    {"TTFCT (ms)", Summary.AVG_TTFCT, PercentileRow.TTFCT, "ms"}, // reasoning runs only
                    {"TPOT (ms)", "Avg TPOT (ms)", PercentileRow.TPOT, "ms"},
                    {"Answer TPOT (ms)", Summary.AVG_ANSWER_TPOT, PercentileRow.ANSWER_TPOT, "ms"},
                    {"ITL (ms)", "Avg ITL (ms)", PercentileRow.ITL, "ms"},
                    {"Input Tokens", "Avg Input Tokens", PercentileRow.INPUT_TOKENS, "n"},
                    {"Output Tokens", "Avg Output Tokens", PercentileRow.OUTPUT_TOKENS, "n"}}) {
                int precision = switch (metric[3]) {
                    case "s" -> SECONDS;
                    case "ms" -> MILLIS;
                    default -> COUNT;
                };
                Double avg = number(s, metric[1]);
                if (avg == null && percentile(p, "50%", metric[2]) == null) continue;
                boolean timed = !metric[3].equals("n"); // timings show their 95 % interval, as the terminal does
                perRequest.row(label, metric[0], avail(avg, timed ? precision : AVG_COUNT),
                        withInterval(p, "50%", metric[2], precision, timed),
                        withInterval(p, "95%", metric[2], precision, timed),
                        withInterval(p, "99%", metric[2], precision, timed),
                        fmt(percentile(p, "max", metric[2]), precision));
                label = "";
            }
            Double cached = number(s, Summary.TOTAL_CACHED_TOKENS);
            if (cached != null) {
                String source = s.path(Summary.CACHED_TOKENS_SOURCE).textValue();
                perRequest.row(label, "Cached tokens" + (source == null ? "" : " (source: " + source + ")"),
                        fmt(cached, COUNT), "", "", "", "");
                label = "";
            }
            StoredPoint.Details d = p.details();
            if (d.phases() != null) {
                label = p.label();
                for (JsonNode r : d.phases().path("rows")) {
                    phases.row(label, r.path("phase").asText(), fmt(number(r, "n"), COUNT), fmt(number(r, "avg_ms"), 3),
                            fmt(number(r, "p50_ms"), 3), fmt(number(r, "p95_ms"), 3), fmt(number(r, "p99_ms"), 3));
                    label = "";
                }
                JsonNode c = d.phases();
                phases.row("", "connections: " + PhaseSummary.connectionsLine(c.path("new_connections").asLong(),
                        c.path("reused_connections").asLong(), c.path("retried_stale_connections").asLong(),
                        number(c, "stale_wasted_avg_ms"), c.path("stale_wasted_n").asLong()), "", "", "", "", "");
            }
            if (d.traces() != null) {
                label = p.label();
                for (JsonNode r : d.traces().path("rows")) {
                    String name = r.path("metric").asText();
                    int precision = name.endsWith("(s)") ? SECONDS : name.endsWith("(%)") ? PERCENT : RATE;
                    traces.row(label, name, fmt(number(r, "mean"), precision), fmt(number(r, "p50"), precision),
                            fmt(number(r, "p90"), precision), fmt(number(r, "p99"), precision),
                            fmt(number(r, "max"), precision));
                    label = "";
                }
                traces.row("", "Traces/s", fmt(number(d.traces(), "traces_per_second"), RATE), "", "", "", "");
                traces.row("", "Traces", d.traces().path("n_traces").asText(), "", "", "", "");
            }
            if (d.turnPositions() != null) {
                label = p.label();
                for (JsonNode r : d.turnPositions().path("rows")) {
                    turns.row(label, r.path("turn").asText(), r.path("requests").asText(), r.path("succeeded").asText(),
                            fmt(number(r, "avg_input_tokens"), AVG_COUNT), fmt(number(r, "avg_ttft_ms"), MILLIS),
                            fmt(number(r, "p50_ttft_ms"), MILLIS), fmt(number(r, "p90_ttft_ms"), MILLIS),
                            fmt(number(r, "p99_ttft_ms"), MILLIS), fmt(number(r, "cache_hit_percent"), PERCENT));
                    label = "";
                }
            }
            if (p.workload() != null) {
                label = p.label();
                for (JsonNode r : p.workload().path("rows")) {
                    // a figure the source did not measure is stored null: "—", and the row says why
                    String metric = r.path("overall").isNull() ? r.path("metric").asText() + " (" + (imported(run)
                            ? NOT_MEASURED_BY_SOURCE : "not measured") + ")" : r.path("metric").asText();
                    workload.row(label, metric, fmt(number(r, "overall"), RATE),
                            fmt(number(r, "last_window"), RATE), fmt(number(r, "steady_state"), RATE));
                    label = "";
                }
            }
            if (p.errors() != null) {
                label = p.label();
                JsonNode samples = p.errors().path("samples");
                for (var e : p.errors().path("counts").properties()) {
                    errors.row(label, e.getKey(), e.getValue().asText(), samples.path(e.getKey()).asText(""));
                    label = "";
                }
            }
            List<String> serverRow = ServerMetricsReport.cells(p.label(), s);
            if (serverRow != null) server.row(serverRow.toArray(String[]::new));
        }
        List<Table> out = new ArrayList<>();
        for (Table.Builder b : List.of(overview, perRequest, phases, traces, turns, workload, errors, server)) {
            if (!b.isEmpty()) out.add(b.build());
        }
        return out;
    }

    /**
     * The finished run page's headline (what its live page showed while it ran): success over the whole run, the other
     * figures of its last measured point (a sweep's heaviest load; named when the run has several); empty when no
     * point was measured.
     */
    static Pages.Headline headline(StoredRun run) {
        List<StoredPoint> done = run.points().stream().filter(p -> p.summary() != null).toList();
        if (done.isEmpty()) return null;
        StoredPoint last = done.getLast();
        JsonNode s = last.summary();
        RunRow row = run.row();
        Double success = row.requestCount() > 0 ? Double.valueOf(100.0 * row.successCount() / row.requestCount())
                : number(s, Summary.SUCCESS_RATE);
        Double cache = number(s, Summary.KV_CACHE_HIT_RATE);
        boolean imported = imported(run);
        List<Pages.Tile> tiles = List.of(
                new Pages.Tile("Success", success == null ? "—" : fmt(success, 1) + "%",
                        done.size() > 1 ? "all points" : ""),
                new Pages.Tile("Req/s", fmt(number(s, Summary.REQ_THROUGHPUT), RATE), ""),
                new Pages.Tile("Output tok/s", fmt(number(s, OUTPUT_THROUGHPUT), RATE), ""),
                new Pages.Tile("TTFT p50 (ms)", fmt(percentile(last, "50%", PercentileRow.TTFT), MILLIS), ""),
                new Pages.Tile("TTFT p95 (ms)", fmt(percentile(last, "95%", PercentileRow.TTFT), MILLIS), ""),
                new Pages.Tile("Latency p50 (s)", fmt(percentile(last, "50%", PercentileRow.LATENCY), SECONDS), ""),
                new Pages.Tile("Latency p95 (s)", fmt(percentile(last, "95%", PercentileRow.LATENCY), SECONDS), ""),
                new Pages.Tile("Cache hit", cache == null ? "—" : fmt(cache, PERCENT) + "%",
                        cache == null ? imported ? NOT_MEASURED_BY_SOURCE
                                : "the target reported no cached tokens" : ""));
        return new Pages.Headline(done.size() > 1 ? last.label() : null, tiles);
    }

    /**
     * Why a run ended without its report, and what to do, in the page's words (never a command-line flag): for a
     * failed, cancelled or interrupted run; null for any other.
     */
    static Pages.Failure failure(RunRow row) {
        String status = row.status();
        if (!status.equals(RunRow.FAILED) && !status.equals(RunRow.CANCELLED) && !status.equals(RunRow.INTERRUPTED)) {
            return null;
        }
        String reason = row.statusReason() == null ? "" : ConnectionTest.forPage(row.statusReason());
        String r = reason.toLowerCase(java.util.Locale.ROOT);
        List<String> advice = new ArrayList<>();
        if (status.equals(RunRow.CANCELLED)) {
            advice.add("It was cancelled: what it measured before is below. Create it again from New run.");
        } else if (status.equals(RunRow.INTERRUPTED)) {
            advice.add("The process running it stopped (a restart or a crash): the points it finished are kept. "
                    + "Create it again from New run to measure the rest.");
        } else if (r.contains("connection test")) {
            advice.add("The target did not answer the one-token connection test sent before the first point. Check "
                    + "that it is running and reachable from the service, and that the base URL (…/v1) and the model "
                    + "name are right.");
            if (r.contains("http 401") || r.contains("http 403")) {
                advice.add("The target refused the key: the variable named in api_key_env must hold a valid key in "
                        + "the service's environment.");
            }
            if (r.contains("http 404")) advice.add("HTTP 404: the base URL's path or the model name is wrong.");
            if (r.contains("tls")) {
                advice.add("The target's certificate is not trusted: set ca_cert (or insecure) in the provider's tls.");
            }
            advice.add("Test connection on the New run page tries a document's target without creating a run.");
        } else if (r.contains("outofmemoryerror")) {
            advice.add("The run needed more memory than the service has: lower its concurrency or requests per "
                    + "level, or give the service more heap.");
        } else {
            advice.add("The service's log has the details. Correct the document and create the run again from New "
                    + "run.");
        }
        String title = switch (status) {
            case RunRow.CANCELLED -> "This run was cancelled";
            case RunRow.INTERRUPTED -> "This run was interrupted";
            default -> "This run failed";
        };
        return new Pages.Failure(title, reason.isEmpty() ? "no reason was stored" : reason, advice);
    }

    /** The environment as label/value pairs (nested values as JSON text). */
    static List<Map.Entry<String, String>> environment(StoredRun run) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        if (run.environment() == null) return out;
        run.environment().properties().forEach(e -> out.add(Map.entry(e.getKey(),
                e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString())));
        return out;
    }

    /**
     * {@code 412.3 [388.1, 440.2]}: a stored percentile with its 95 % confidence interval
     * ({@code "<column> 95% CI"} of {@code benchmark_percentile.json}), the value alone where it has none.
     */
    static String withInterval(StoredPoint p, String label, String column, int precision, boolean timed) {
        String value = fmt(percentile(p, label, column), precision);
        if (!timed || p.percentiles() == null) return value;
        for (JsonNode row : p.percentiles()) {
            if (!label.equals(row.path(PercentileRow.PERCENTILES).asText())) continue;
            JsonNode ci = row.get(column + io.unibench.metrics.ConfidenceIntervals.KEY_SUFFIX);
            if (ci == null || !ci.isArray() || ci.size() != 2 || !ci.get(0).isNumber() || !ci.get(1).isNumber()) break;
            return value + " [" + fmt(ci.get(0).asDouble(), precision) + ", " + fmt(ci.get(1).asDouble(), precision) + "]";
        }
        return value;
    }

    static Double percentile(StoredPoint p, String label, String column) {
        if (p.percentiles() == null) return null;
        for (JsonNode row : p.percentiles()) {
            if (label.equals(row.path(PercentileRow.PERCENTILES).asText())) return number(row, column);
        }
        return null;
    }

    static Double number(JsonNode node, String key) {
        JsonNode v = node == null ? null : node.get(key);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    static String fmt(Double v, int precision) {
        return DisplayNumbers.format(v, precision);
    }

    private static String avail(Double v, int precision) {
        return DisplayNumbers.formatAvailable(v, precision);
    }
}
