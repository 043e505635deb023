-- A request sent again on a new connection after its pooled connection turned out closed (failed before any
-- response byte): when the wasted first attempt started, in ns since the point's start; NULL = sent once.
ALTER TABLE requests ADD COLUMN stale_start_ns BIGINT;
