package io.unibench.cli;

import io.unibench.metrics.RunResult;
import io.unibench.report.TerminalReport;
import io.unibench.report.TextTable;
import io.unibench.store.GroupMerge;
import io.unibench.store.MergedGroup;
import io.unibench.store.MergedRuns;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"One run from the shards of a sharded run (`perf --shard I/N --run-group G`): every figure "
                + "recomputed from the union of the shards' stored requests on one timeline (clock offsets "
                + "corrected), never averaged from the shards' summaries.",
                "Partial (and said why) when a shard is missing, failed, was interrupted or killed: requests are "
                        + "missing. A shard client-bound by its self-check is said beside (client_bound), not "
                        + "partial. Exit 0 either way; 2 for an unknown group."})
final class RunsMergeCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "G", description = "The run group (--run-group of the shards).")
    String group;

    @Option(names = "--json", description = "JSON in the shape of `runs show --json`, each point also carrying "
            + "`percentiles` (benchmark_percentile.json's rows), plus run_group, partial, partial_reasons, client_bound and shards. "
            + "Default: text.")
    boolean json;

    @Option(names = "--store", description = "Also store the merged run as group:G, as the last shard to end does "
            + "by itself (for a group one of whose shards never started); nothing when it is stored already. "
            + "Default: print only.")
    boolean storeIt;

    @Override
    int run(RunStore store) throws Exception {
        if (storeIt) {
            MergedRuns.Result r = MergedRuns.store(store.location(), group, Owner.current(), System.currentTimeMillis());
            err().println(r.kind() == MergedRuns.Result.Kind.STORED ? "Stored merged run " + r.runId()
                    : "Merged run " + r.runId() + " already stored (or being stored); not stored again");
        }
        MergedGroup g = GroupMerge.merge(store.location(), group);
        if (json) out().println(RunsCommand.JSON.writeValueAsString(toMap(g)));
        else render(g, out());
        return 0;
    }

    /** {@code runs show --json}'s keys (the merged run has no id of its own: {@code group:G}), then the additions. */
    static Map<String, Object> toMap(MergedGroup g) {
        StoredRun first = g.first();
        long requests = 0;
        long successes = 0;
        Long ended = null;
        LinkedHashSet<String> tags = new LinkedHashSet<>();
        for (MergedGroup.Shard s : g.shards()) requests += s.requests();
        for (MergedGroup.Point p : g.points()) successes += p.result().summary().requests().successRequests();
        for (MergedGroup.Shard s : g.shards()) {
            if (s.row().endedAt() != null && (ended == null || s.row().endedAt() > ended)) ended = s.row().endedAt();
        }
        if (first != null) tags.addAll(first.row().tags());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_id", "group:" + g.group());
        m.put("name", first != null ? first.row().name() : null);
        m.put("status", g.partial() ? "partial" : RunRow.FINISHED);
        m.put("started_at", g.startedAt() == null ? null : Instant.ofEpochMilli(g.startedAt()).toString());
        m.put("ended_at", ended == null ? null : Instant.ofEpochMilli(ended).toString());
        m.put("model", first != null ? first.row().model() : null);
        m.put("url", first != null ? first.row().url() : null);
        m.put("request_count", requests);
        m.put("success_count", successes);
        m.put("tags", List.copyOf(tags));
        m.put("config_key", first != null ? first.row().configKey() : null);
        m.put("environment", first != null ? first.environment() : null);
        m.put("config", first != null ? first.config() : null);
        List<Map<String, Object>> points = new ArrayList<>();
        for (MergedGroup.Point p : g.points()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("index", p.index());
            pm.put("label", p.result().info().label());
            pm.put("summary", p.summary());
            pm.put("percentiles", p.percentiles());
            if (p.traces() != null) pm.put("traces", p.traces());
            points.add(pm);
        }
        m.put("points", points);
        m.put("run_group", g.group());
        m.put("partial", g.partial());
        m.put("partial_reasons", g.partialReasons());
        m.put("client_bound", g.clientBound());
        List<Map<String, Object>> shards = new ArrayList<>();
        for (MergedGroup.Shard s : g.shards()) {
            Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("shard", s.row().label());
            sm.put("run_id", s.runId());
            sm.put("status", s.row().status());
            sm.put("run_status", s.runStatus());
            sm.put("selfcheck", s.row().selfCheck());
            sm.put("requests", s.requests());
            sm.put("first_index", s.row().firstIndex());
            sm.put("clock_offset_ms", s.row().clock().offsetMicros() / 1e3);
            sm.put("clock_error_ms", s.row().clock().rttMicros() / 2e3);
            sm.put("start_shift_ms", s.shiftNanos() / 1e6);
            sm.put("host", s.row().owner().host());
            shards.add(sm);
        }
        m.put("shards", shards);
        return m;
    }

    private static void render(MergedGroup g, PrintWriter o) {
        o.println("Run group " + g.group() + ": " + g.shards().size() + " of " + g.shardCount() + " shards"
                + (g.partial() ? " — PARTIAL" : ""));
        for (String reason : g.partialReasons()) o.println("  partial: " + reason);
        for (String verdict : g.clientBound()) o.println("  " + verdict);
        TextTable t = new TextTable(List.of("Shard", "Run", "Status", "Self-check", "Requests", "Clock offset (ms)",
                "Start (+ms)", "Host"), TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT,
                TextTable.Align.LEFT, TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT,
                TextTable.Align.LEFT);
        for (MergedGroup.Shard s : g.shards()) {
            t.row(s.row().label(), RunsCommand.nullToDash(s.runId()), s.row().status(),
                    RunsCommand.nullToDash(s.row().selfCheck()), Long.toString(s.requests()),
                    String.format(Locale.ROOT, "%+.3f ± %.3f", s.row().clock().offsetMicros() / 1e3,
                            s.row().clock().rttMicros() / 2e3),
                    String.format(Locale.ROOT, "%.1f", s.shiftNanos() / 1e6), s.row().owner().host());
        }
        o.print(t.render());
        o.println();
        List<RunResult> results = g.points().stream().map(MergedGroup.Point::result).toList();
        if (results.isEmpty()) {
            o.println("No stored requests in the group.");
        } else {
            Map<String, String> info = new LinkedHashMap<>();
            info.put("Run", "group:" + g.group() + " (merged from " + g.shards().size() + " of " + g.shardCount()
                    + " shards)");
            info.put("Status", g.partial() ? "partial (" + g.partialReasons().size() + " problems above)" : "finished");
            if (g.first() != null) {
                info.put("Model", g.first().row().model());
                info.put("Target", g.first().row().url());
            }
            o.println(TerminalReport.render(results, info));
        }
        o.flush();
    }
}
