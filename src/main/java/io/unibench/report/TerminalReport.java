package io.unibench.report;

import static io.unibench.report.DisplayNumbers.AVG_COUNT;
import static io.unibench.report.DisplayNumbers.COUNT;
import static io.unibench.report.DisplayNumbers.MILLIS;
import static io.unibench.report.DisplayNumbers.PERCENT;
import static io.unibench.report.DisplayNumbers.RATE;
import static io.unibench.report.DisplayNumbers.SECONDS;
import static io.unibench.report.DisplayNumbers.format;
import static io.unibench.report.DisplayNumbers.formatAvailable;

import io.unibench.metrics.ConfidenceIntervals;
import io.unibench.metrics.Interval;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.ServerVsClient;
import io.unibench.metrics.Summary;
import io.unibench.metrics.TraceSummary;
import io.unibench.metrics.TurnPositionRow;
import io.unibench.metrics.WorkloadThroughput;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end-of-run report printed to the terminal and saved as {@code performance_summary.txt}: plain text, no ANSI
 * codes, tables laid out like evalscope's final report.
 */
public final class TerminalReport {
    private static final TextTable.Align L = TextTable.Align.LEFT;
    private static final TextTable.Align R = TextTable.Align.RIGHT;
    private static final int SAMPLE_MESSAGE_MAX = 80;

    private TerminalReport() {}

    /** Under the Per-Request table: what the brackets are, and why some percentiles have none. */
    static final String INTERVAL_NOTE = "[low, high] = the percentile's 95% confidence interval (distribution-free, "
            + "order statistics); none where the requests are too few for one (a p50 needs "
            + ConfidenceIntervals.minimumSamples(0.5) + ", a p99 " + ConfidenceIntervals.minimumSamples(0.99) + ").";

