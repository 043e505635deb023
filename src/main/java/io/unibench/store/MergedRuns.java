package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run group's merge stored as one run ({@code group:G}, migration V15), built without anyone running
 * {@code runs merge}: the last shard to end calls {@link #mergeWhenDone} (and {@code unibench serve} polls the
 * groups still open), and the first caller to insert the group's {@code run_group_merges} row builds it — the
 * primary key makes that exactly one process, however many shards end at once; the others return
 * {@link Result.Kind#ALREADY}. A claim left by a merging process that died is taken over (the rule of abandoned
 * runs, {@link Owner#deadOn}). The merged run holds the merge's points (summary, percentiles, traces, …, computed by
 * {@link GroupMerge} from the union of the shards' requests), not a copy of the requests: where each shard's rows sit
 * on the group's timeline ({@code run_group_parts}, V17), from which {@link RunStore} reads the merged run's requests
 * as the union of the shards'; each shard's run gets the group, so the run list shows the merged run instead of its
 * N shards.
 *
 * <p>A group is done when all N shards registered and each one ended: finished, failed or interrupted, or gone
 * without saying so (its process dead on this host; on another host, no commit of its run for
 * {@link RunStore#FOREIGN_STALE_MILLIS}), which {@link GroupMerge} reports as the merge's partial reasons.
 */
public final class MergedRuns {
    static final String MERGING = "merging";
    static final String STORED = "stored";

    private MergedRuns() {}

    /** What {@link #mergeWhenDone} did. */
    public record Result(Kind kind, String runId, String why) {
        public enum Kind { STORED, ALREADY, NOT_YET }
    }

    /** The merged run's id of group {@code group}. */
    public static String runId(String group) {
        return RunStore.MERGED_PREFIX + group;
    }

    /** Builds and stores the group's merged run when every shard has ended and nobody else did or does. */
    public static Result mergeWhenDone(StoreLocation location, String group, Owner me, long nowMillis)
            throws SQLException, InterruptedException {
        try (ShardRegistry registry = ShardRegistry.open(location)) {
            String open = stillOpen(registry, group, me, nowMillis);
            if (open != null) return new Result(Result.Kind.NOT_YET, runId(group), open);
        }
        return store(location, group, me, nowMillis);
    }

    /**
     * Builds and stores the group's merged run now, whether or not every shard has ended ({@code runs merge G
     * --store}: a group a shard never joined), unless another process stored it or is storing it.
     */
    public static Result store(StoreLocation location, String group, Owner me, long nowMillis)
            throws SQLException, InterruptedException {
        String id = runId(group);
        try (Database db = Database.open(location)) {
            if (!claim(db, group, id, me, nowMillis)) return new Result(Result.Kind.ALREADY, id, "merged by another process");
            try {
                MergedGroup g = GroupMerge.merge(location, group);
                store(location, g, id, me, nowMillis);
                db.write(c -> Sql.update(c, "UPDATE run_group_merges SET status = ?, stored_at = ?, partial_reasons = ? "
                        + "WHERE run_group = ?", STORED, nowMillis, ResultJson.write(g.partialReasons()), group));
                return new Result(Result.Kind.STORED, id, g.partial() ? String.join("; ", g.partialReasons()) : null);
            } catch (SQLException | InterruptedException | RuntimeException e) {
                release(db, group, id); // the next shard, the service or `runs merge G --store` tries again
                throw e;
            }
        }
    }

    /**
     * Tries {@link #mergeWhenDone} on every group with shards and no stored merge yet (the service's poll: it also
     * merges a group whose last shard was killed, once that shard counts as gone); returns the results of the groups
     * it stored. A group whose merge fails is skipped with its error in {@code failed}, the others still run.
     */
    public static List<Result> mergeOpenGroups(StoreLocation location, Owner me, long nowMillis,
                                               java.util.function.BiConsumer<String, Exception> failed)
            throws SQLException, InterruptedException {
        List<String> open;
        try (Database db = Database.open(location)) {
            open = db.read(c -> Sql.query(c, "SELECT DISTINCT run_group FROM run_shards WHERE run_group NOT IN "
                    + "(SELECT run_group FROM run_group_merges) ORDER BY run_group", rs -> rs.getString(1)));
        }
        List<Result> stored = new ArrayList<>();
        for (String group : open) {
            try {
                Result r = mergeWhenDone(location, group, me, nowMillis);
                if (r.kind() == Result.Kind.STORED) stored.add(r);
            } catch (SQLException | RuntimeException e) {
                failed.accept(group, e);
            }
        }
        return stored;
    }

    /** Null when the group is done, else why not (one line). */
    private static String stillOpen(ShardRegistry registry, String group, Owner me, long nowMillis)
            throws SQLException {
        List<ShardRow> rows = registry.shards(group);
        if (rows.isEmpty()) return "no shard registered";
        int count = rows.getFirst().count();
        if (rows.size() < count) return rows.size() + " of " + count + " shards registered";
        List<String> running = new ArrayList<>();
        for (ShardRow r : rows) {
            if (!r.status().equals(ShardRow.REGISTERED) && !r.status().equals(ShardRow.RUNNING)) continue;
            if (!gone(registry, r, me, nowMillis)) running.add(r.label());
        }
        return running.isEmpty() ? null : "shard " + String.join(", ", running) + " still running";
    }

    /** A shard that never said it ended whose process is gone (the rule of {@link RunStore#recoverAbandoned}). */
    private static boolean gone(ShardRegistry registry, ShardRow r, Owner me, long nowMillis) throws SQLException {
        if (r.owner().host().equals(me.host())) {
            return r.owner().pid() != me.pid() && r.owner().deadOn(me.host());
        }
        String run = registry.runOf(r);
        Long commit = run == null ? null : registry.lastCommitMillis(run);
        long lastSign = Math.max(r.registeredAt(), commit == null ? 0 : commit);
        return nowMillis - lastSign > RunStore.FOREIGN_STALE_MILLIS;
    }

    /** Inserts the group's claim, or takes over one whose merging process died; false when another holds it. */
    private static boolean claim(Database db, String group, String id, Owner me, long nowMillis) throws SQLException {
        try {
            db.write(c -> Sql.update(c, "INSERT INTO run_group_merges (run_group, run_id, status, owner_host, owner_pid, "
                    + "owner_started, claimed_at) VALUES (?, ?, ?, ?, ?, ?, ?)", group, id, MERGING, me.host(), me.pid(),
                    me.startedAt(), nowMillis));
            return true;
        } catch (SQLException e) {
            if (!ShardRegistry.isUniqueViolation(e)) throw e;
        }
        Owner holder = db.read(c -> Sql.first(c, "SELECT owner_host, owner_pid, owner_started FROM run_group_merges "
                + "WHERE run_group = ? AND status = ?", rs -> new Owner(rs.getString(1), rs.getLong(2), rs.getLong(3)),
                group, MERGING));
        if (holder == null && db.read(c -> Sql.first(c, "SELECT 1 FROM runs WHERE run_id = ?", rs -> 1, id)) == null) {
            // stored, then its run deleted by a build that kept the claim: a claim for nothing, released
            boolean released = db.write(c -> {
                boolean r = Sql.update(c, "DELETE FROM run_group_merges WHERE run_group = ? AND status = ?", group,
                        STORED) == 1;
                if (r) deleteRun(c, id); // whatever of it is left (its points, its parts)
                return r;
            });
            return released && claim(db, group, id, me, nowMillis);
        }
        if (holder == null || !holder.deadOn(me.host())) return false; // stored, or being merged
        return db.write(c -> {
            boolean mine = Sql.update(c, "UPDATE run_group_merges SET owner_host = ?, owner_pid = ?, owner_started = ?, "
                    + "claimed_at = ? WHERE run_group = ? AND status = ? AND owner_host = ? AND owner_pid = ? "
                    + "AND owner_started = ?", me.host(), me.pid(), me.startedAt(), nowMillis, group, MERGING,
                    holder.host(), holder.pid(), holder.startedAt()) == 1;
            if (mine) deleteRun(c, id); // what the dead merger stored half
            return mine;
        });
    }

    private static void release(Database db, String group, String id) {
        try {
            db.write(c -> {
                deleteRun(c, id);
                return Sql.update(c, "DELETE FROM run_group_merges WHERE run_group = ?", group);
            });
        } catch (SQLException ignored) {
            // the claim stays; its owner is this process, whose end lets the next caller take it over
        }
    }

    private static void deleteRun(Connection c, String id) throws SQLException {
        for (String table : List.of("run_group_parts", "run_points", "run_tags", "runs")) {
            Sql.update(c, "DELETE FROM " + table + " WHERE run_id = ?", id);
        }
    }

    /** The merged run: the first shard's target and configuration, the merge's points, the group's counts. */
    private static void store(StoreLocation location, MergedGroup g, String id, Owner me, long nowMillis)
            throws SQLException {
        try (RunStore store = RunStore.open(location)) {
            StoredRun first = g.first();
            ObjectNode config = first == null ? ResultJson.MAPPER.createObjectNode() : first.config().deepCopy();
            config.put("run_group", g.group());
            config.put("shards", g.shardCount());
            Map<String, Object> env = first == null ? Map.of()
                    : ResultJson.MAPPER.convertValue(first.environment(),
                    new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() { });
            String name = first == null || first.row().name() == null ? g.group() : first.row().name();
            long started = g.startedAt() != null ? g.startedAt() : nowMillis;
            store.createRun(id, new RunStart(name, first == null ? List.of() : first.row().tags(),
                    first == null ? null : first.row().model(), first == null ? null : first.row().url(), config, env),
                    me, started, RunRow.RUNNING);
            store.setRunGroup(id, g.group());
            long requests = 0;
            for (MergedGroup.Shard s : g.shards()) {
                requests += s.requests();
                if (s.runId() != null) store.setRunGroup(s.runId(), g.group());
            }
            long successes = 0;
            for (MergedGroup.Point p : g.points()) {
                store.addPoint(id, p.index(), p.result().info(), started);
                Map<String, Object> extra = new LinkedHashMap<>();
                for (String key : List.of("Run Group", "Shards", "Shards Merged", "Partial")) {
                    JsonNode v = p.summary().get(key);
                    if (v != null) extra.put(key, ResultJson.MAPPER.convertValue(v, Object.class));
                }
                store.savePointResult(id, p.index(), p.result(), extra);
                store.addGroupParts(id, p.index(), p.parts());
                successes += p.result().summary().requests().successRequests();
            }
            store.setCounts(id, requests, successes);
            store.endActive(id, g.partial() ? RunRow.PARTIAL : RunRow.FINISHED,
                    g.partial() ? String.join("; ", g.partialReasons()) : null, ended(g, nowMillis));
        }
    }

    /** The last shard's end on the database's clock, else now. */
    private static long ended(MergedGroup g, long nowMillis) {
        long max = 0;
        for (MergedGroup.Shard s : g.shards()) if (s.row().endedAt() != null) max = Math.max(max, s.row().endedAt());
        return max > 0 ? max : nowMillis;
    }

    /**
     * The shards of a merged run ({@code group:G}) as the platform's Shards tab shows them, or null when the run is
     * not a group's merged run.
     */
    public static Group group(StoreLocation location, String runId) throws SQLException {
        if (!runId.startsWith(RunStore.MERGED_PREFIX)) return null;
        String group = runId.substring(RunStore.MERGED_PREFIX.length());
        List<String> reasons = new ArrayList<>();
        String stored;
        try (Database db = Database.open(location)) {
            stored = db.read(c -> Sql.first(c, "SELECT COALESCE(partial_reasons, 'null') FROM run_group_merges "
                    + "WHERE run_group = ? AND status = ?", rs -> rs.getString(1), group, STORED));
        }
        if (stored == null) return null;
        JsonNode list = ResultJson.read(stored);
        if (list != null) list.forEach(n -> reasons.add(n.asText()));
        List<Member> members = new ArrayList<>();
        try (ShardRegistry registry = ShardRegistry.open(location); RunStore store = RunStore.open(location)) {
            for (ShardRow row : registry.shards(group)) {
                String run = registry.runOf(row);
                RunRow r = null;
                if (run != null) {
                    try {
                        r = store.run(run).row();
                    } catch (io.unibench.BadInputException deleted) {
                        r = null;
                    }
                }
                members.add(new Member(row, r));
            }
        }
        return new Group(group, members, reasons);
    }

    /** A merged run's group: its shards (their runs, null when none is stored) and why the merge is partial. */
    public record Group(String name, List<Member> shards, List<String> partialReasons) {
        public Group {
            shards = List.copyOf(shards);
            partialReasons = List.copyOf(partialReasons);
        }
    }

    /** One shard of a group and its run (null when it stored none or the run was deleted). */
    public record Member(ShardRow row, RunRow run) {}
}
