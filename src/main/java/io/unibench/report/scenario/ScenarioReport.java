package io.unibench.report.scenario;

import io.unibench.metrics.LevelName;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Summary;
import io.unibench.report.PhasesTable;
import io.unibench.report.TextTable;
import io.unibench.metrics.CostMeter;
import io.unibench.metrics.TokenPrice;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The terminal report of {@code unibench run}: per provider × scenario the levels, the knee and the phases; then the comparisons. */
public final class ScenarioReport {
    private static final TextTable.Align L = TextTable.Align.LEFT;
    private static final TextTable.Align R = TextTable.Align.RIGHT;
    static final String BEST = " *";

    private ScenarioReport() {}

    public static String render(ScenarioResults results) {
        StringBuilder sb = new StringBuilder();
        ScenarioResults.Config c = results.config();
        sb.append("Scenario Run Report: ").append(c.name()).append(" (").append(c.file()).append(")\n");
        // open-loop levels have no ramp of workers: without rate_limit nothing paces their starts but the schedule
        String limit = c.rateLimitRampOnly() && c.requestRates() != null ? "no rate limit (open loop: the schedule)"
                : c.rateLimitRampOnly() && c.slaVariable() != null ? "no rate limit (SLA probes start as perf's do)"
                : "rate limit " + num(c.rateLimitPerSec(), 2) + " starts/s" + (c.rateLimitRampOnly()
                        ? " on each level's ramp (the starts that open its new connections; no rate_limit set: "
                        + "steady state not limited)" : " (every start)");
        sb.append(String.format(Locale.ROOT, "Levels %s, %s, connection pool %d%s%n%n",
                c.slaVariable() != null ? "chosen by sla_auto_tune (" + c.slaVariable() + ")"
                        : c.requestRates() != null ? "of request_rate " + c.requestRates() + " req/s"
                        : c.levels(), limit, c.connectionPool(),
                c.holdSeconds() != null ? ", each level held " + num(c.holdSeconds(), 2) + " s"
                        : ""));
        verdicts(sb, results);
        for (ScenarioResults.Series s : results.series()) {
            sb.append(s.provider().name()).append(" × ").append(s.scenario().name()).append(" (")
                    .append(s.scenario().type())
                    .append(s.scenario().stream() ? ", stream" : ", no stream")
                    .append(s.scenario().cacheBust() ? ", cache-bust" : "").append(")\n");
            sb.append(levels(s).render());
            limited(sb, s, c);
            sb.append("Knee: ").append(s.knee() == null ? "not reached within the levels run"
                    : "concurrency " + s.knee().concurrency() + " — " + s.knee().reason()).append('\n');
            List<RunResult> runs = s.levels().stream().map(ScenarioResults.Level::result).toList();
            if (PhasesTable.any(runs)) sb.append("Phases\n").append(PhasesTable.of(runs).render());
            errors(sb, s);
            costPerTask(sb, s);
            sb.append('\n');
        }
        for (String scenario : c.scenarios()) {
            List<ScenarioResults.Series> series = results.forScenario(scenario);
            // open-loop, trace and SLA levels are not compared here (each series' table has them)
            if (series.stream().noneMatch(x -> x.levels().stream().anyMatch(ScenarioResults.Level::closedLoop))) continue;
            Comparison.Table t = Comparison.of(scenario, series);
            sb.append("Provider Comparison: ").append(scenario).append(" (levels ").append(t.levels())
                    .append(" run by every provider; * = best at the most of them, figures = means over them, each "
                            + "level weighing the same; Peak tok/s = the highest level's)\n");
            sb.append(comparison(t).render());
            for (int i = 0; i < t.perLevel().size(); i++) {
                sb.append("At concurrency ").append(t.levels().get(i)).append(" (* best per column)\n")
                        .append(comparison(t.perLevel().get(i)).render());
            }
            String note = Comparison.estimatedCostNote(series);
            if (note != null) sb.append("Note: ").append(note).append('\n');
            sb.append('\n');
        }
        if (results.stopped()) sb.append("Interrupted: the report is partial.\n");
        return sb.toString();
    }

    /** The levels' verdicts heading the report: "Verdict [local/chat/parallel_4]: valid", one line per level. */
    private static void verdicts(StringBuilder sb, ScenarioResults results) {
        int before = sb.length();
        for (ScenarioResults.Series s : results.series()) {
            for (ScenarioResults.Level l : s.levels()) {
                if (l.result().verdict() == null) continue;
                sb.append("Verdict [").append(l.result().info().label()).append("]:")
                        .append(l.result().verdict().line().substring("Verdict:".length())).append('\n');
            }
        }
        if (sb.length() > before) sb.append('\n');
    }

    /** "Cost per completed task": every request's cost (failures included) per success and per finished conversation. */
    private static void costPerTask(StringBuilder sb, ScenarioResults.Series s) {
        TokenPrice price = s.provider().price();
        if (price == null) return;
        CostMeter.Totals t = s.tokens();
        Long conversations = s.overall().summary().multiTurn().completedTraces();
        sb.append(String.format(Locale.ROOT, "Cost per completed task%s: %s per successful request%s; cost %s with "
                        + "the %d unfinished requests, %s without%n", t.estimated() ? " (estimated)" : "",
                money(t.perSuccessfulRequest(price)), conversations == null ? "" : ", "
                        + money(t.perCompletedConversation(price, conversations)) + " per completed conversation",
                money(t.costIncludingFailures(price)), t.unfinished().requests(), money(t.cost(price))));
    }

