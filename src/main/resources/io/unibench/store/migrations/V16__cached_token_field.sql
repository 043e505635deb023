-- Version 16: where a reply's cached-token figure came from (issue 20): the member of the server's reply it was read
-- from (prompt_tokens_details.cached_tokens, input_tokens_details.cached_tokens, prompt_cache_hit_tokens,
-- cache_read_input_tokens, timings.cache_n), so a stored run reports the same "Cached Tokens Source" as the run did.
-- NULL for the client's estimate, when there was no figure, and for rows stored before this version ("server").
ALTER TABLE requests ADD COLUMN cached_token_field TEXT;
