package io.unibench.metrics;

/**
 * Everything measured about one request (one turn of a conversation): the single source of every
 * number the tool reports. Failed requests are records too, with an {@link #errorClass()}.
 *
 * <p>Times are raw {@link System#nanoTime()} readings of the process, taken by the client at byte arrival;
 * {@link #ABSENT} marks a moment that did not happen (no first token on a failed request, no schedule
 * without {@code --rate}). Token counts are {@code -1} when unknown.
 *
 * @param index             dispatch sequence number within the run, from 0
 * @param requestId         unique id of the request (also sent as {@code X-Request-Id})
 * @param conversationId    conversation (trace) id, or {@code null} for single-turn requests
 * @param turnIndex         0-based turn within the conversation; 0 for single-turn
 * @param lastTurn          the conversation ends with this turn: its last turn, {@code --max-turns} reached, or this
 *                          turn failed (the conversation is abandoned); false for single-turn
 * @param stream            whether the request asked for a streamed response
 * @param startEpochMillis  wall-clock time the request was started, for timelines only
 * @param scheduledNanos    when the open-loop schedule wanted this request sent; {@link #ABSENT} in closed loop
 * @param startNanos        just before the connection is acquired and the request written
 * @param headersNanos      response status line and headers arrived
 * @param firstChunkNanos   first SSE data event (evalscope's "TTFT"), or the full body when not streamed
 * @param firstTokenNanos   first chunk carrying content or reasoning text (our TTFT); a role-only chunk is not a token
 * @param endNanos          last byte of the response ({@code [DONE]} or end of body), or the moment of failure
 * @param tokenChunkNanos   arrival of every chunk that carried content or reasoning, in order; empty when not streamed
 * @param promptTokens      prompt tokens, from the server's usage when given, else counted by the client
 * @param completionTokens  completion tokens, same sources
 * @param cachedTokens      prompt tokens served from the prefix cache: the server's figure when it reported one;
 *                          in multi-turn otherwise the client's estimate (previous turn's prompt + completion tokens,
 *                          0 on the first turn); -1 when unknown
 * @param cachedTokenSource where {@code cachedTokens} came from; {@code null} when unknown
 * @param tokenSource       where the token counts came from
 * @param success           true when the reply is complete and valid
 * @param errorClass        {@code null} on success, else one of {@code http_400 … cancelled}
 * @param httpStatus        HTTP status, 0 when no response arrived
 * @param errorMessage      short message, secrets stripped; {@code null} on success
 * @param finishReason      {@code finish_reason} of the reply, when given
 * @param phases            connection and transfer moments (DNS, connect, TLS, written, first byte); see {@link Phase}
 * @param promptTargetTokens tokens the dataset aimed the prompt at (multi-turn: this turn's new message); -1 none
 * @param promptSynthTokens  tokens of that prompt text as the client's tokenizer counts it; -1 unknown. Together
 *                           they show where synthesized prompts missed their length (evalscope's re-tokenization)
 * @param serverTimings      the server's own account of its timing (llama.cpp {@code timings}); {@code null} when
 *                           it sent none
 * @param errorType          on failure, the error object's type in the server's words ({@code
 *                           exceed_context_size_error}, {@code server_error}, ...) beside {@code errorClass}; null
 *                           when the server named none
 */
