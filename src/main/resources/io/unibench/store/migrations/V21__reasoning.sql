-- Version 21: reasoning models' two TTFTs (issue 30 §3): when the first content (answer) token arrived, after any
-- reasoning (nanoseconds since the point's start, as first_token_ns; NULL when no answer text arrived, and read as
-- first_token_ns for rows stored before this version), and the reply's reasoning tokens (-1 unknown;
-- NULL for rows stored before this version, read as 0).
ALTER TABLE requests ADD COLUMN first_content_ns BIGINT;
ALTER TABLE requests ADD COLUMN reasoning_tokens INTEGER;
