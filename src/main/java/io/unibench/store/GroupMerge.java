package io.unibench.store;

import static io.unibench.Moments.ABSENT;

import io.unibench.BadInputException;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code runs merge G}: one run from the union of a run group's stored requests, never from the shards' summaries.
 * Per sweep point, every shard's requests are put on the group's timeline ({@link ShardTimeline}: the shard's
 * origin on the database's clock, from its recorded clock offset) and fed, in the order they ended across all
 * shards, to one {@link RunMetrics}: the same aggregation a one-process run does, so percentiles are computed from
 * the raw values of the union (exact, by the same rule as any run: up to {@code Distribution.EXACT_LIMIT}, 8,388,608, samples of a
 * metric), throughputs are over the group's wall time (first start to last end on that timeline), error classes
 * and per-trace tables span the shards.
 *
 * <p>Each shard streams from its own connection (a cursor, in end order) on its own thread into a small bounded
 * queue, and the merge takes the earliest head: memory holds a few thousand records whatever the group's size.
 */
public final class GroupMerge {
    private static final int QUEUE_CAPACITY = 1024;
    private static final Object END = new Object();

    private GroupMerge() {}

    public static MergedGroup merge(StoreLocation location, String group) throws SQLException, InterruptedException {
        try (ShardRegistry registry = ShardRegistry.open(location); RunStore store = RunStore.open(location)) {
            List<ShardRow> rows = registry.shards(group);
            if (rows.isEmpty()) {
                throw new BadInputException("run group '" + group + "': no shard registered in " + location.display());
            }
            int count = rows.getFirst().count();
            List<String> reasons = new ArrayList<>();
            Set<Integer> missing = new TreeSet<>();
            for (int i = 0; i < count; i++) missing.add(i);
            List<Member> members = new ArrayList<>();
            for (ShardRow row : rows) {
                missing.remove(row.index());
                String runId = registry.runOf(row);
                StoredRun run = runId == null ? null : stored(store, runId);
                if (runId != null && run == null) reasons.add("shard " + row.label() + ": its run " + runId + " was deleted");
                else judge(row, run, reasons);
                if (run != null) members.add(new Member(row, run));
            }
            for (int i : missing) reasons.add(0, "shard " + i + "/" + count + ": never registered");
            List<MergedGroup.Point> points = new ArrayList<>();
            Map<Integer, Long> shifts = new LinkedHashMap<>();
            Long startedAt = null;
            int pointCount = members.stream().mapToInt(m -> m.run.points().size()).max().orElse(0);
            for (int p = 0; p < pointCount; p++) {
                List<Member> at = new ArrayList<>();
                for (Member m : members) {
                    if (p < m.run.points().size()) at.add(m);
                    else reasons.add("shard " + m.row.label() + ": has no sweep point " + p);
                }
                Placed placed = place(registry, at, p, count);
                if (p == 0) {
                    shifts.putAll(placed.shiftNanos);
                    if (placed.originMicros != null) startedAt = placed.originMicros / 1000;
                }
                points.add(point(location, at, p, placed, group, count, !reasons.isEmpty()));
            }
            List<MergedGroup.Shard> shards = new ArrayList<>();
            for (ShardRow row : rows) {
                Member m = members.stream().filter(x -> x.row == row).findFirst().orElse(null);
                shards.add(new MergedGroup.Shard(row, m == null ? null : m.run.row().runId(),
                        m == null ? null : m.run.row().status(), m == null ? 0 : m.run.row().requestCount(),
                        shifts.getOrDefault(row.index(), 0L)));
            }
            StoredRun first = members.isEmpty() ? null : members.getFirst().run;
            return new MergedGroup(group, count, shards, points, first, startedAt, reasons);
        }
    }

    private record Member(ShardRow row, StoredRun run) {}

    /** The run, or null when it is gone from the store (`runs delete`). */
    private static StoredRun stored(RunStore store, String runId) throws SQLException {
        try {
            return store.run(runId);
        } catch (BadInputException deleted) {
            return null;
        }
    }

    /** Each member's placement on the group's timeline for one point; origin = the earliest shard's, epoch µs. */
    private record Placed(Map<Integer, Long> shiftNanos, Map<Integer, ShardTimeline> timelines, Long originMicros) {}

    /**
     * A shard that stored no run, failed, was interrupted or killed makes the merge partial: requests are missing. A
     * shard whose client was the bottleneck (its self-check said {@code client-bound}) ran every request: that is a
     * verdict of its own ({@link MergedGroup#clientBound()}), not a partial merge.
     */
    private static void judge(ShardRow row, StoredRun run, List<String> reasons) {
        String who = "shard " + row.label();
        if (run == null) {
            reasons.add(who + ": stored no run (" + row.status() + ")");
        } else if (!RunRow.FINISHED.equals(run.row().status())) {
            boolean gone = row.status().equals(ShardRow.REGISTERED) || row.status().equals(ShardRow.RUNNING);
            reasons.add(who + ": run " + run.row().runId() + " is " + run.row().status()
                    + (gone && row.endedAt() == null ? " (its process ended before the shard finished)" : "")
                    + "; " + run.row().requestCount() + " requests stored");
        } else if (!RunRow.FINISHED.equals(row.status())) {
            reasons.add(who + ": " + row.status());
        }
    }

    private static Placed place(ShardRegistry registry, List<Member> at, int point, int count) throws SQLException {
        Map<Integer, Long> originDb = new LinkedHashMap<>();
        for (Member m : at) {
            Long local = registry.pointOriginMicros(m.run.row().runId(), point);
            if (local != null) originDb.put(m.row.index(), m.row.clock().toDatabaseMicros(local));
        }
        Long origin = originDb.values().stream().min(Long::compare).orElse(null);
        Map<Integer, Long> shifts = new LinkedHashMap<>();
        Map<Integer, ShardTimeline> timelines = new LinkedHashMap<>();
        for (Member m : at) {
            long shift = origin == null || !originDb.containsKey(m.row.index()) ? 0
                    : (originDb.get(m.row.index()) - origin) * 1000;
            shifts.put(m.row.index(), shift);
            long offsetMillis = Math.floorDiv(m.row.clock().offsetMicros(), 1000);
            // a trace's rows are dealt, row k to shard k mod N (RunSpec.slice): shard I's j-th is row I + jN; a point
            // replaying one says so by its summary's Trace Speedup (perf's and a scenario file's), a file's by its name
            StoredPoint sp = m.run.points().get(point);
            boolean dealt = sp.label().endsWith("/trace") || sp.summary() != null && sp.summary().has("Trace Speedup");
            timelines.put(m.row.index(), dealt ? new ShardTimeline(m.row.index(), m.row.index(), shift, offsetMillis, count)
                    : new ShardTimeline(m.row.index(), m.row.firstIndex(), shift, offsetMillis));
        }
        return new Placed(shifts, timelines, origin);
    }

    private static MergedGroup.Point point(StoreLocation location, List<Member> at, int p, Placed placed, String group,
                                           int count, boolean partial) throws SQLException, InterruptedException {
        RunMetrics metrics = new RunMetrics();
        long[] requests = merge(location, at, p, placed, metrics);
        List<MergedGroup.Part> parts = new ArrayList<>();
        for (int i = 0; i < at.size(); i++) {
            Member m = at.get(i);
            ShardTimeline t = placed.timelines.get(m.row.index());
            parts.add(new MergedGroup.Part(m.row.index(), m.run.row().runId(), t.firstIndex(), t.indexStep(),
                    t.shiftNanos(), t.offsetMillis(), requests[i]));
        }
        RunInfo info = info(at, p);
        RunResult result = metrics.result(info);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("Run Group", group);
        extra.put("Shards", count);
        extra.put("Shards Merged", at.size());
        extra.put("Partial", partial);
        return new MergedGroup.Point(p, result, ResultJson.read(ResultJson.summary(result, extra)),
                ResultJson.read(ResultJson.percentiles(result)), ResultJson.read(ResultJson.traces(result)), parts);
    }

    /**
     * The group's point: concurrency, rate and number summed over its shards (an open loop's unbounded concurrency,
     * -1, stays -1). A scenario file's level keeps its name, but for {@code parallel_C}, named by the shard's share.
     */
    private static RunInfo info(List<Member> at, int p) {
        boolean unbounded = false;
        int concurrency = 0;
        int number = 0;
        double rate = 0;
        boolean paced = false;
        boolean openLoop = false;
        for (Member m : at) {
            StoredPoint sp = m.run.points().get(p);
            if (sp.concurrency() < 0) unbounded = true;
            else concurrency += sp.concurrency();
            number = (int) Math.min(Integer.MAX_VALUE, (long) number + sp.number()); // a level held by time: MAX
            if (sp.rate() > 0) {
                rate += sp.rate();
                paced = true;
            }
            openLoop |= sp.label().startsWith("rate_");
        }
        if (unbounded) concurrency = -1;
        String label = openLoop ? "rate_" + rate + "_number_" + number : "parallel_" + concurrency + "_number_" + number;
        String shardLabel = at.getFirst().run.points().get(p).label();
        int level = shardLabel.lastIndexOf("/parallel_"); // a scenario file's provider/scenario/parallel_C
        if (level >= 0) label = shardLabel.substring(0, level) + "/parallel_" + concurrency;
        else if (shardLabel.contains("/")) label = shardLabel; // provider/scenario/rate_R, ramp_…, trace: the group's
        return new RunInfo(label, concurrency, paced ? rate : -1, number);
    }

    /**
     * k-way merge of the members' end-ordered streams into {@code sink}, each stream read on its own thread; returns
     * each member's request count.
     */
    private static long[] merge(StoreLocation location, List<Member> at, int p, Placed placed, RunMetrics sink)
            throws SQLException, InterruptedException {
        long[] counts = new long[at.size()];
        List<BlockingQueue<Object>> queues = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (Member m : at) {
            BlockingQueue<Object> q = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
            queues.add(q);
            ShardTimeline timeline = placed.timelines.get(m.row.index());
            readers.add(Thread.ofPlatform().daemon().name("unibench-merge-" + m.row.index()).start(() ->
                    read(location, m.run.row().runId(), p, timeline, q, failure)));
        }
        try {
            PriorityQueue<Head> heads = new PriorityQueue<>(HEAD_ORDER);
            for (int i = 0; i < queues.size(); i++) next(queues.get(i), i, heads);
            while (!heads.isEmpty()) {
                Head h = heads.poll();
                sink.accept(h.record);
                counts[h.stream]++;
                next(queues.get(h.stream), h.stream, heads);
            }
        } finally {
            for (Thread t : readers) t.interrupt();
            for (Thread t : readers) t.join();
        }
        Exception e = failure.get();
        if (e instanceof SQLException s) throw s;
        if (e != null) throw new IllegalStateException(e);
        return counts;
    }

    private record Head(RequestRecord record, int stream) {}

    /** The order a live run records: by end (none last), then stream and index, so the merge is deterministic. */
    private static final Comparator<Head> HEAD_ORDER = Comparator
            .comparingLong((Head h) -> h.record.timing().endNanos() == ABSENT ? Long.MAX_VALUE : h.record.timing().endNanos())
            .thenComparingInt(Head::stream).thenComparingLong(h -> h.record.position().index());

    private static void next(BlockingQueue<Object> q, int stream, PriorityQueue<Head> heads) throws InterruptedException {
        Object o = q.take();
        if (o != END) heads.add(new Head((RequestRecord) o, stream));
    }

    private static void read(StoreLocation location, String runId, int p, ShardTimeline timeline,
                             BlockingQueue<Object> q, AtomicReference<Exception> failure) {
        try (RunStore s = RunStore.open(location)) {
            s.replay(runId, p, r -> {
                try {
                    q.put(timeline.place(r));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("merge stopped", e);
                }
            });
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        } finally {
            try {
                q.put(END);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
