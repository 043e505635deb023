package io.unibench.metrics;

/**
 * How a request ended.
 *
 * @param success      true when the reply is complete and valid
 * @param errorClass   {@code null} on success, else one of {@code http_400 … cancelled}
 * @param httpStatus   HTTP status, 0 when no response arrived
 * @param errorMessage short message, secrets stripped; {@code null} on success
 * @param errorType    on failure, the error object's type in the server's words ({@code exceed_context_size_error},
 *                     {@code server_error}, ...) beside {@code errorClass}; null when the server named none
 * @param finishReason {@code finish_reason} of the reply, when given
 * @param retries      the times it was sent again after a refusal ({@code --retry-on}); its moments are the last
 *                     attempt's
 * @param retryWaitNanos the back-off waited before those retries, in total (ns)
 */
public record Outcome(boolean success, String errorClass, int httpStatus, String errorMessage, String errorType,
                      String finishReason, int retries, long retryWaitNanos) {

    /** An outcome of a request sent once. */
    public Outcome(boolean success, String errorClass, int httpStatus, String errorMessage, String errorType,
                   String finishReason) {
        this(success, errorClass, httpStatus, errorMessage, errorType, finishReason, 0, 0);
    }

    /** The error class of a request the benchmark's stop (Ctrl-C) cancelled while it was in flight. */
    public static final String CANCELLED = "cancelled";

    /** A complete, valid reply. */
    public static Outcome ok(int httpStatus, String finishReason) {
        return new Outcome(true, null, httpStatus, null, null, finishReason);
    }

    /** A failure of class {@code errorClass} (the server named no error type). */
    public static Outcome failed(String errorClass, int httpStatus, String errorMessage) {
        return new Outcome(false, errorClass, httpStatus, errorMessage, null, null);
    }

    /** Cancelled by the benchmark's stop: it has no outcome, so it is neither a success nor a failure. */
    public boolean cancelled() {
        return !success && CANCELLED.equals(errorClass);
    }
}
