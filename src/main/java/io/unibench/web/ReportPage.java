package io.unibench.web;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.unibench.report.scenario.Comparison;
import io.unibench.report.scenario.ScenarioReport;
import io.unibench.report.scenario.ScenarioResults;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The self-contained HTML reports: one file that opens from disk with no network, uPlot's script and style and the
 * pages' own inlined. Its charts are the run page's (the same {@link ChartData} over the stored runs, the same
 * {@code app.js}): {@code GET /api/runs/{id}/report.html} is the run page itself, standalone; {@code unibench run
 * --report html} is the scenario's provider comparison and, per provider, its stored run's charts and tables.
 */
public final class ReportPage {
    private static final TemplateEngine TEMPLATES =
            TemplateEngine.createPrecompiled(null, ContentType.Html, ReportPage.class.getClassLoader(), "io.unibench.web.jte");

    private ReportPage() {}

    /** One provider's stored run in a scenario report; its chart ids start with {@code prefix}. */
    public record ProviderRun(String provider, StoredRun run, String prefix, String dataId, String chartJson,
                              List<Table> tables) {}

    /** A scenario's provider comparison: the averaged table, one per level, and the estimated-cost note or null. */
    public record ScenarioPart(String name, List<Table> tables, String note) {}

    public record ScenarioModel(String title, List<Map.Entry<String, String>> facts, List<ScenarioPart> scenarios,
                                List<ProviderRun> runs, String inlineCss, String inlineJs) {}

    /**
     * {@code scenario_report.html}: {@code runs} are the scenario's stored runs, one per provider, in the file's
     * order (a provider that stored nothing is left out).
     */
    public static String scenario(RunStore store, List<StoredRun> runs, ScenarioResults results) throws SQLException {
        ScenarioResults.Config c = results.config();
        List<Map.Entry<String, String>> facts = new ArrayList<>(List.of(Map.entry("Config", c.file()),
                Map.entry("Levels", String.join("; ", c.load())),
                Map.entry("Rate limit", ScenarioReport.num(c.rateLimitPerSec(), 2)
                        + (c.rateLimitRampOnly() ? " starts/s on each level's ramp only" : " starts/s")),
                Map.entry("Connection pool", Integer.toString(c.connectionPool()))));
        if (results.stopped()) facts.add(Map.entry("Interrupted", "yes: the report is partial"));
        List<ScenarioPart> scenarios = new ArrayList<>();
        for (String sc : c.scenarios()) {
            List<ScenarioResults.Series> series = results.forScenario(sc);
            // open-loop, trace and SLA levels are not compared (each provider's report has them), as in the terminal's
            if (series.stream().noneMatch(x -> x.levels().stream().anyMatch(ScenarioResults.Level::closedLoop))) continue;
            Comparison.Table t = Comparison.of(sc, series);
            List<Table> tables = new ArrayList<>();
            tables.add(comparison("Provider comparison: " + sc + " (levels " + t.levels() + " run by every "
                    + "provider; * = best at the most of them, figures = means over them, each level weighing the same)", t));
            for (int i = 0; i < t.perLevel().size(); i++) {
                tables.add(comparison("At concurrency " + t.levels().get(i) + " (* best per column)", t.perLevel().get(i)));
            }
            scenarios.add(new ScenarioPart(sc, tables, Comparison.estimatedCostNote(series)));
        }
        List<ProviderRun> providers = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            StoredRun run = runs.get(i);
            String provider = run.environment() == null ? run.row().name()
                    : run.environment().path("provider").asText(run.row().name());
            providers.add(new ProviderRun(provider, run, "p" + i + "-", "chart-data-" + i,
                    Html.scriptJson(ChartData.of(store, run)), RunViews.tables(run)));
        }
        StringOutput out = new StringOutput(1 << 16);
        TEMPLATES.render("report.jte", new ScenarioModel(c.name(), facts, scenarios, providers, inlineCss(),
                inlineJs()), out);
        return out.toString();
    }

    private static Table comparison(String title, Comparison.Table t) {
        List<String> header = new ArrayList<>(List.of("Provider"));
        t.columns().forEach(col -> header.add(col.title()));
        Table.Builder b = new Table.Builder(title, 1, header.toArray(String[]::new));
        for (int i = 0; i < t.providers().size(); i++) {
            List<String> row = new ArrayList<>(List.of(t.providers().get(i)));
            for (Comparison.Column col : t.columns()) {
                row.add(ScenarioReport.num(col.values()[i], col.decimals())
                        + (col.best(i) && t.providers().size() > 1 ? " *" : ""));
            }
            b.row(row.toArray(String[]::new));
        }
        return b.build();
    }

    /** uPlot's style and the pages' own, for a {@code <style>} element. */
    static String inlineCss() {
        return (resource("/META-INF/resources" + Pages.UPLOT_CSS) + resource("/io/unibench/web/static/app.css"))
                .replace("</", "<\\/");
    }

    /** uPlot and the pages' chart script, for a {@code <script>} element. */
    static String inlineJs() {
        return (resource("/META-INF/resources" + Pages.UPLOT_JS) + resource("/io/unibench/web/static/app.js"))
                .replace("</script", "<\\/script");
    }

    private static String resource(String path) {
        try (InputStream in = ReportPage.class.getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("missing resource " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
