package io.unibench.metrics;

import io.unibench.Moments;
import static io.unibench.Moments.ABSENT;

/**
 * Everything measured about one request (one turn of a conversation): the single source of every number the tool
 * reports. Failed requests are records too, with an {@link Outcome#errorClass()}.
 *
 * <p>The values come in groups, each a small record: where the request stands ({@link Position}), when its moments
 * happened ({@link Timing}: {@link System#nanoTime()} readings, {@link io.unibench.Moments#ABSENT} for a moment that
 * did not happen), its token counts ({@link Tokens}, -1 when unknown), how it ended ({@link Outcome}), its
 * connection and transfer moments ({@link PhaseTimes}) and the server's own timing ({@link ServerTimings}). The
 * figures computed from several groups (latency, TTFT, TPOT, ITL, queue delay) are methods of this record.
 *
 * <p>Making one: {@code new RequestRecord(position, timing, tokens, outcome, phases, serverTimings)}, e.g.
 * {@code new RequestRecord(Position.single(i, id), new Timing(...), Tokens.counted(p, c, TokenSource.SERVER),
 * Outcome.ok(200, "stop"), PhaseTimes.NONE, null)}; tests build them by name with {@code metrics.TestRecords}.
 * Changing one group: {@link #withPosition}, {@link #withTiming}, {@link #withTokens}, {@link #withOutcome},
 * {@link #withPhases}, {@link #withServerTimings}, e.g. {@code r.withTokens(r.tokens().withCached(16, SERVER))}.
 * A new value belongs in the group it describes, or in a new small record added as a component at the end.
 *
 * @param position      index, request id and conversation position
 * @param timing        the request's moments and text-chunk arrivals
 * @param tokens        token counts and where they came from
 * @param outcome       success or the error, HTTP status, finish reason
 * @param phases        connection and transfer moments (DNS, connect, TLS, written, first byte); see {@link Phase};
 *                      {@code null} is read as {@link PhaseTimes#NONE}
 * @param serverTimings the server's own account of its timing (llama.cpp {@code timings}); {@code null} when it sent
 *                      none
 */
