package io.unibench.web;

import io.unibench.store.MergedRuns;
import io.unibench.store.ShardRow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A merged run's shards ({@code group:G}, stored by {@link MergedRuns}) as the API lists them and as the run page's
 * Shards tab shows them: per shard its status, its run's requests and successes, its clock offset against the
 * database's, its self-check verdict; and whether the merge is partial, with why.
 */
record ShardsView(String group, boolean partial, List<String> reasons, List<MergedRuns.Member> members) {
    static ShardsView of(MergedRuns.Group g) {
        return g == null ? null : new ShardsView(g.name(), !g.partialReasons().isEmpty(), g.partialReasons(), g.shards());
    }

    /** The keys {@code GET /api/runs/{id}} adds for a merged run ({@code runs merge --json}'s names). */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_group", group);
        m.put("partial", partial);
        m.put("partial_reasons", reasons);
        List<Map<String, Object>> shards = new ArrayList<>();
        for (MergedRuns.Member s : members) {
            ShardRow r = s.row();
            Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("shard", r.label());
            sm.put("run_id", s.run() == null ? null : s.run().runId());
            sm.put("status", r.status());
            sm.put("run_status", s.run() == null ? null : s.run().status());
            sm.put("selfcheck", r.selfCheck());
            sm.put("requests", s.run() == null ? 0 : s.run().requestCount());
            sm.put("successes", s.run() == null ? 0 : s.run().successCount());
            sm.put("first_index", r.firstIndex());
            sm.put("clock_offset_ms", r.clock().offsetMicros() / 1e3);
            sm.put("clock_error_ms", r.clock().rttMicros() / 2e3);
            sm.put("host", r.owner().host());
            shards.add(sm);
        }
        m.put("shards", shards);
        return m;
    }

    /** The Shards tab's table. */
    Table table() {
        Table.Builder t = new Table.Builder("Shards", 4, "Shard", "Run", "Status", "Self-check", "Requests",
                "Success", "Clock offset (ms)");
        for (MergedRuns.Member s : members) {
            ShardRow r = s.row();
            long requests = s.run() == null ? 0 : s.run().requestCount();
            long ok = s.run() == null ? 0 : s.run().successCount();
            t.row(r.label(), s.run() == null ? "—" : s.run().runId(),
                    r.status() + (s.run() != null && !s.run().status().equals(r.status()) ? " (run " + s.run().status()
                            + ")" : ""),
                    r.selfCheck() == null ? "—" : r.selfCheck(), Long.toString(requests),
                    requests == 0 ? "—" : ok + " (" + String.format(Locale.ROOT, "%.1f%%", 100.0 * ok / requests) + ")",
                    String.format(Locale.ROOT, "%+.3f ± %.3f", r.clock().offsetMicros() / 1e3, r.clock().rttMicros() / 2e3));
        }
        return t.build();
    }
}
