package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.unibench.BadInputException;
import io.unibench.report.RunComparisonReport;
import io.unibench.report.TerminalReport;
import io.unibench.report.TextTable;
import io.unibench.store.Owner;
import io.unibench.store.RunComparison;
import io.unibench.store.RunExport;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredReports;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code unibench runs}: the run history kept by {@code perf} (SQLite by default, PostgreSQL by URL). */
@Command(name = "runs", mixinStandardHelpOptions = true,
        description = {"The run history: every `unibench perf` run is stored (see --db; --no-db on perf skips it).",
                "RUN is a run id or a unique prefix of one, as `runs list` shows."},
        subcommands = {RunsCommand.ListRuns.class, RunsCommand.Show.class, RunsCommand.Report.class,
                RunsCommand.Compare.class, RunsCommand.Export.class, RunsCommand.Delete.class})
public final class RunsCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code --db}, shared by every subcommand. */
    static final class StoreOption {
        @Option(names = "--db", paramLabel = "URL", description = "Run history store: a SQLite file path, "
                + "jdbc:sqlite:PATH or jdbc:postgresql://HOST[:PORT]/DB. Default: UNIBENCH_DB, else "
                + "~/.unibench/unibench.db.")
        String db;

        /** Opens the store; runs abandoned by killed processes are marked interrupted first. */
        RunStore open(PrintWriter err) {
            StoreLocation location = StoreLocation.resolve(db, System.getenv());
            try {
                RunStore store = RunStore.open(location);
                for (String id : store.recoverAbandoned(Owner.current(), System.currentTimeMillis())) {
                    err.println("Run " + id + " was left running by a process that is gone; marked interrupted.");
                }
                return store;
            } catch (SQLException e) {
                throw new BadInputException("--db " + location.display() + ": cannot open the run history ("
                        + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
            }
        }
    }

    /** Base of the subcommands: the store, the streams, and SQL errors as one line. */
    abstract static class StoreCommand implements Callable<Integer> {
        @Mixin
        StoreOption storeOption;

        @Spec
        CommandSpec spec;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }

        @Override
        public Integer call() throws Exception {
            try (RunStore store = storeOption.open(err())) {
                return run(store);
            } catch (SQLException e) {
                throw new BadInputException("run history: " + StoreLocation.mask(String.valueOf(e.getMessage())));
            }
        }

        abstract int run(RunStore store) throws Exception;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Stored runs, newest first.")
    static final class ListRuns extends StoreCommand {
        @Option(names = "--model", description = "Model name contains this (case-insensitive). Default: any.")
        String model;

        @Option(names = "--url", description = "Target URL contains this (case-insensitive). Default: any.")
        String url;

        @Option(names = "--name", description = "Run name contains this (case-insensitive). Default: any.")
        String name;

        @Option(names = "--tag", arity = "1..*", description = "Runs carrying every tag given. Default: any.")
        List<String> tags = new ArrayList<>();

        @Option(names = "--since", paramLabel = "WHEN", description = "Started at or after: YYYY-MM-DD (UTC), an "
                + "ISO instant, or an age such as 7d, 12h, 30m. Default: any.")
        String since;

        @Option(names = "--until", paramLabel = "WHEN", description = "Started before (same forms). Default: any.")
        String until;

        @Option(names = "--status", description = "running, finished, failed or interrupted. Default: any.")
        String status;

        @Option(names = "--limit", defaultValue = "50", description = "At most this many. Default: ${DEFAULT-VALUE}.")
        int limit;

        @Option(names = "--json", description = "JSON instead of a table. Default: table.")
        boolean json;

        @Override
        int run(RunStore store) throws Exception {
            if (limit < 1) throw new BadInputException("--limit must be ≥ 1");
            if (status != null && !List.of(RunRow.RUNNING, RunRow.FINISHED, RunRow.FAILED, RunRow.INTERRUPTED)
                    .contains(status)) {
                throw new BadInputException("--status '" + status + "': running, finished, failed or interrupted");
            }
            long now = System.currentTimeMillis();
            RunFilter f = new RunFilter(model, url, name, tags, RunFilter.when("--since", since, now),
                    RunFilter.when("--until", until, now),
                    status, limit);
            List<RunRow> rows = store.list(f);
            if (json) {
                List<Map<String, Object>> list = new ArrayList<>();
                for (RunRow r : rows) list.add(rowMap(r));
                out().println(JSON.writeValueAsString(list));
                return 0;
            }
            if (rows.isEmpty()) {
                out().println("No stored runs match (store: " + store.location().display() + ").");
                return 0;
            }
            TextTable t = new TextTable(List.of("Run", "Started (UTC)", "Status", "Name", "Model", "Target",
                    "Requests", "OK", "Tags"), TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT,
                    TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.RIGHT,
                    TextTable.Align.RIGHT, TextTable.Align.LEFT);
            for (RunRow r : rows) {
                t.row(r.runId(), time(r.startedAt()), r.status(), nullToDash(r.name()), nullToDash(r.model()),
                        nullToDash(r.url()), Long.toString(r.requestCount()), Long.toString(r.successCount()),
                        String.join(",", r.tags()));
            }
            out().print(t.render());
            out().flush();
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "A run's status, tags, environment, configuration and per-point figures.")
    static final class Show extends StoreCommand {
        @Parameters(paramLabel = "RUN")
        String run;

        @Option(names = "--json", description = "JSON instead of text. Default: text.")
        boolean json;

        @Override
        int run(RunStore store) throws Exception {
            StoredRun r = store.run(store.resolveId(run));
            Map<String, Object> m = rowMap(r.row());
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
                out().println(JSON.writeValueAsString(m));
                return 0;
            }
            PrintWriter o = out();
            RunRow row = r.row();
            o.println("Run:       " + row.runId() + (row.name() != null ? "  (" + row.name() + ")" : ""));
            o.println("Status:    " + row.status());
            o.println("Started:   " + time(row.startedAt()) + " UTC"
                    + (row.endedAt() != null ? ", ended " + time(row.endedAt()) + " UTC" : ""));
            o.println("Model:     " + row.model());
            o.println("Target:    " + row.url());
            o.println("Tags:      " + (row.tags().isEmpty() ? "-" : String.join(", ", row.tags())));
            o.println("Requests:  " + row.requestCount() + " stored, " + row.successCount() + " succeeded");
            o.println("Config key: " + row.configKey() + " (runs with the same key are repeats)");
            o.println();
            o.println("Environment:");
            if (r.environment() != null) {
                r.environment().properties().forEach(e -> o.println("  " + e.getKey() + ": " + e.getValue()));
            }
            o.println();
            o.println("Configuration (secrets masked):");
            o.println(JSON.writeValueAsString(r.config()));
            o.println();
            TextTable t = new TextTable(List.of("Point", "Requests", "Success", "RPS", "Gen/s", "Avg Lat (s)",
                    "Avg TTFT (ms)"), TextTable.Align.LEFT, TextTable.Align.RIGHT, TextTable.Align.RIGHT,
                    TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT);
            for (StoredPoint p : r.points()) {
                var s = p.summary();
                if (s == null) {
                    t.row(p.label(), "(running)", "", "", "", "", "");
                    continue;
                }
                t.row(p.label(), s.path("Total Requests").asText(), s.path("Success Rate (%)").asText() + "%",
                        s.path("Req Throughput (req/s)").asText(), s.path("Output Throughput (tok/s)").asText(),
                        s.path("Avg Latency (s)").asText(), s.path("Avg TTFT (ms)").asText());
            }
            o.print(t.render());
            o.flush();
            return 0;
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true, description = "Re-prints the run's report tables, "
            + "recomputed from its stored requests (also for a run that was killed).")
    static final class Report extends StoreCommand {
        @Parameters(paramLabel = "RUN")
        String run;

        @Override
        int run(RunStore store) throws Exception {
            StoredRun r = store.run(store.resolveId(run));
            out().println(TerminalReport.render(StoredReports.results(store, r), StoredReports.basicInfo(r)));
            return 0;
        }
    }

    @Command(name = "compare", mixinStandardHelpOptions = true, description = "Two runs side by side: every metric "
            + "of every sweep point, Δ = B − A, better or worse, and whether Δ is inside the run-to-run spread of "
            + "repeated runs of the same configuration.")
    static final class Compare extends StoreCommand {
        @Parameters(index = "0", paramLabel = "RUN_A")
        String a;

        @Parameters(index = "1", paramLabel = "RUN_B")
        String b;

        @Option(names = "--json", description = "JSON rows instead of tables. Default: tables.")
        boolean json;

        @Override
        int run(RunStore store) throws Exception {
            StoredRun ra = store.run(store.resolveId(a));
            StoredRun rb = store.run(store.resolveId(b));
            RunComparison.Result result = RunComparison.compare(store, ra, rb);
            if (json) {
                out().println(JSON.writeValueAsString(result.toMap()));
            } else {
                out().print(RunComparisonReport.render(ra.row().label(), rb.row().label(), result.rows(),
                        result.unmatched(), result.repeatsA() + result.repeatsB()));
                out().flush();
            }
            return 0;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true, description = "A run's summaries and per-request rows "
            + "as JSON (one document) or CSV (summary.csv and requests.csv in --output DIR; without --output, "
            + "the requests table on stdout).")
    static final class Export extends StoreCommand {
        @Parameters(paramLabel = "RUN")
        String run;

        @Option(names = "--format", defaultValue = "json", description = "json or csv. Default: ${DEFAULT-VALUE}.")
        String format;

        @Option(names = {"-o", "--output"}, paramLabel = "PATH", description = "JSON: the file; CSV: a directory. "
                + "Default: stdout.")
        Path output;

        @Override
        int run(RunStore store) throws Exception {
            StoredRun r = store.run(store.resolveId(run));
            switch (format.toLowerCase(Locale.ROOT)) {
                case "json" -> {
                    if (output == null) {
                        OutputStream o = new java.io.FilterOutputStream(System.out) {
                            @Override
                            public void close() throws IOException {
                                flush(); // leave System.out open
                            }
                        };
                        out().flush();
                        RunExport.json(store, r, o);
                        System.out.println();
                    } else {
                        createParent(output);
                        try (OutputStream o = Files.newOutputStream(output)) {
                            RunExport.json(store, r, o);
                        }
                        err().println("Wrote " + output);
                    }
                }
                case "csv" -> {
                    if (output == null) {
                        RunExport.requestsCsv(store, r, out());
                    } else {
                        Files.createDirectories(output);
                        try (Writer w = writer(output.resolve("summary.csv"))) {
                            RunExport.summaryCsv(r, w);
                        }
                        try (Writer w = writer(output.resolve("requests.csv"))) {
                            RunExport.requestsCsv(store, r, w);
                        }
                        err().println("Wrote " + output.resolve("summary.csv") + " and " + output.resolve("requests.csv"));
                    }
                }
                default -> throw new BadInputException("--format '" + format + "': json or csv");
            }
            return 0;
        }

        private static Writer writer(Path file) throws IOException {
            return new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8));
        }

        private static void createParent(Path file) throws IOException {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes a run and its requests.")
    static final class Delete extends StoreCommand {
        @Parameters(paramLabel = "RUN")
        String run;

        @Override
        int run(RunStore store) throws Exception {
            String id = store.resolveId(run);
            StoredRun r = store.run(id);
            if (RunRow.RUNNING.equals(r.row().status())) {
                throw new BadInputException("run " + id + " is still running; stop it first");
            }
            store.delete(id);
            out().println("Deleted run " + id + " (" + r.row().requestCount() + " requests).");
            return 0;
        }
    }

    static Map<String, Object> rowMap(RunRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_id", r.runId());
        m.put("name", r.name());
        m.put("status", r.status());
        m.put("started_at", Instant.ofEpochMilli(r.startedAt()).toString());
        m.put("ended_at", r.endedAt() == null ? null : Instant.ofEpochMilli(r.endedAt()).toString());
        m.put("model", r.model());
        m.put("url", r.url());
        m.put("request_count", r.requestCount());
        m.put("success_count", r.successCount());
        m.put("tags", r.tags());
        m.put("config_key", r.configKey());
        return m;
    }

    private static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString().replace('T', ' ').replaceFirst("\\.\\d+Z$", "")
                .replace("Z", "");
    }

    private static String nullToDash(String s) {
        return s == null ? "-" : s;
    }
}
