-- Version 22: the run's verdict (issue 30 §1): "valid" when every point's numbers can be trusted, else the union of
-- its points' reasons ("load-not-delivered; too-few-samples"); NULL for runs stored before this version or merged
-- from shards. Each point's own verdict and the numbers that decided it are keys of its summary_json.
ALTER TABLE runs ADD COLUMN verdict TEXT;
