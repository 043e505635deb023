-- Run history, version 1. Plain SQL shared by SQLite and PostgreSQL; ${BLOB} is BLOB or BYTEA.
-- Times: *_at columns are epoch milliseconds; *_ns columns are nanoseconds since the sweep point's start
-- (NULL when the moment did not happen), so stored records rebuild the exact report.
CREATE TABLE runs (
    run_id          TEXT PRIMARY KEY,
    name            TEXT,
    model           TEXT,
    url             TEXT,
    status          TEXT NOT NULL,
    started_at      BIGINT NOT NULL,
    ended_at        BIGINT,
    heartbeat_at    BIGINT NOT NULL,           -- last commit of the writer; recovery of abandoned runs
    request_count   BIGINT NOT NULL DEFAULT 0, -- stored request rows, kept in the same transaction
    success_count   BIGINT NOT NULL DEFAULT 0,
    owner_host      TEXT NOT NULL,             -- the writing process: host, pid and its start time
    owner_pid       BIGINT NOT NULL,
    owner_started   BIGINT NOT NULL,
    config_key      TEXT NOT NULL,             -- hash of what affects the numbers: finds repeated runs
    config_json     TEXT NOT NULL,
    environment_json TEXT NOT NULL
);
CREATE INDEX runs_started ON runs (started_at);
CREATE INDEX runs_status ON runs (status);
CREATE INDEX runs_config_key ON runs (config_key);

CREATE TABLE run_tags (
    run_id  TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
);
CREATE INDEX run_tags_tag ON run_tags (tag);

CREATE TABLE run_points (
    run_id          TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    point_index     INTEGER NOT NULL,
    label           TEXT NOT NULL,
    concurrency     INTEGER NOT NULL,
    rate            DOUBLE PRECISION NOT NULL,
    number          INTEGER NOT NULL,
    started_at      BIGINT NOT NULL,
    summary_json    TEXT,
    percentiles_json TEXT,
    workload_json   TEXT,
    errors_json     TEXT,
    PRIMARY KEY (run_id, point_index)
);

CREATE TABLE requests (
    run_id          TEXT NOT NULL,
    point_index     INTEGER NOT NULL,
    idx             BIGINT NOT NULL,
    request_id      TEXT,
    conversation_id TEXT,
    turn            INTEGER NOT NULL,
    stream          SMALLINT NOT NULL,
    success         SMALLINT NOT NULL,
    error_class     TEXT,
    http_status     INTEGER NOT NULL,
    error_message   TEXT,
    finish_reason   TEXT,
    start_epoch_ms  BIGINT NOT NULL,
    scheduled_ns    BIGINT,
    start_ns        BIGINT,
    headers_ns      BIGINT,
    first_chunk_ns  BIGINT,
    first_token_ns  BIGINT,
    end_ns          BIGINT,
    chunk_ns        ${BLOB},
    prompt_tokens   INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens   INTEGER NOT NULL,
    token_source    TEXT,
    last_turn       SMALLINT NOT NULL,
    cached_source   TEXT,
    connect_start_ns BIGINT,
    dns_done_ns     BIGINT,
    connect_done_ns BIGINT,
    tls_done_ns     BIGINT,
    write_start_ns  BIGINT,
    written_ns      BIGINT,
    first_byte_ns   BIGINT,
    prompt_target_tokens INTEGER NOT NULL,
    prompt_synth_tokens  INTEGER NOT NULL,
    PRIMARY KEY (run_id, point_index, idx),
    FOREIGN KEY (run_id, point_index) REFERENCES run_points (run_id, point_index) ON DELETE CASCADE
);
