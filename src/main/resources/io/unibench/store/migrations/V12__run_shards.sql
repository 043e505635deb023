-- Version 12: sharded runs (issue 21). One row per shard of a run group (`perf --shard I/N --run-group G`): the
-- slice it ran, its clock against the database's (so `runs merge` puts every shard on one timeline), how it ended
-- and its client self-check. run_id is NULL until the shard's run exists; a shard killed before it finished is
-- found by its owner (host, pid, start) like an abandoned run.
CREATE TABLE run_shards (
    run_group       TEXT NOT NULL,
    shard_index     INTEGER NOT NULL,
    shard_count     INTEGER NOT NULL,
    run_id          TEXT,
    status          TEXT NOT NULL,            -- registered, running, finished, failed, interrupted
    first_index     BIGINT NOT NULL,          -- the group-wide index of the shard's first request
    registered_at   BIGINT NOT NULL,          -- epoch ms, the database's clock
    clock_offset_us BIGINT NOT NULL,          -- the shard's clock minus the database's, microseconds
    clock_rtt_us    BIGINT NOT NULL,          -- round trip of the sample it came from: the error is at most half
    owner_host      TEXT NOT NULL,
    owner_pid       BIGINT NOT NULL,
    owner_started   BIGINT NOT NULL,
    selfcheck       TEXT,                     -- at the end: ok, or client-bound and the self-check's words
    ended_at        BIGINT,                   -- epoch ms, the database's clock
    PRIMARY KEY (run_group, shard_index)
);
