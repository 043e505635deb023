package io.unibench.metrics;

import io.unibench.Moments;

/**
 * When a request's moments happened: raw {@link System#nanoTime()} readings of the process, taken by the client at
 * byte arrival, {@link Moments#ABSENT} for a moment that did not happen.
 *
 * @param stream           the response was a stream; for a JSON reply the first chunk and first token are its whole
 *                         body, and it has no TTFT, TPOT or ITL of its own
 * @param startEpochMillis wall-clock time the request was started, for timelines only
 * @param scheduledNanos   when the open-loop schedule wanted this request sent; absent in closed loop
 * @param startNanos       just before the connection is acquired and the request written
 * @param headersNanos     response status line and headers arrived
 * @param firstChunkNanos  first SSE data event (evalscope's "TTFT"), or the full body when not streamed
 * @param firstTokenNanos  first chunk carrying content or reasoning text (our TTFT); a role-only chunk is not a token
 * @param endNanos         last byte of the response ({@code [DONE]} or end of body), or the moment of failure
 * @param tokenChunkNanos  arrival of every chunk that carried content or reasoning, in order; empty when not streamed
 * @param firstContentNanos first chunk carrying answer text, after any reasoning (our TTFCT); equal to
 *                         {@code firstTokenNanos} for a reply without reasoning, absent when no answer text arrived
 *                         (or, for a run stored before it was kept, not known)
 */
public record Timing(boolean stream, long startEpochMillis, long scheduledNanos, long startNanos, long headersNanos,
                     long firstChunkNanos, long firstTokenNanos, long endNanos, long[] tokenChunkNanos,
                     long firstContentNanos) {

    /** The moments of a reply without reasoning: its first content is its first token. */
    public Timing(boolean stream, long startEpochMillis, long scheduledNanos, long startNanos, long headersNanos,
                  long firstChunkNanos, long firstTokenNanos, long endNanos, long[] tokenChunkNanos) {
        this(stream, startEpochMillis, scheduledNanos, startNanos, headersNanos, firstChunkNanos, firstTokenNanos,
                endNanos, tokenChunkNanos, firstTokenNanos);
    }

    /** True when answer text came after other output (reasoning): the first content is not the first token. */
    public boolean reasonedFirst() {
        return firstContentNanos != firstTokenNanos;
    }
}