public record RequestRecord(
        long index,
        String requestId,
        String conversationId,
        int turnIndex,
        boolean lastTurn,
        boolean stream,
        long startEpochMillis,
        long scheduledNanos,
        long startNanos,
        long headersNanos,
        long firstChunkNanos,
        long firstTokenNanos,
        long endNanos,
        long[] tokenChunkNanos,
        int promptTokens,
        int completionTokens,
        int cachedTokens,
        CacheSource cachedTokenSource,
        TokenSource tokenSource,
        boolean success,
        String errorClass,
        int httpStatus,
        String errorMessage,
        String finishReason,
        PhaseTimes phases,
        int promptTargetTokens,
        int promptSynthTokens,
        ServerTimings serverTimings,
        String errorType) {

    public static final long ABSENT = Long.MIN_VALUE;

    public RequestRecord {
        if (phases == null) phases = PhaseTimes.NONE;
    }

    /** A record without the server's timings and error type. */
    public RequestRecord(long index, String requestId, String conversationId, int turnIndex, boolean lastTurn,
                         boolean stream, long startEpochMillis, long scheduledNanos, long startNanos, long headersNanos,
                         long firstChunkNanos, long firstTokenNanos, long endNanos, long[] tokenChunkNanos,
                         int promptTokens, int completionTokens, int cachedTokens, CacheSource cachedTokenSource,
                         TokenSource tokenSource, boolean success, String errorClass, int httpStatus,
                         String errorMessage, String finishReason, PhaseTimes phases, int promptTargetTokens,
                         int promptSynthTokens) {
        this(index, requestId, conversationId, turnIndex, lastTurn, stream, startEpochMillis, scheduledNanos,
                startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, promptTokens,
                completionTokens, cachedTokens, cachedTokenSource, tokenSource, success, errorClass, httpStatus,
                errorMessage, finishReason, phases, promptTargetTokens, promptSynthTokens, null, null);
    }

    /** A record without connection phases and prompt-length figures. */
    public RequestRecord(long index, String requestId, String conversationId, int turnIndex, boolean lastTurn,
                         boolean stream, long startEpochMillis, long scheduledNanos, long startNanos, long headersNanos,
                         long firstChunkNanos, long firstTokenNanos, long endNanos, long[] tokenChunkNanos,
                         int promptTokens, int completionTokens, int cachedTokens, CacheSource cachedTokenSource,
                         TokenSource tokenSource, boolean success, String errorClass, int httpStatus,
                         String errorMessage, String finishReason) {
        this(index, requestId, conversationId, turnIndex, lastTurn, stream, startEpochMillis, scheduledNanos,
                startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, promptTokens,
                completionTokens, cachedTokens, cachedTokenSource, tokenSource, success, errorClass, httpStatus,
                errorMessage, finishReason, PhaseTimes.NONE, -1, -1);
    }

    /** This record with the prompt's target and synthesized lengths (-1 = none). */
    public RequestRecord withPromptLengths(int target, int synthesized) {
        return new RequestRecord(index, requestId, conversationId, turnIndex, lastTurn, stream, startEpochMillis,
                scheduledNanos, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos,
                promptTokens, completionTokens, cachedTokens, cachedTokenSource, tokenSource, success, errorClass,
                httpStatus, errorMessage, finishReason, phases, target, synthesized, serverTimings, errorType);
    }
    private static final double NANOS_PER_SECOND = 1e9;

    /** Where token counts came from; anything but {@code SERVER} is labelled in reports. */
    public enum TokenSource {
        /** The server's {@code usage} object. */
        SERVER,
        /** Counted by the client with a real tokenizer. */
        TOKENIZER,
        /** Estimated from characters; shown as an estimate. */
        ESTIMATE
    }

    /** Where a cached-token figure came from. */
    public enum CacheSource {
        /** {@code usage.prompt_tokens_details.cached_tokens} of the server. */
        SERVER,
        /**
         * The client's estimate in multi-turn: the history's tokens (previous turn's prompt + completion), the upper
         * bound a prefix cache could serve; shown as estimated.
         */
        ESTIMATE
    }

    /** True for the first turn of a conversation; false for single-turn requests. */
    public boolean firstTurn() {
        return conversationId != null && turnIndex == 0;
    }

    /** This record as a turn of a conversation, with its cached-token figure. */
    public RequestRecord withTurn(String conversation, int turn, boolean last, int cached, CacheSource cacheSource) {
        return new RequestRecord(index, requestId, conversation, turn, last, stream, startEpochMillis, scheduledNanos,
                startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, promptTokens,
                completionTokens, cached, cacheSource, tokenSource, success, errorClass, httpStatus, errorMessage,
                finishReason, phases, promptTargetTokens, promptSynthTokens, serverTimings, errorType);
    }

    /**
     * True when the request was sent twice: its first attempt went out on a pooled connection the server had already
     * closed and failed before any response byte. Its start and every latency count from the second attempt; the
     * wasted one is {@link Phase#STALE_ATTEMPT}.
     */
    public boolean retriedStaleConnection() {
        return phases.retriedStaleConnection();
    }

    /** End-to-end latency in seconds, from start to last byte. */
    /** The error class of a request the benchmark's stop (Ctrl-C) cancelled while it was in flight. */
    public static final String CANCELLED = "cancelled";

    /** Cancelled by the benchmark's stop: it has no outcome, so it is neither a success nor a failure. */
    public boolean cancelled() {
        return !success && CANCELLED.equals(errorClass);
    }

    public double latencySeconds() {
        return seconds(startNanos, endNanos);
    }

    /**
     * Time to first token in seconds: first chunk carrying text. For a non-streamed reply, the whole latency
     * (evalscope's convention). NaN when no token arrived.
     */
    public double ttftSeconds() {
        if (!stream) return latencySeconds();
        return seconds(startNanos, firstTokenNanos);
    }

    /** Time to the first SSE data event of any kind (what evalscope calls TTFT). NaN when none arrived. */
    public double firstChunkSeconds() {
        if (!stream) return latencySeconds();
        return seconds(startNanos, firstChunkNanos);
    }

    /**
     * Time per output token in seconds: (latency − TTFT) / (completion − 1). NaN when the reply has one token
     * or fewer: there is no inter-token interval to measure, and averaging in a zero (as evalscope does)
     * would make short replies look infinitely fast.
     */
    public double tpotSeconds() {
        if (!stream || completionTokens <= 1 || firstTokenNanos == ABSENT) return Double.NaN;
        return (latencySeconds() - ttftSeconds()) / (completionTokens - 1);
    }

    /** Delay between the open-loop schedule and the actual send (coordinated omission); NaN in closed loop. */
    public double queueDelaySeconds() {
        return seconds(scheduledNanos, startNanos);
    }

    /** Latency measured from the scheduled send time, queueing included; NaN in closed loop. */
    public double scheduledLatencySeconds() {
        return seconds(scheduledNanos, endNanos);
    }

    /** TTFT measured from the scheduled send time, queueing included; NaN in closed loop. */
    public double scheduledTtftSeconds() {
        if (!stream) return scheduledLatencySeconds();
        return seconds(scheduledNanos, firstTokenNanos);
    }

    /** Number of inter-chunk intervals between text-carrying chunks. */
    public int interChunkCount() {
        return Math.max(0, tokenChunkNanos.length - 1);
    }

    /** The i-th inter-chunk interval (between text chunk i and i+1) in seconds. */
    public double interChunkSeconds(int i) {
        return (tokenChunkNanos[i + 1] - tokenChunkNanos[i]) / NANOS_PER_SECOND;
    }

    /**
     * Output tokens carried per chunk after the first, (completion − 1) / (chunks − 1): 1 for a server that
     * streams token by token, more under speculative decoding or chunked streaming. NaN when undefined.
     */
    public double tokensPerChunk() {
        if (completionTokens <= 1 || tokenChunkNanos.length <= 1) return Double.NaN;
        return (completionTokens - 1) / (double) (tokenChunkNanos.length - 1);
    }

    private static double seconds(long from, long to) {
        if (from == ABSENT || to == ABSENT) return Double.NaN;
        return (to - from) / NANOS_PER_SECOND;
    }
}
