package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.unibench.store.RunRow;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code unibench runs}: the run history kept by {@code perf} and {@code run} (SQLite by default, PostgreSQL by URL);
 * one class per subcommand ({@code RunsListCommand} …), the helpers they share here.
 */
@Command(name = "runs", mixinStandardHelpOptions = true,
        description = {"The run history: every `unibench perf` run is stored (see --db; --no-db on perf skips it).",
                "RUN is a run id or a unique prefix of one, as `runs list` shows."},
        subcommands = {RunsListCommand.class, RunsShowCommand.class, RunsReportCommand.class, RunsCompareCommand.class,
                RunsExportCommand.class, RunsDeleteCommand.class, RunsMergeCommand.class, RunsImportCommand.class})
public final class RunsCommand implements Runnable {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static Map<String, Object> rowMap(RunRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_id", r.runId());
        m.put("name", r.name());
        m.put("status", r.status());
        m.put("verdict", r.verdict());
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

    static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString().replace('T', ' ').replaceFirst("\\.\\d+Z$", "")
                .replace("Z", "");
    }

    static String nullToDash(String s) {
        return s == null ? "-" : s;
    }
}
