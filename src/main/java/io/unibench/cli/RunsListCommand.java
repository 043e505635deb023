package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.report.TextTable;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

@Command(name = "list", mixinStandardHelpOptions = true, description = "Stored runs, newest first.")
final class RunsListCommand extends RunsStoreCommand {
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

    /** A stored run's status, as {@code RunRow} spells it (lower case: the flag's values are these names). */
    enum Status { running, finished, failed, interrupted }

    @Option(names = "--status", description = "${COMPLETION-CANDIDATES}. Default: any.")
    Status status;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many. Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--json", description = "JSON instead of a table. Default: table.")
    boolean json;

    @Override
    int run(RunStore store) throws Exception {
        if (limit < 1) throw new BadInputException("--limit must be ≥ 1");
        long now = System.currentTimeMillis();
        RunFilter f = new RunFilter(model, url, name, tags, RunFilter.when("--since", since, now),
                RunFilter.when("--until", until, now),
                status == null ? null : status.name(), limit);
        List<RunRow> rows = store.list(f);
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (RunRow r : rows) list.add(RunsCommand.rowMap(r));
            out().println(RunsCommand.JSON.writeValueAsString(list));
            return 0;
        }
        if (rows.isEmpty()) {
            out().println("No stored runs match (store: " + store.location().display() + ").");
            return 0;
        }
        TextTable t = new TextTable(List.of("Run", "Started (UTC)", "Status", "Verdict", "Name", "Model", "Target",
                "Requests", "OK", "Tags"), TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT,
                TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT,
                TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.LEFT);
        for (RunRow r : rows) {
            t.row(r.runId(), RunsCommand.time(r.startedAt()), r.status(), RunsCommand.nullToDash(r.verdict()),
                    RunsCommand.nullToDash(r.name()),
                    RunsCommand.nullToDash(r.model()),
                    RunsCommand.nullToDash(r.url()), Long.toString(r.requestCount()), Long.toString(r.successCount()),
                    String.join(",", r.tags()));
        }
        out().print(t.render());
        out().flush();
        return 0;
    }
}