    private static String money(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.6f", v);
    }

    static TextTable levels(ScenarioResults.Series s) {
        boolean goodput = s.levels().stream().anyMatch(l -> l.result().goodput() != null);
        // a series of request-rate, trace or SLA levels names them (rate_10 is not a concurrency)
        boolean named = s.levels().stream().anyMatch(l -> !l.closedLoop());
        List<String> header = new ArrayList<>(List.of(named ? "Level" : "Conc.", "Requests", "Success %", "RPS", "Gen tok/s", "TTFT p50",
                "p95", "p99 (ms)", "Latency p50", "p95", "p99 (ms)"));
        if (goodput) header.add(4, "Goodput"); // beside RPS
        TextTable.Align[] align = new TextTable.Align[header.size()];
        java.util.Arrays.fill(align, R);
        TextTable t = new TextTable(header, align);
        for (ScenarioResults.Level l : s.levels()) {
            Summary sum = l.result().summary();
            RunResult r = l.result();
            boolean knee = l.closedLoop() && s.knee() != null && s.knee().concurrency() == l.concurrency();
            String conc = (l.closedLoop() ? Integer.toString(l.concurrency()) : l.name()) + (knee ? " ←knee" : "")
                    + (l.starts().capped() ? " ←rate-limited" : "");
            List<String> cells = new ArrayList<>(List.of(conc, Long.toString(sum.requests().totalRequests()),
                    sum.requests().successRatePercent() == null ? "—" : num(sum.requests().successRatePercent(), 1),
                    num(sum.throughput().reqThroughput(), 2), num(sum.throughput().outputThroughput(), 1),
                    num(r.percentile("50%", PercentileRow.TTFT), 1), num(r.percentile("95%", PercentileRow.TTFT), 1),
                    num(r.percentile("99%", PercentileRow.TTFT), 1), ms(r.percentile("50%", PercentileRow.LATENCY)),
                    ms(r.percentile("95%", PercentileRow.LATENCY)), ms(r.percentile("99%", PercentileRow.LATENCY))));
            if (goodput) cells.add(4, r.goodput() == null ? "—" : num(r.goodput().requestsPerSecond(), 2));
            t.row(cells.toArray(String[]::new));
        }
        return t;
    }

    static TextTable comparison(Comparison.Table table) {
        List<String> headers = new ArrayList<>(List.of("Provider"));
        List<TextTable.Align> aligns = new ArrayList<>(List.of(L));
        for (Comparison.Column c : table.columns()) {
            headers.add(c.title());
            aligns.add(R);
        }
        TextTable t = new TextTable(headers, aligns.toArray(TextTable.Align[]::new));
        for (int i = 0; i < table.providers().size(); i++) {
            List<String> cells = new ArrayList<>(List.of(table.providers().get(i)));
            for (Comparison.Column c : table.columns()) {
                cells.add(num(c.values()[i], c.decimals()) + (c.best(i) && table.providers().size() > 1 ? BEST : ""));
            }
            t.row(cells.toArray(String[]::new));
        }
        return t;
    }

    /** One line per level whose steady-state starts waited on the rate limiter: its throughput is not the provider's. */
    private static void limited(StringBuilder sb, ScenarioResults.Series s, ScenarioResults.Config c) {
        for (ScenarioResults.Level l : s.levels()) {
            io.unibench.metrics.StartWaits w = l.starts();
            if (!w.capped()) continue;
            sb.append(String.format(Locale.ROOT, "Rate-limited: %s: %d of %d starts waited %s s in all on "
                            + "rate_limit (%s starts/s): the level's throughput is the limiter's, not the provider's%n",
                    LevelName.display(l.name()), w.steadyWaited(), w.starts(), num(w.steadyWaitSeconds(), 2),
                    num(c.rateLimitPerSec(), 2)));
        }
    }

    private static void errors(StringBuilder sb, ScenarioResults.Series s) {
        var errors = s.overall().errors();
        if (errors.isEmpty()) return;
        sb.append("Errors: ");
        List<String> parts = new ArrayList<>();
        var types = s.overall().errorTypes(); // the server's name for the error, beside our class
        errors.forEach((cls, n) -> parts.add(cls + (types.containsKey(cls) ? " [" + types.get(cls) + "]" : "") + " × " + n
                + (s.overall().sampleErrors().containsKey(cls) ? " (" + s.overall().sampleErrors().get(cls) + ")" : "")));
        sb.append(String.join("; ", parts)).append('\n');
    }

    private static String ms(Double seconds) {
        return seconds == null ? "—" : num(seconds * 1000, 1);
    }

    public static String num(Double v, int decimals) {
        if (v == null || !Double.isFinite(v) || v == -1.0) return "—";
        return BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
    }
}
