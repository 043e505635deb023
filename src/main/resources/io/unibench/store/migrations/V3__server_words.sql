-- Version 3: what the server said in its own words. error_type: a failure's error object type (llama.cpp
-- exceed_context_size_error, vLLM server_error, ...). server_*: llama.cpp's per-reply timings object (prompt_n,
-- prompt_ms, predicted_n, predicted_ms, cache_n); all NULL when the server sent none. Rows stored before this
-- version read back with NULL (nothing said).
ALTER TABLE requests ADD COLUMN error_type TEXT;
ALTER TABLE requests ADD COLUMN server_prompt_n INTEGER;
ALTER TABLE requests ADD COLUMN server_prompt_ms DOUBLE PRECISION;
ALTER TABLE requests ADD COLUMN server_predicted_n INTEGER;
ALTER TABLE requests ADD COLUMN server_predicted_ms DOUBLE PRECISION;
ALTER TABLE requests ADD COLUMN server_cache_n INTEGER;
