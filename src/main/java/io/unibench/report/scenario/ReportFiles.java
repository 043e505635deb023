package io.unibench.report.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.unibench.OutputFailedException;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.PhaseSummary;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Summary;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --report json|csv|html}: {@code scenario_report.json} (everything of the terminal report, numbers
 * unrounded) and {@code scenario_report.csv} (one row per provider × scenario × level); {@code scenario_report.html}
 * is rendered by {@code web.ReportPage} and written here.
 */
public final class ReportFiles {
    public static final String JSON = "scenario_report.json";
    public static final String CSV = "scenario_report.csv";
    public static final String HTML = "scenario_report.html";

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String[] CSV_COLUMNS = {"provider", "scenario", "concurrency", "requests", "success",
            "success_rate_percent", "rps", "output_tok_s", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms",
            "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "input_tokens", "cached_input_tokens",
            "output_tokens", "cost", "knee", "rate_limited", "level", "offered_rate"};

    private ReportFiles() {}

    /** The extra report files of {@code unibench run --report} (lower case: the flag's values are these names). */
    public enum Format { json, csv, html }

    /**
     * Writes the requested formats into {@code dir}; returns the files written. {@code html} is the rendered
     * {@code scenario_report.html} (the web package draws it, with the platform's charts), null without
     * {@link Format#html}.
     */
    public static List<Path> write(Path dir, ScenarioResults results, List<Format> formats, String html) {
        List<Path> out = new ArrayList<>();
        for (Format f : formats) {
            Path file = switch (f) {
                case json -> dir.resolve(JSON);
                case csv -> dir.resolve(CSV);
                case html -> dir.resolve(HTML);
            };
            String text = switch (f) {
                case json -> jsonText(results);
                case csv -> csv(results);
                case html -> html;
            };
            OutputFailedException.writeWhole(file, text.getBytes(StandardCharsets.UTF_8));
            out.add(file);
        }
        return out;
    }

    private static String jsonText(ScenarioResults results) {
        try {
            return MAPPER.writeValueAsString(json(results));
        } catch (IOException e) {
            throw new IllegalStateException("maps, lists, numbers and strings always serialise", e);
        }
    }

    static Map<String, Object> json(ScenarioResults results) {
        Map<String, Object> root = new LinkedHashMap<>();
        ScenarioResults.Config c = results.config();
        root.put("name", c.name());
        root.put("config_file", c.file());
        root.put("levels", c.levels());
        root.put("load", c.load()); // what the levels ran: rates, a search, traces
        root.put("rate_limit_per_sec", c.rateLimitPerSec());
        root.put("rate_limit_ramp_only", c.rateLimitRampOnly());
        root.put("connection_pool", c.connectionPool());
        root.put("interrupted", results.stopped());
        List<Object> series = new ArrayList<>();
        for (ScenarioResults.Series s : results.series()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("provider", s.provider().name());
            m.put("model", s.provider().model());
            m.put("scenario", s.scenario().name());
            m.put("type", s.scenario().type());
            m.put("knee", s.knee() == null ? null : Map.of("concurrency", s.knee().concurrency(), "reason", s.knee().reason()));
            List<Object> levels = new ArrayList<>();
            for (ScenarioResults.Level l : s.levels()) {
                Map<String, Object> lv = new LinkedHashMap<>();
                lv.put("concurrency", l.concurrency());
                lv.put("level", l.name()); // rate_10, trace, sla_parallel_4_run_0: a concurrency of -1 names none
                double rate = l.result().info().rate();
                if (rate > 0) lv.put("offered_rate", rate);
                lv.put("summary", l.result().summary().toMap());
                lv.put("percentiles", percentiles(l.result()));
                lv.put("phases_ms", phases(l.result().phases()));
                lv.put("errors", l.result().errors());
                lv.put("tokens", l.tokens());
                lv.put("rate_limiter", rateLimiter(l.starts()));
                lv.put("cost", finite(l.tokens().cost(s.provider().price())));
                levels.add(lv);
            }
            m.put("levels", levels);
            m.put("tokens", s.tokens());
            m.put("cost", finite(s.tokens().cost(s.provider().price())));
            m.put("cost_per_1000_requests", finite(s.tokens().per1000Requests(s.provider().price())));
            m.put("cost_per_million_output_tokens", finite(s.tokens().perMillionOutput(s.provider().price())));
            m.put("cost_estimated", s.tokens().estimated()); // some token counts were the client's (no usage)
            io.unibench.metrics.TokenPrice price = s.provider().price();
            m.put("cost_including_failures", finite(s.tokens().costIncludingFailures(price)));
            m.put("cost_per_successful_request", finite(s.tokens().perSuccessfulRequest(price)));
            m.put("cost_per_completed_conversation", finite(s.tokens().perCompletedConversation(price,
                    s.overall().summary().multiTurn().completedTraces())));
            series.add(m);
        }
        root.put("series", series);
        List<Object> comparisons = new ArrayList<>();
        for (String sc : c.scenarios()) {
            List<ScenarioResults.Series> ss = results.forScenario(sc);
            if (ss.isEmpty()) continue;
            Comparison.Table t = Comparison.of(sc, ss);
            Map<String, Object> cmp = new LinkedHashMap<>();
            cmp.put("scenario", sc);
            cmp.put("levels", t.levels());
            cmp.put("rows", comparisonRows(t));
            List<Object> perLevel = new ArrayList<>();
            for (int i = 0; i < t.perLevel().size(); i++) {
                perLevel.add(Map.of("concurrency", t.levels().get(i), "rows", comparisonRows(t.perLevel().get(i))));
            }
            cmp.put("per_level", perLevel);
            comparisons.add(cmp);
        }
        root.put("comparisons", comparisons);
        return root;
    }