    public static String render(List<RunResult> runs, Map<String, String> basicInfo) {
        StringBuilder sb = new StringBuilder();
        boolean inputOnly = InputOnlyReport.applies(runs);
        sb.append(inputOnly ? InputOnlyReport.TITLE : "Performance Test Summary Report").append("\n\n");
        sb.append(verdicts(runs));

        if (basicInfo != null && !basicInfo.isEmpty()) {
            TextTable info = new TextTable(null, L, L);
            basicInfo.forEach(info::row);
            section(sb, "Basic Information", info);
        }

        if (inputOnly) {
            section(sb, "Detailed Performance Metrics", InputOnlyReport.table(runs));
        } else {
            section(sb, "Performance Overview", overview(runs));
            section(sb, "Per-Request Metrics", perRequest(runs));
            sb.append(INTERVAL_NOTE).append("\n\n");
        }
        if (PhasesTable.any(runs)) {
            section(sb, "Phases", PhasesTable.of(runs));
            String notes = PhasesTable.notes(runs);
            if (!notes.isEmpty()) sb.append(notes).append('\n');
        }
        if (runs.stream().anyMatch(r -> r.serverVsClient() != null)) {
            section(sb, "Server vs Client (the server's own timings)", serverVsClient(runs));
        }
        if (runs.stream().anyMatch(RunResult::multiTurn)) {
            section(sb, "Per-Trace Metrics", perTrace(runs));
            section(sb, "Per-Turn-Position Metrics", byTurnPosition(runs));
        }
        if (runs.stream().anyMatch(r -> r.workload() != null && r.workload().nSamples() > 0)) {
            section(sb, "Workload Throughput", workload(runs));
        }
        if (runs.stream().anyMatch(r -> !r.errors().isEmpty())) {
            section(sb, "Errors", errors(runs));
        }
        for (RunResult r : runs) {
            Summary s = r.summary();
            if (s.cache().cacheHitEstimated()) {
                sb.append("Note: ").append(r.info().label()).append(": Cache Hit is ")
                        .append(Summary.SOURCE_ESTIMATE.equals(s.cache().cacheHitSource()) ? "the client's estimate"
                                : "partly the client's estimate (" + s.cache().cacheHitSource() + ")")
                        .append(" (the server reported no cached_tokens): history tokens / input tokens, the upper"
                                + " bound a prefix cache could serve, not what it served.\n");
            }
            if (s.requests().cancelledRequests() > 0) {
                sb.append("Note: ").append(r.info().label()).append(": ").append(s.requests().cancelledRequests())
                        .append(" requests in flight were cancelled by the stop: not failures; Success is of the ")
                        .append(s.requests().totalRequests() - s.requests().cancelledRequests())
                        .append(" that ended (succeeded / (succeeded + failed)).\n");
            }
            if (s.tokens().tokenCountsNotFromServer()) {
                sb.append("Note: ").append(r.info().label()).append(": token counts are ")
                        .append(describeSource(s.tokens().tokenCountSource()))
                        .append(" (the server returned no usage); token and tok/s figures, TPOT, ITL per token and"
                                + " tokens per chunk are not the server's (benchmark_summary.json lists them under \""
                                + Summary.FROM_CLIENT_TOKEN_COUNTS + "\").\n");
            } else if (s.tokens().tokenCountSource() != null
                    && s.tokens().tokenCountSource().contains(Summary.SOURCE_SERVER_TIMINGS)) {
                sb.append("Note: ").append(r.info().label()).append(": token counts are ")
                        .append(Summary.SOURCE_SERVER_TIMINGS.equals(s.tokens().tokenCountSource())
                                ? "the server's timings" : s.tokens().tokenCountSource())
                        .append(" (no usage was sent; llama.cpp's timings: prompt_n + cache_n, predicted_n): exact.\n");
            }
            if (r.serverVsClient() != null) {
                sb.append("Note: ").append(r.info().label()).append(": Server vs Client: ")
                        .append(r.serverVsClient().requests()).append(" of ").append(s.requests().successRequests())
                        .append(" successful requests carried the server's timings; Server Prefill is its prompt_ms")
                        .append(r.serverVsClient().row(ServerVsClient.SERVER_DECODE) == null ? ".\n"
                                : ", Server Decode per Token its predicted_ms / (predicted_n - 1); the differences are"
                                + " per request (network, queueing before the server's slot, the client).\n");
                if (r.serverVsClient().row(ServerVsClient.CLIENT_LATENCY_NO_STREAM) != null) {
                    sb.append("Note: ").append(r.info().label()).append(": a reply that was not streamed has no"
                            + " TTFT: its Client Latency holds the server's prefill and its whole decode (Server Decode"
                            + " (whole reply), predicted_ms); Latency - Server Prefill - Decode is what the server's"
                            + " clock does not see.\n");
                }
                if (r.serverVsClient().estimatedLeftOut() > 0) {
                    sb.append("Note: ").append(r.info().label()).append(": ")
                            .append(r.serverVsClient().estimatedLeftOut()).append(" requests are left out of Client"
                                    + " TPOT and TPOT - Server Decode per Token: their token counts were the client's,"
                                    + " not the server's.\n");
                }
            }
            if (r.goodput() != null) {
                sb.append("Note: ").append(r.info().label()).append(": Goodput = requests per second that met every ")
                        .append("objective (").append(r.goodput().slo().describe()).append(", ms): ")
                        .append(r.goodput().goodRequests()).append(" of ").append(s.requests().successRequests())
                        .append(" successful requests.\n");
            }
            if (s.stats().percentileMethod() != null && !Summary.PERCENTILES_EXACT.equals(s.stats().percentileMethod())) {
                sb.append("Note: ").append(r.info().label()).append(": percentiles ").append(s.stats().percentileMethod())
                        .append(".\n");
            }
        }
        return sb.toString();
    }

    /**
     * The points' verdicts, heading the report: "Verdict: valid", or one line per point of a sweep ("Verdict [c4]:
     * load-not-delivered (…the numbers…)"); empty when no point was judged.
     */
    static String verdicts(List<RunResult> runs) {
        StringBuilder sb = new StringBuilder();
        for (RunResult r : runs) {
            if (r.verdict() == null) continue;
            String line = r.verdict().line();
            sb.append(runs.size() == 1 ? line : "Verdict [" + r.info().label() + "]:" + line.substring("Verdict:".length()))
                    .append('\n');
        }
        return sb.isEmpty() ? "" : sb.append('\n').toString();
    }

    private static void section(StringBuilder sb, String title, TextTable table) {
        sb.append(title).append('\n').append(table.render()).append('\n');
    }

