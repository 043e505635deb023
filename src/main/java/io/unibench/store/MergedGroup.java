package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.RunResult;

import java.util.List;

/**
 * A sharded run merged into one ({@code runs merge G}): every point computed from the union of its shards' stored
 * requests on one timeline, and why the result is partial when it is.
 *
 * @param first          the earliest shard's stored run (its model, target and masked configuration), or null
 * @param startedAt      the earliest shard point start, epoch ms on the database's clock; null without requests
 * @param partialReasons one line per shard whose requests are missing (never registered, stored no run, failed,
 *                       interrupted or killed); empty when whole. A client-bound shard is not one
 *                       ({@link #clientBound()})
 */
public record MergedGroup(String group, int shardCount, List<Shard> shards, List<Point> points, StoredRun first,
                          Long startedAt, List<String> partialReasons) {
    public MergedGroup {
        shards = List.copyOf(shards);
        points = List.copyOf(points);
        partialReasons = List.copyOf(partialReasons);
    }

    public boolean partial() {
        return !partialReasons.isEmpty();
    }

    /**
     * One line per shard whose self-check found its client the bottleneck ({@code shard 0/3: client-bound: …}): its
     * requests all ran, but its latencies may include the client's own queueing. A verdict beside the status, which
     * it does not change; empty when no shard said so.
     */
    public List<String> clientBound() {
        return shards.stream().filter(s -> s.row().clientBound())
                .map(s -> "shard " + s.row().label() + ": " + s.row().selfCheck()).toList();
    }

    /**
     * One shard as merged.
     *
     * @param runId      its run, or null when it stored none
     * @param runStatus  that run's status, or null
     * @param requests   requests stored by it (every point)
     * @param shiftNanos where its first point starts on the group's timeline (0 for the earliest)
     */
    public record Shard(ShardRow row, String runId, String runStatus, long requests, long shiftNanos) {}

    /**
     * One sweep point of the group: the figures of the union of its shards' requests, the JSON forms the store
     * keeps for a point ({@code summary} with the merge's added keys, {@code percentiles} as
     * {@code benchmark_percentile.json}, {@code traces} with multi-turn, else null), and the shards' rows it is
     * the union of.
     */
    public record Point(int index, RunResult result, JsonNode summary, JsonNode percentiles, JsonNode traces,
                        List<Part> parts) {
        public Point {
            parts = List.copyOf(parts);
        }
    }

    /**
     * One shard's requests of a point as the merged run reads them (migration V17): its run, where they sit on the
     * group's timeline, and how many it stored.
     */
    public record Part(int shard, String runId, long firstIndex, long indexStep, long shiftNanos, long offsetMillis,
                       long requests) {
        ShardTimeline timeline() {
            return new ShardTimeline(shard, firstIndex, shiftNanos, offsetMillis, indexStep);
        }
    }
}
