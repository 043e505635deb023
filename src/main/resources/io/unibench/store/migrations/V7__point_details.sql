-- Version 7: what the web pages show of a sweep point without reading its requests (issue 17): the per-trace and
-- per-turn-position tables, the phases, and the workload timeline down-sampled to at most 2,000 points.
ALTER TABLE run_points ADD COLUMN traces_json TEXT;
ALTER TABLE run_points ADD COLUMN turn_positions_json TEXT;
ALTER TABLE run_points ADD COLUMN phases_json TEXT;
ALTER TABLE run_points ADD COLUMN timeline_json TEXT;
