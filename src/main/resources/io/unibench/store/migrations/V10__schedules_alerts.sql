-- Version 10: scheduled rounds, alert rules and their state, notifications (issue 18). Owned by the schedule
-- package (io.unibench.schedule.ScheduleStore); a round's runs are ordinary runs, linked here by id.
-- Times are epoch ms. Webhook URLs and signing secrets are never stored: only the names of their variables.

-- A schedule: its scenario document as given (YAML or JSON text) and when it fires: a cron expression in a time
-- zone, or a fixed interval from created_at; jitter_ms delays each round by a random 0 … jitter_ms.
CREATE TABLE schedules (
    name          TEXT PRIMARY KEY,
    document      TEXT NOT NULL,
    document_name TEXT NOT NULL,
    cron          TEXT,
    time_zone     TEXT,
    every_ms      BIGINT,
    jitter_ms     BIGINT NOT NULL,
    enabled       INTEGER NOT NULL,
    next_fire_at  BIGINT,
    next_due_at   BIGINT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

-- Alert rules added to a schedule outside its document (UI/API), as the document's alerts: entries in JSON.
CREATE TABLE schedule_rules (
    schedule  TEXT NOT NULL,
    name      TEXT NOT NULL,
    rule_json TEXT NOT NULL,
    PRIMARY KEY (schedule, name)
);

-- Every round: fired (queued → running → finished/failed) or skipped, with why.
CREATE TABLE schedule_rounds (
    round_id      TEXT PRIMARY KEY,
    schedule      TEXT NOT NULL,
    trigger_kind  TEXT NOT NULL,
    due_at        BIGINT NOT NULL,
    started_at    BIGINT,
    ended_at      BIGINT,
    status        TEXT NOT NULL,
    reason        TEXT,
    owner_host    TEXT,
    owner_pid     BIGINT
);
CREATE INDEX schedule_rounds_by_schedule ON schedule_rounds (schedule, due_at);

CREATE TABLE round_runs (
    round_id TEXT NOT NULL,
    run_id   TEXT NOT NULL,
    PRIMARY KEY (round_id, run_id)
);

-- One value per rule, target and round: what the rule saw (null = no data, with why), the rounds' series that
-- regression rules and the trend pages read.
CREATE TABLE alert_observations (
    schedule  TEXT NOT NULL,
    rule      TEXT NOT NULL,
    target    TEXT NOT NULL,
    round_id  TEXT NOT NULL,
    at        BIGINT NOT NULL,
    value     DOUBLE PRECISION,
    run_id    TEXT,
    note      TEXT,
    PRIMARY KEY (schedule, rule, target, round_id)
);

-- The state machine of each rule × target (ok, pending, firing), its streaks and its open incidents.
CREATE TABLE alert_states (
    schedule            TEXT NOT NULL,
    rule                TEXT NOT NULL,
    target              TEXT NOT NULL,
    state               TEXT NOT NULL,
    breach_streak       INTEGER NOT NULL,
    clear_streak        INTEGER NOT NULL,
    no_data_streak      INTEGER NOT NULL,
    since_notice        INTEGER NOT NULL,
    incident_id         TEXT,
    no_data_incident_id TEXT,
    updated_at          BIGINT NOT NULL,
    PRIMARY KEY (schedule, rule, target)
);

-- An incident: opened when a rule fires for a target, closed when it resolves (kind: threshold, regression,
-- no_data). At most one open per rule × target × kind.
CREATE TABLE alert_incidents (
    incident_id    TEXT PRIMARY KEY,
    schedule       TEXT NOT NULL,
    rule           TEXT NOT NULL,
    target         TEXT NOT NULL,
    kind           TEXT NOT NULL,
    opened_at      BIGINT NOT NULL,
    fired_round    TEXT NOT NULL,
    resolved_at    BIGINT,
    resolved_round TEXT,
    first_value    DOUBLE PRECISION,
    worst_value    DOUBLE PRECISION,
    last_value     DOUBLE PRECISION
);
CREATE INDEX alert_incidents_by_schedule ON alert_incidents (schedule, opened_at);

-- Alert history: fired, reminder, resolved, with the value and the round.
CREATE TABLE alert_events (
    event_id    TEXT PRIMARY KEY,
    incident_id TEXT NOT NULL,
    schedule    TEXT NOT NULL,
    rule        TEXT NOT NULL,
    target      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    at          BIGINT NOT NULL,
    round_id    TEXT NOT NULL,
    value       DOUBLE PRECISION
);
CREATE INDEX alert_events_by_schedule ON alert_events (schedule, at);

-- The notification outbox: one message per channel, delivered with retries and backoff by whoever runs the
-- schedules; the channel is named (type and the variables holding its URL and secret), never its URL.
CREATE TABLE notify_outbox (
    message_id      TEXT PRIMARY KEY,
    schedule        TEXT NOT NULL,
    channel         TEXT NOT NULL,
    channel_type    TEXT NOT NULL,
    url_env         TEXT NOT NULL,
    secret_env      TEXT,
    format          TEXT,
    message_json    TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    attempts        INTEGER NOT NULL,
    status          TEXT NOT NULL,
    last_error      TEXT
);
CREATE INDEX notify_outbox_due ON notify_outbox (status, next_attempt_at);

-- Every delivery attempt: when, the HTTP status, and what went wrong (secrets masked).
CREATE TABLE notify_deliveries (
    message_id  TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    at          BIGINT NOT NULL,
    http_status INTEGER,
    outcome     TEXT NOT NULL,
    detail      TEXT,
    PRIMARY KEY (message_id, attempt)
);