    private static TextTable overview(List<RunResult> runs) {
        boolean traces = runs.stream().anyMatch(RunResult::multiTurn);
        boolean goodput = runs.stream().anyMatch(r -> r.goodput() != null);
        List<String> header = new java.util.ArrayList<>(List.of("Conc.", "Rate", "Num", "RPS", "Gen/s", "Success"));
        if (goodput) header.add(3 + 1, "Goodput"); // beside RPS
        if (traces) header.add("Traces");
        TextTable.Align[] align = new TextTable.Align[header.size()];
        java.util.Arrays.fill(align, R);
        TextTable t = new TextTable(header, align);
        for (RunResult r : runs) {
            Summary s = r.summary();
            List<String> cells = new java.util.ArrayList<>(List.of(conc(r.info()), rate(r.info()),
                    Long.toString(s.requests().totalRequests()),
                    formatAvailable(s.throughput().reqThroughput(), RATE),
                    formatAvailable(s.throughput().outputThroughput(), RATE),
                    s.requests().successRatePercent() == null
                            ? DisplayNumbers.MISSING
                            : String.format(Locale.ROOT, "%.1f%%", s.requests().successRatePercent())));
            if (goodput) cells.add(4, r.goodput() == null ? "-" : formatAvailable(r.goodput().requestsPerSecond(), RATE));
            // completed conversations (last turn succeeded)
            if (traces) cells.add(s.multiTurn().completedTraces() == null ? "-" : Long.toString(s.multiTurn().completedTraces()));
            t.row(cells.toArray(String[]::new));
        }
        return t;
    }

    private static TextTable perTrace(List<RunResult> runs) {
        TextTable t = new TextTable(List.of("Conc.", "Rate", "Metric", "mean", "p50", "p90", "p99", "max"),
                R, R, L, R, R, R, R, R);
        for (RunResult r : runs) {
            TraceSummary traces = r.traces();
            if (traces == null) continue;
            boolean first = true;
            for (TraceSummary.Row row : traces.rows()) {
                int precision = row.metric().endsWith("(s)") ? SECONDS : row.metric().endsWith("(%)") ? PERCENT : RATE;
                t.row(first ? conc(r.info()) : "", first ? rate(r.info()) : "", row.metric(),
                        format(row.mean(), precision), format(row.p50(), precision), format(row.p90(), precision),
                        format(row.p99(), precision), format(row.max(), precision));
                first = false;
            }
            t.row("", "", "Traces/s", format(traces.tracesPerSecond(), RATE), "", "", "", "");
            t.row("", "", "Traces", Long.toString(traces.nTraces()), "", "", "", "");
            t.row("", "", "  completed", Long.toString(traces.completedTraces()), "", "", "", "");
            t.row("", "", "  abandoned", Long.toString(traces.abandonedTraces()), "", "", "", "");
            t.separator();
        }
        return t;
    }

    private static TextTable byTurnPosition(List<RunResult> runs) {
        TextTable t = new TextTable(List.of("Conc.", "Rate", "Turn", "Requests", "Success", "Input Tokens",
                "TTFT avg (ms)", "p50", "p90", "p99", "Cache Hit (%)"), R, R, R, R, R, R, R, R, R, R, R);
        for (RunResult r : runs) {
            if (!r.multiTurn()) continue;
            boolean first = true;
            for (TurnPositionRow p : r.turnPositions()) {
                t.row(first ? conc(r.info()) : "", first ? rate(r.info()) : "", Integer.toString(p.turn()),
                        Long.toString(p.requests()), Long.toString(p.succeeded()), format(p.avgInputTokens(), AVG_COUNT),
                        format(p.avgTtftMs(), MILLIS), format(p.p50TtftMs(), MILLIS), format(p.p90TtftMs(), MILLIS),
                        format(p.p99TtftMs(), MILLIS), format(p.cacheHitPercent(), PERCENT));
                first = false;
            }
            t.separator();
        }
        return t;
    }

    /** "Total Cached Tokens (source: prompt_tokens_details.cached_tokens)": the figure and the reply's member. */
    public static String cachedTokensLabel(String source) {
        return source == null ? Summary.TOTAL_CACHED_TOKENS
                : Summary.TOTAL_CACHED_TOKENS + " (source: " + source + ")";
    }

