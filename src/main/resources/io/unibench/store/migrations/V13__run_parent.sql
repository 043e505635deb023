-- Version 13: a service run of several providers (issue 17). The service queues one run; its first provider records
-- into it and every other provider's stored run (one per provider, as `unibench run --config` stores them) names it
-- here, so the queued run's page, events and cancel reach them all. NULL for every other run.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX runs_parent ON runs (parent_run_id);
