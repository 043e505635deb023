package io.unibench.client;

import java.nio.charset.StandardCharsets;

/**
 * What {@link LlmClient#raw} got back: the usual {@link ClientResult} (timings, status, the error class when the
 * request failed or the reply is not a completion) and the reply's body bytes as they arrived.
 *
 * @param result what happened on the wire
 * @param body   the reply's body as sent (a stream's events with their framing), cut at 16 MiB; empty when none came
 */
public record RawReply(ClientResult result, byte[] body) {
    /** The HTTP status; 0 when no reply came (refused, reset, timed out: {@link ClientResult#errorClass()} says). */
    public int status() {
        return result.httpStatus();
    }

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The {@code Retry-After} header as sent, or null. */
    public String retryAfter() {
        return result.retryAfter();
    }
}
