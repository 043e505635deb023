package io.unibench.cli;

import io.unibench.report.TextTable;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

@Command(name = "show", mixinStandardHelpOptions = true,
        description = "A run's status, tags, environment, configuration and per-point figures.")
final class RunsShowCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    @Option(names = "--json", description = "JSON instead of text. Default: text.")
    boolean json;

    @Override
    int run(RunStore store) throws Exception {
        StoredRun r = store.run(store.resolveId(run));
        Map<String, Object> m = RunsCommand.rowMap(r.row());
        m.put("environment", r.environment());
        m.put("config", r.config());
        List<Map<String, Object>> points = new ArrayList<>();
        for (StoredPoint p : r.points()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("index", p.index());
            pm.put("label", p.label());
            pm.put("summary", p.summary());
            points.add(pm);
        }
        m.put("points", points);
        if (json) {
            out().println(RunsCommand.JSON.writeValueAsString(m));
            return 0;
        }
        PrintWriter o = out();
        RunRow row = r.row();
        o.println("Run:       " + row.runId() + (row.name() != null ? "  (" + row.name() + ")" : ""));
        o.println("Status:    " + row.status());
        o.println("Verdict:   " + (row.verdict() != null ? row.verdict() : "- (not judged: stored before verdicts, or merged)"));
        o.println("Started:   " + RunsCommand.time(row.startedAt()) + " UTC"
                + (row.endedAt() != null ? ", ended " + RunsCommand.time(row.endedAt()) + " UTC" : ""));
        o.println("Model:     " + row.model());
        o.println("Target:    " + row.url());
        o.println("Tags:      " + (row.tags().isEmpty() ? "-" : String.join(", ", row.tags())));
        o.println("Requests:  " + row.requestCount() + " stored, " + row.successCount() + " succeeded");
        o.println("Config key: " + row.configKey() + " (runs with the same key are repeats)");
        if (r.environment() != null && r.environment().has("source_tool")) {
            o.println("Imported:  from " + r.environment().path("source_tool").asText() + " ("
                    + r.environment().path("source_version").asText() + "); not measured: "
                    + r.environment().path("not_measured").asText());
        }
        o.println();
        o.println("Environment:");
        if (r.environment() != null) {
            r.environment().properties().forEach(e -> o.println("  " + e.getKey() + ": " + e.getValue()));
        }
        o.println();
        o.println("Configuration (secrets masked):");
        o.println(RunsCommand.JSON.writeValueAsString(r.config()));
        o.println();
        boolean goodput = r.points().stream().anyMatch(p -> p.summary() != null
                && p.summary().has(io.unibench.metrics.Goodput.GOODPUT));
        List<String> header = new ArrayList<>(List.of("Point", "Requests", "Success", "RPS", "Gen/s", "Avg Lat (s)",
                "Avg TTFT (ms)"));
        boolean ttfct = r.points().stream().anyMatch(p -> p.summary() != null
                && p.summary().hasNonNull(io.unibench.metrics.Summary.AVG_TTFCT));
        if (ttfct) header.add("Avg TTFCT (ms)");
        header.add("Verdict");
        if (goodput) header.add(4, "Goodput");
        TextTable.Align[] align = new TextTable.Align[header.size()];
        java.util.Arrays.fill(align, TextTable.Align.RIGHT);
        align[0] = TextTable.Align.LEFT;
        TextTable t = new TextTable(header, align);
        for (StoredPoint p : r.points()) {
            var s = p.summary();
            List<String> cells = new ArrayList<>();
            if (s == null) {
                cells.addAll(List.of(p.label(), "(running)"));
                while (cells.size() < header.size()) cells.add("");
            } else {
                cells.addAll(List.of(p.label(), cell(s, "Total Requests"),
                        s.hasNonNull("Success Rate (%)") ? cell(s, "Success Rate (%)") + "%" : "-",
                        cell(s, "Req Throughput (req/s)"), cell(s, "Output Throughput (tok/s)"),
                        cell(s, "Avg Latency (s)"), cell(s, "Avg TTFT (ms)")));
                if (ttfct) cells.add(s.hasNonNull(io.unibench.metrics.Summary.AVG_TTFCT)
                        ? s.path(io.unibench.metrics.Summary.AVG_TTFCT).asText() : "-");
                cells.add(s.hasNonNull(io.unibench.metrics.PointVerdict.KEY)
                        ? verdictCell(s) : "-");
                if (goodput) cells.add(4, s.has(io.unibench.metrics.Goodput.GOODPUT)
                        ? s.path(io.unibench.metrics.Goodput.GOODPUT).asText() : "-");
            }
            t.row(cells.toArray(String[]::new));
        }
        o.print(t.render());
        for (StoredPoint p : r.points()) { // the numbers behind each verdict that is not valid
            if (p.summary() != null && p.summary().hasNonNull(io.unibench.metrics.PointVerdict.REASONS_KEY)) {
                o.println(p.label() + ": " + p.summary().path(io.unibench.metrics.PointVerdict.REASONS_KEY).asText());
            }
        }
        o.flush();
        return 0;
    }

    /** A summary figure as stored; "-" when absent or null (an imported run's source did not measure it). */
    private static String cell(com.fasterxml.jackson.databind.JsonNode s, String key) {
        return s.hasNonNull(key) ? s.path(key).asText() : "-";
    }

    private static String verdictCell(com.fasterxml.jackson.databind.JsonNode s) {
        return s.path(io.unibench.metrics.PointVerdict.KEY).asText();
    }
}