    /** Per provider: each column's figure, the columns it is best in and, overall, the levels it won per column. */
    private static List<Object> comparisonRows(Comparison.Table t) {
        List<Object> rows = new ArrayList<>();
        for (int i = 0; i < t.providers().size(); i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("provider", t.providers().get(i));
            List<String> best = new ArrayList<>();
            Map<String, Integer> won = new LinkedHashMap<>();
            for (Comparison.Column col : t.columns()) {
                row.put(col.title(), finite(col.values()[i]));
                if (col.best(i)) best.add(col.title());
                if (col.wins() != null) won.put(col.title(), col.wins()[i]);
            }
            row.put("best", best);
            if (!won.isEmpty()) row.put("levels_won", won);
            rows.add(row);
        }
        return rows;
    }

    private static Map<String, Object> rateLimiter(io.unibench.metrics.StartWaits w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("starts", w.starts());
        m.put("ramp_starts_waited", w.rampWaited());
        m.put("ramp_wait_s", w.rampWaitSeconds());
        m.put("steady_starts_waited", w.steadyWaited());
        m.put("steady_wait_s", w.steadyWaitSeconds());
        m.put("capped", w.capped());
        return m;
    }

    private static Map<String, Object> percentiles(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String column : List.of(PercentileRow.TTFT, PercentileRow.LATENCY, PercentileRow.TPOT, PercentileRow.ITL)) {
            Map<String, Object> p = new LinkedHashMap<>();
            for (String label : List.of("50%", "90%", "95%", "99%")) p.put(label, r.percentile(label, column));
            m.put(column, p);
        }
        return m;
    }

    private static Map<String, Object> phases(PhaseSummary p) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (PhaseSummary.Row row : p.rows()) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("n", row.n());
            v.put("avg", row.avg());
            v.put("p50", row.p50());
            v.put("p95", row.p95());
            v.put("p99", row.p99());
            m.put(row.phase().name().toLowerCase(Locale.ROOT), v);
        }
        m.put("new_connections", p.newConnections());
        m.put("reused_connections", p.reusedConnections());
        m.put("retried_stale_connections", p.retriedStale());
        return m;
    }

    static String csv(ScenarioResults results) {
        StringBuilder sb = new StringBuilder(String.join(",", CSV_COLUMNS)).append('\n');
        for (ScenarioResults.Series s : results.series()) {
            for (ScenarioResults.Level l : s.levels()) {
                Summary sum = l.result().summary();
                RunResult r = l.result();
                List<String> cells = List.of(csvText(s.provider().name()), csvText(s.scenario().name()),
                        Integer.toString(l.concurrency()), Long.toString(sum.requests().totalRequests()),
                        Long.toString(sum.requests().successRequests()), n(sum.requests().successRatePercent()),
                        n(sum.throughput().reqThroughput()),
                        n(sum.throughput().outputThroughput()), n(r.percentile("50%", PercentileRow.TTFT)),
                        n(r.percentile("95%", PercentileRow.TTFT)), n(r.percentile("99%", PercentileRow.TTFT)),
                        n(msOf(r.percentile("50%", PercentileRow.LATENCY))),
                        n(msOf(r.percentile("95%", PercentileRow.LATENCY))),
                        n(msOf(r.percentile("99%", PercentileRow.LATENCY))),
                        Long.toString(l.tokens().uncachedInput() + l.tokens().cachedInput()),
                        Long.toString(l.tokens().cachedInput()), Long.toString(l.tokens().output()),
                        n(finite(l.tokens().cost(s.provider().price()))),
                        Boolean.toString(l.closedLoop() && s.knee() != null && s.knee().concurrency() == l.concurrency()),
                        Boolean.toString(l.starts().capped()), csvText(l.name()),
                        r.info().rate() > 0 ? n(r.info().rate()) : "");
                sb.append(String.join(",", cells)).append('\n');
            }
        }
        return sb.toString();
    }

    private static Double msOf(Double seconds) {
        return seconds == null ? null : seconds * 1000;
    }

    private static String n(Double v) {
        return v == null || !Double.isFinite(v) || v == -1.0 ? "" : Double.toString(v);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static String csvText(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