public record RequestRecord(
        Position position,
        Timing timing,
        Tokens tokens,
        Outcome outcome,
        PhaseTimes phases,
        ServerTimings serverTimings) {

    private static final double NANOS_PER_SECOND = 1e9;

    public RequestRecord {
        if (phases == null) phases = PhaseTimes.NONE;
    }

    /** Where token counts came from; anything but {@code SERVER} is labelled in reports. */
    public enum TokenSource {
        /** The server's {@code usage} object. */
        SERVER,
        /**
         * The server's own counts without a {@code usage}: llama.cpp's {@code timings} ({@code prompt_n + cache_n}
         * prompt tokens, {@code predicted_n} generated). Exact, as the usage's.
         */
        SERVER_TIMINGS,
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

    public RequestRecord withPosition(Position p) {
        return new RequestRecord(p, timing, tokens, outcome, phases, serverTimings);
    }

    public RequestRecord withTiming(Timing t) {
        return new RequestRecord(position, t, tokens, outcome, phases, serverTimings);
    }

    public RequestRecord withTokens(Tokens t) {
        return new RequestRecord(position, timing, t, outcome, phases, serverTimings);
    }

    public RequestRecord withOutcome(Outcome o) {
        return new RequestRecord(position, timing, tokens, o, phases, serverTimings);
    }

    public RequestRecord withPhases(PhaseTimes p) {
        return new RequestRecord(position, timing, tokens, outcome, p, serverTimings);
    }

    public RequestRecord withServerTimings(ServerTimings t) {
        return new RequestRecord(position, timing, tokens, outcome, phases, t);
    }

    /** This record as a turn of a conversation, with its cached-token figure. */
    public RequestRecord withTurn(String conversation, int turn, boolean last, int cached, CacheSource cacheSource) {
        return new RequestRecord(position.inConversation(conversation, turn, last), timing,
                tokens.withCached(cached, cacheSource), outcome, phases, serverTimings);
    }

    /** This record with the prompt's target and synthesized lengths (-1 = none). */
    public RequestRecord withPromptLengths(int target, int synthesized) {
        return withTokens(tokens.withPromptLengths(target, synthesized));
    }

    /** True when the reply is complete and valid (every aggregation's first question). */
    public boolean success() {
        return outcome.success();
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
    public double latencySeconds() {
        return seconds(timing.startNanos(), timing.endNanos());
    }

    /**
     * Time to first token in seconds: first chunk carrying text. For a non-streamed reply, the whole latency
     * (evalscope's convention). NaN when no token arrived.
     */
    public double ttftSeconds() {
        if (!timing.stream()) return latencySeconds();
        return seconds(timing.startNanos(), timing.firstTokenNanos());
    }

    /**
     * Time to first content token in seconds (TTFCT): the first chunk carrying answer text, after any reasoning; the
     * same as {@link #ttftSeconds} for a reply without reasoning, and for a non-streamed reply the whole latency. NaN
     * when no answer text arrived.
     */
    public double ttfctSeconds() {
        if (!timing.stream()) return latencySeconds();
        return seconds(timing.startNanos(), timing.firstContentNanos());
    }

    /**
     * Time per output token of the answer in seconds: (latency − TTFCT) / (answer tokens − 1), the answer's tokens
     * being the completion less the reasoning tokens ({@link Tokens#answer}); for a reply without reasoning,
     * {@link #tpotSeconds}. NaN when the answer has one token or fewer, or its count is unknown (reasoning arrived
     * and the server did not say how many tokens it took).
     */
    public double answerTpotSeconds() {
        if (!timing.stream() || timing.firstContentNanos() == ABSENT) return Double.NaN;
        int answer = tokens.answer();
        if (answer <= 1) return Double.NaN;
        return (latencySeconds() - ttfctSeconds()) / (answer - 1);
    }

    /** Time to the first SSE data event of any kind (what evalscope calls TTFT). NaN when none arrived. */
    public double firstChunkSeconds() {
        if (!timing.stream()) return latencySeconds();
        return seconds(timing.startNanos(), timing.firstChunkNanos());
    }

    /**
     * Time per output token in seconds: (latency − TTFT) / (completion − 1). NaN when the reply has one token
     * or fewer: there is no inter-token interval to measure, and averaging in a zero (as evalscope does)
     * would make short replies look infinitely fast.
     */
    public double tpotSeconds() {
        int completion = tokens.completion();
        if (!timing.stream() || completion <= 1 || timing.firstTokenNanos() == ABSENT) return Double.NaN;
        return (latencySeconds() - ttftSeconds()) / (completion - 1);
    }

    /** Delay between the open-loop schedule and the actual send (coordinated omission); NaN in closed loop. */
    public double queueDelaySeconds() {
        return seconds(timing.scheduledNanos(), timing.startNanos());
    }

    /** Latency measured from the scheduled send time, queueing included; NaN in closed loop. */
    public double scheduledLatencySeconds() {
        return seconds(timing.scheduledNanos(), timing.endNanos());
    }

    /** TTFT measured from the scheduled send time, queueing included; NaN in closed loop. */
    public double scheduledTtftSeconds() {
        if (!timing.stream()) return scheduledLatencySeconds();
        return seconds(timing.scheduledNanos(), timing.firstTokenNanos());
    }

    /** Number of inter-chunk intervals between text-carrying chunks. */
    public int interChunkCount() {
        return Math.max(0, timing.tokenChunkNanos().length - 1);
    }

    /** The i-th inter-chunk interval (between text chunk i and i+1) in seconds. */
    public double interChunkSeconds(int i) {
        long[] chunks = timing.tokenChunkNanos();
        return (chunks[i + 1] - chunks[i]) / NANOS_PER_SECOND;
    }

    /**
     * Output tokens carried per chunk after the first, (completion − 1) / (chunks − 1): 1 for a server that
     * streams token by token, more under speculative decoding or chunked streaming. NaN when undefined.
     */
    public double tokensPerChunk() {
        int completion = tokens.completion();
        int chunks = timing.tokenChunkNanos().length;
        if (completion <= 1 || chunks <= 1) return Double.NaN;
        return (completion - 1) / (double) (chunks - 1);
    }

    private static double seconds(long from, long to) {
        if (from == ABSENT || to == ABSENT) return Double.NaN;
        return (to - from) / NANOS_PER_SECOND;
    }
}
