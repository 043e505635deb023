package io.unibench.client;

import io.unibench.Moments;
import io.unibench.Secrets;

/**
 * What one request produced on the wire. Timestamps are {@link System#nanoTime()} readings taken when the
 * bytes arrived (in the I/O thread, before any handoff); {@link Moments#ABSENT} when the moment did not happen.
 * A failure is a result with {@link #errorClass()} set, never an exception.
 *
 * @param stream          the response was a server-sent event stream
 * @param startNanos      just before the connection is acquired and the request written
 * @param headersNanos    status line and headers received
 * @param firstChunkNanos first SSE data event of any kind; for a non-streamed reply, the end of the body
 * @param firstTokenNanos first data event whose choice carries non-empty content, reasoning or text
 * @param endNanos        last byte ({@code [DONE]}, end of body) or the moment the failure was seen
 * @param tokenChunkNanos arrival of every data event carrying non-empty content/reasoning/text, in order
 * @param httpStatus      HTTP status; 0 when none was received
 * @param content         concatenated {@code delta.content} / {@code message.content} / {@code text}
 * @param reasoning       concatenated {@code reasoning_content} (also {@code reasoning}), counted as output
 * @param usage           the server's usage (last one seen), or {@code null}
 * @param finishReason    {@code finish_reason} of the first choice, or {@code null}
 * @param errorClass      {@code null} on success
 * @param errorMessage    short message for failures (server's error message when it sent one), secrets stripped
 * @param wire            connection and transfer moments (DNS, connect, TLS, written, first byte)
 * @param timings         the server's own {@code timings} (llama.cpp), or {@code null} when it sent none
 * @param errorType       on failure, the error object's type in the server's words (e.g.
 *                        {@code exceed_context_size_error}); {@code null} when it named none or sent no error object
 * @param firstContentNanos first data event carrying answer text (content, text, output text), after any reasoning;
 *                        equal to {@code firstTokenNanos} for a reply without reasoning, {@link Moments#ABSENT} when no
 *                        answer text arrived; for a non-streamed reply, the end of the body
 * @param retryAfter      the response's {@code Retry-After} as sent (a 429/503's advice), {@code null} when absent
 * @param retries         the times the request was sent again after a refusal (the engine's retry policy; 0 = sent
 *                        once); the moments are the last attempt's
 * @param retryWaitNanos  the time waited before those retries, in total
 */
public record ClientResult(
        boolean stream,
        long startNanos,
        long headersNanos,
        long firstChunkNanos,
        long firstTokenNanos,
        long endNanos,
        long[] tokenChunkNanos,
        int httpStatus,
        String content,
        String reasoning,
        Usage usage,
        String finishReason,
        ErrorClass errorClass,
        String errorMessage,
        WireTimes wire,
        Timings timings,
        String errorType,
        long firstContentNanos,
        String retryAfter,
        int retries,
        long retryWaitNanos) {

    public ClientResult {
        if (wire == null) wire = WireTimes.NONE;
    }

    /** A result sent once. */
    public ClientResult(boolean stream, long startNanos, long headersNanos, long firstChunkNanos, long firstTokenNanos,
                        long endNanos, long[] tokenChunkNanos, int httpStatus, String content, String reasoning,
                        Usage usage, String finishReason, ErrorClass errorClass, String errorMessage, WireTimes wire,
                        Timings timings, String errorType, long firstContentNanos, String retryAfter) {
        this(stream, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, httpStatus,
                content, reasoning, usage, finishReason, errorClass, errorMessage, wire, timings, errorType,
                firstContentNanos, retryAfter, 0, 0);
    }

    /** This result as the last of {@code retries + 1} attempts, after {@code waitNanos} of waiting in all. */
    public ClientResult withRetries(int retries, long waitNanos) {
        return new ClientResult(stream, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos,
                tokenChunkNanos, httpStatus, content, reasoning, usage, finishReason, errorClass, errorMessage, wire,
                timings, errorType, firstContentNanos, retryAfter, retries, waitNanos);
    }

    /** A result without the server's timings and error type; its first content is its first token unless it has reasoning. */
    public ClientResult(boolean stream, long startNanos, long headersNanos, long firstChunkNanos, long firstTokenNanos,
                        long endNanos, long[] tokenChunkNanos, int httpStatus, String content, String reasoning,
                        Usage usage, String finishReason, ErrorClass errorClass, String errorMessage, WireTimes wire) {
        this(stream, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, httpStatus,
                content, reasoning, usage, finishReason, errorClass, errorMessage, wire, null, null,
                reasoning == null || reasoning.isEmpty() ? firstTokenNanos : Moments.ABSENT, null);
    }

    /** A result without connection timings. */
    public ClientResult(boolean stream, long startNanos, long headersNanos, long firstChunkNanos, long firstTokenNanos,
                        long endNanos, long[] tokenChunkNanos, int httpStatus, String content, String reasoning,
                        Usage usage, String finishReason, ErrorClass errorClass, String errorMessage) {
        this(stream, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos, tokenChunkNanos, httpStatus,
                content, reasoning, usage, finishReason, errorClass, errorMessage, WireTimes.NONE);
    }

    /** This result turned into a failure (a response that broke a validation rule); timings and text are kept. */
    public ClientResult asFailure(ErrorClass cls, String message) {
        return new ClientResult(stream, startNanos, headersNanos, firstChunkNanos, firstTokenNanos, endNanos,
                tokenChunkNanos, httpStatus, content, reasoning, usage, finishReason, cls, Secrets.redact(message),
                wire, timings, null, firstContentNanos, retryAfter, retries, retryWaitNanos);
    }

    public boolean success() {
        return errorClass == null;
    }

    /** Output text as the model produced it: reasoning, then content (what multi-turn feeds back). */
    public String generatedText() {
        return reasoning.isEmpty() ? content : reasoning + content;
    }
}
