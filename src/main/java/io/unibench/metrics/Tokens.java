package io.unibench.metrics;

import io.unibench.metrics.RequestRecord.CacheSource;
import io.unibench.metrics.RequestRecord.TokenSource;

/**
 * A request's token counts; a count is {@code -1} when unknown.
 *
 * @param prompt       prompt tokens, from the server's usage when given, else counted by the client
 * @param completion   completion tokens, same sources
 * @param cached       prompt tokens served from the prefix cache: the server's figure when it reported one; in
 *                     multi-turn otherwise the client's estimate (previous turn's prompt + completion tokens, 0 on the
 *                     first turn)
 * @param cachedSource where {@code cached} came from; {@code null} when unknown
 * @param source       where the prompt and completion counts came from
 * @param promptTarget tokens the dataset aimed the prompt at (multi-turn: this turn's new message); -1 none
 * @param promptSynth  tokens of that prompt text as the client's tokenizer counts it; -1 unknown. Together they show
 *                     where synthesized prompts missed their length (evalscope's re-tokenization)
 * @param cachedField  for a {@link CacheSource#SERVER} figure, the reply's member it was read from
 *                     ({@code prompt_tokens_details.cached_tokens}, DeepSeek's {@code prompt_cache_hit_tokens},
 *                     llama.cpp's {@code timings.cache_n}, …); null when not known (runs stored before it was kept)
 * @param reasoning    the completion tokens spent on reasoning: the server's
 *                     {@code completion_tokens_details.reasoning_tokens} (the Responses API's
 *                     {@code output_tokens_details}); without it 0 when no reasoning text came, -1 (unknown) when some
 *                     did; counted by the client like the completion when the server sent no usage
 */
public record Tokens(int prompt, int completion, int cached, CacheSource cachedSource, TokenSource source,
                     int promptTarget, int promptSynth, String cachedField, int reasoning) {
    /** The label of the multi-turn client estimate among the cached figures' sources. */
    public static final String CLIENT_ESTIMATE = "client estimate";

    public Tokens {
        if (cachedSource != CacheSource.SERVER) cachedField = null;
    }

    /** Counts of a reply without reasoning. */
    public Tokens(int prompt, int completion, int cached, CacheSource cachedSource, TokenSource source,
                  int promptTarget, int promptSynth, String cachedField) {
        this(prompt, completion, cached, cachedSource, source, promptTarget, promptSynth, cachedField, 0);
    }

    /** Counts without the cached figure's member. */
    public Tokens(int prompt, int completion, int cached, CacheSource cachedSource, TokenSource source,
                  int promptTarget, int promptSynth) {
        this(prompt, completion, cached, cachedSource, source, promptTarget, promptSynth, null);
    }

    /** Counts from {@code source} without a cached figure or prompt-length target. */
    public static Tokens counted(int prompt, int completion, TokenSource source) {
        return new Tokens(prompt, completion, -1, null, source, -1, -1);
    }

    /** These counts with a cached-token figure ({@code -1} and {@code null}: unknown). */
    public Tokens withCached(int count, CacheSource from) {
        return new Tokens(prompt, completion, count, from, source, promptTarget, promptSynth, cachedField, reasoning);
    }

    /**
     * Where the cached figure came from, as reports name it: the server's member, "server" when it is not known,
     * {@link #CLIENT_ESTIMATE}; null without a figure.
     */
    public String cachedSourceLabel() {
        if (cached < 0 || cachedSource == null) return null;
        if (cachedSource == CacheSource.ESTIMATE) return CLIENT_ESTIMATE;
        return cachedField != null ? cachedField : Summary.SOURCE_SERVER;
    }

    /** These counts with the prompt's target and synthesized lengths (-1 = none). */
    public Tokens withPromptLengths(int target, int synthesized) {
        return new Tokens(prompt, completion, cached, cachedSource, source, target, synthesized, cachedField, reasoning);
    }

    /** The answer's tokens: the completion less its reasoning tokens; -1 when either is unknown. */
    public int answer() {
        if (completion < 0 || reasoning < 0) return -1;
        return Math.max(0, completion - reasoning);
    }

    /** True when the reply reasoned: reasoning tokens counted, or reasoning text whose tokens were not counted. */
    public boolean reasoned() {
        return reasoning != 0;
    }
}