    private static TextTable perRequest(List<RunResult> runs) {
        TextTable t = new TextTable(List.of("Conc.", "Rate", "Metric", "avg", "p50", "p99", "max"), R, R, L, R, R, R, R);
        for (RunResult r : runs) {
            Summary s = r.summary();
            Rows rows = new Rows(t, r);
            rows.add("Latency (s)", available(s.latency().avgLatencySeconds()), PercentileRow.LATENCY, SECONDS, SECONDS);
            rows.add("TTFT (ms)", s.latency().avgTtftMs(), PercentileRow.TTFT, MILLIS, MILLIS);
            // counts the client estimated from characters are labelled on the rows themselves, not only in a note,
            // and so is TPOT, which divides by them
            String est = s.tokens().tokenCountsNotFromServer() && !Summary.SOURCE_TOKENIZER.equals(s.tokens().tokenCountSource())
                    ? " (estimated)" : "";
            rows.add(est.isEmpty() ? "TPOT (ms)" : "TPOT (ms, estimated)", s.latency().avgTpotMs(), PercentileRow.TPOT, MILLIS,
                    MILLIS);
            if (s.reasoning().reasoned()) { // a reasoning model: TTFT is to its first reasoning token, TTFCT to the answer
                rows.add("TTFCT (ms, to answer)", s.reasoning().avgTtfctMs(), PercentileRow.TTFCT, MILLIS, MILLIS);
                rows.add(est.isEmpty() ? "Answer TPOT (ms)" : "Answer TPOT (ms, estimated)", s.reasoning().avgAnswerTpotMs(),
                        PercentileRow.ANSWER_TPOT, MILLIS, MILLIS);
            }
            rows.add("ITL (ms)", s.latency().avgItlMs(), PercentileRow.ITL, MILLIS, MILLIS);
            rows.add("Input Tokens" + est, available(s.tokens().avgInputTokens()), PercentileRow.INPUT_TOKENS,
                    AVG_COUNT, COUNT);
            rows.add("Output Tokens" + est, available(s.tokens().avgOutputTokens()), PercentileRow.OUTPUT_TOKENS,
                    AVG_COUNT, COUNT);
            if (s.reasoning().totalReasoningTokens() != null && s.reasoning().reasoned()) {
                rows.scalar("Reasoning Tokens (total)", format(s.reasoning().totalReasoningTokens().doubleValue(), COUNT));
            }
            if (s.multiTurn().avgTurnsPerRequest() != null) {
                rows.scalar("Turns/Req", format(s.multiTurn().avgTurnsPerRequest(), 2));
            }
            if (s.cache().kvCacheHitRatePercent() != null) {
                rows.scalar(s.cache().cacheHitEstimated() ? "Cache Hit (%, estimated)" : "Cache Hit (%)",
                        format(s.cache().kvCacheHitRatePercent(), PERCENT));
            }
            if (s.cache().totalCachedTokens() != null) {
                rows.scalar(cachedTokensLabel(s.cache().cachedTokensSource()),
                        format(s.cache().totalCachedTokens().doubleValue(), COUNT));
            }
            if (r.multiTurn()) {
                rows.scalar("First-Turn TTFT (ms)", format(s.multiTurn().avgFirstTurnTtftMs(), MILLIS));
                rows.scalar("Subsequent-Turn TTFT (ms)", format(s.multiTurn().avgSubsequentTurnTtftMs(), MILLIS));
            }
            if (s.queueing().scheduled()) {
                rows.add("Queue Delay (ms)", s.queueing().avgQueueDelayMs(), PercentileRow.QUEUE_DELAY, MILLIS, MILLIS);
                rows.add("Latency incl. Queue (s)", s.queueing().avgLatencyInclQueueSeconds(),
                        PercentileRow.LATENCY_INCL_QUEUE, SECONDS, SECONDS);
                rows.add("TTFT incl. Queue (ms)", s.queueing().avgTtftInclQueueMs(), PercentileRow.TTFT_INCL_QUEUE,
                        MILLIS, MILLIS);
            }
            t.separator();
        }
        return t;
    }

    /** The columns whose percentiles the terminal shows with their interval. */
    private static final java.util.Set<String> TIMED = java.util.Set.of(PercentileRow.LATENCY, PercentileRow.TTFT,
            PercentileRow.TPOT, PercentileRow.ITL, PercentileRow.TTFCT, PercentileRow.ANSWER_TPOT);

    /** Adds one run's rows, showing Conc. and Rate on the first row only. */
    private static final class Rows {
        private final TextTable table;
        private final RunResult run;
        private boolean first = true;

        Rows(TextTable table, RunResult run) {
            this.table = table;
            this.run = run;
        }

        void add(String metric, Double avg, String column, int avgPrecision, int precision) {
            emit(metric, format(avg, avgPrecision),
                    withInterval("50%", column, precision),
                    withInterval("99%", column, precision),
                    format(run.percentile("max", column), precision));
        }

        /** {@code 412 [388, 440]}: the percentile and its 95% interval, for the timing columns; the value alone else. */
        private String withInterval(String label, String column, int precision) {
            String value = format(run.percentile(label, column), precision);
            if (!TIMED.contains(column)) return value;
            Interval ci = run.percentileInterval(label, column);
            return ci == null ? value : value + " [" + format(ci.low(), precision) + ", " + format(ci.high(), precision)
                    + "]";
        }

