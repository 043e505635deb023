-- Version 11: the target server's own metrics during a sweep point (issue 19): server_metrics.json's object (the
-- engine, the summary and the once-a-second series of running, waiting, KV-cache use, prefix-cache counters and
-- generated tokens), or NULL when the point had no server metrics.
ALTER TABLE run_points ADD COLUMN server_metrics_json TEXT;
