-- Version 17: the shards' requests a merged run (group:G, V15) is the union of. One row per point and shard, written
-- with the merged run: which shard run's rows, and how they are placed on the group's timeline (ShardTimeline: the
-- group-wide index first_index + idx * index_step, every moment + shift_ns, the epoch start - offset_ms). The merged
-- run's downloads, charts and reports read those rows at query time; none is copied.
CREATE TABLE run_group_parts (
    run_id        TEXT    NOT NULL,          -- the merged run: group:G
    point_index   INTEGER NOT NULL,
    shard_index   INTEGER NOT NULL,
    shard_run_id  TEXT    NOT NULL,
    first_index   BIGINT  NOT NULL,
    index_step    BIGINT  NOT NULL,          -- 1; N for a trace's rows dealt to N shards
    shift_ns      BIGINT  NOT NULL,
    offset_ms     BIGINT  NOT NULL,
    requests      BIGINT  NOT NULL,          -- the shard's stored requests of the point
    PRIMARY KEY (run_id, point_index, shard_index)
);