        void scalar(String metric, String value) {
            emit(metric, value, "-", "-", "-");
        }

        private void emit(String metric, String avg, String p50, String p99, String max) {
            String c = first ? conc(run.info()) : "";
            String r = first ? rate(run.info()) : "";
            first = false;
            table.row(c, r, metric, avg, p50, p99, max);
        }
    }

    private static TextTable workload(List<RunResult> runs) {
        TextTable t = new TextTable(
                List.of("Conc.", "Rate", "Metric (tok/s)", "Overall", "Last 30s", "Steady (drop 20%)"), R, R, L, R, R, R);
        for (RunResult r : runs) {
            WorkloadThroughput w = r.workload();
            if (w == null || w.nSamples() == 0) continue;
            boolean first = true;
            for (WorkloadThroughput.Row row : w.rows()) {
                t.row(first ? conc(r.info()) : "", first ? rate(r.info()) : "", row.metric(),
                        format(row.overall(), RATE), format(row.lastWindow(), RATE), format(row.steadyState(), RATE));
                first = false;
            }
            t.separator();
        }
        return t;
    }

    /**
     * Per run: the server's prefill and decode times beside the client's TTFT and TPOT, and the per-request
     * differences (what the server's clock does not see: network, queueing, the client).
     */
    private static TextTable serverVsClient(List<RunResult> runs) {
        TextTable t = new TextTable(List.of("Conc.", "Rate", "Metric (ms)", "n", "mean", "p50", "p90", "p99"),
                R, R, L, R, R, R, R, R);
        for (RunResult r : runs) {
            ServerVsClient c = r.serverVsClient();
            if (c == null) continue;
            boolean first = true;
            for (ServerVsClient.Row row : c.rows()) {
                t.row(first ? conc(r.info()) : "", first ? rate(r.info()) : "", row.metric(), Long.toString(row.n()),
                        format(row.mean(), MILLIS), format(row.p50(), MILLIS), format(row.p90(), MILLIS),
                        format(row.p99(), MILLIS));
                first = false;
            }
            t.separator();
        }
        return t;
    }

    private static TextTable errors(List<RunResult> runs) {
        boolean types = runs.stream().anyMatch(r -> !r.errorTypes().isEmpty());
        List<String> header = new java.util.ArrayList<>(List.of("Conc.", "Rate", "Error class"));
        if (types) header.add("Server error type");
        header.addAll(List.of("Count", "Sample message"));
        TextTable t = types ? new TextTable(header, R, R, L, L, R, L) : new TextTable(header, R, R, L, R, L);
        for (RunResult r : runs) {
            if (r.errors().isEmpty()) continue;
            boolean first = true;
            for (Map.Entry<String, Long> e : r.errors().entrySet()) {
                List<String> cells = new java.util.ArrayList<>(List.of(first ? conc(r.info()) : "",
                        first ? rate(r.info()) : "", e.getKey()));
                if (types) cells.add(r.errorTypes().getOrDefault(e.getKey(), "-"));
                cells.add(Long.toString(e.getValue()));
                cells.add(shorten(r.sampleErrors().get(e.getKey())));
                t.row(cells.toArray(String[]::new));
                first = false;
            }
            t.separator();
        }
        return t;
    }

    private static String conc(RunInfo info) {
        return info.concurrency() < 0 ? "INF" : Integer.toString(info.concurrency());
    }

    private static String rate(RunInfo info) {
        return info.rate() < 0 ? "-" : format(info.rate(), RATE);
    }

    /** evalscope's −1 ("not available") as null, so it shows as missing. */
    private static Double available(double v) {
        return v == -1.0 ? null : v;
    }

    private static String shorten(String message) {
        if (message == null) return "";
        String oneLine = message.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= SAMPLE_MESSAGE_MAX ? oneLine : oneLine.substring(0, SAMPLE_MESSAGE_MAX - 1) + "…";
    }

    private static String describeSource(String source) {
        return switch (source) {
            case Summary.SOURCE_TOKENIZER -> "counted by the client tokenizer";
            case Summary.SOURCE_SERVER_TIMINGS -> "the server's timings (prompt_n + cache_n, predicted_n)";
            case Summary.SOURCE_ESTIMATE -> "estimated from characters";
            default -> source;
        };
    }
}
