-- Version 15: a sharded run stored as one run (issue 21). A shard's run and the group's merged run carry the group
-- (`runs.run_group`), so lists show the merged run once instead of its shards; the merge itself has one row per
-- group, inserted by whoever builds it (the last shard to end, or `unibench serve`): the primary key lets exactly
-- one process merge a group, however many try at once.
ALTER TABLE runs ADD COLUMN run_group TEXT;
-- the level a shard of a scenario file (`run --config F --shard I/N`) has reached: its levels start together
ALTER TABLE run_shards ADD COLUMN barrier_point INTEGER;
CREATE INDEX runs_run_group ON runs (run_group);
CREATE TABLE run_group_merges (
    run_group       TEXT PRIMARY KEY,
    run_id          TEXT NOT NULL,            -- the merged run: group:G
    status          TEXT NOT NULL,            -- merging, stored
    owner_host      TEXT NOT NULL,            -- the process merging it (a dead one's claim is taken over)
    owner_pid       BIGINT NOT NULL,
    owner_started   BIGINT NOT NULL,
    claimed_at      BIGINT NOT NULL,          -- epoch ms
    stored_at       BIGINT,                   -- epoch ms, once stored
    partial_reasons TEXT                      -- JSON array of lines; [] when whole
);
