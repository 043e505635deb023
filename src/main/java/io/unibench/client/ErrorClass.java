package io.unibench.client;

/** Why a request failed. The label is what reports, JSON files and the store show. */
public enum ErrorClass {
    HTTP_400("http_400"),
    HTTP_401("http_401"),
    HTTP_403("http_403"),
    HTTP_404("http_404"),
    HTTP_429("http_429"),
    /** Any other 4xx status. */
    HTTP_4XX("http_4xx"),
    HTTP_5XX("http_5xx"),
    /** A redirect: the client does not follow one (a benchmark must measure the URL it was given). */
    HTTP_3XX("http_3xx"),
    /** A status outside 2xx–5xx as the final reply (an informational 1xx, a non-standard code). */
    HTTP_OTHER("http_other"),
    TIMEOUT_CONNECT("timeout_connect"),
    /** No byte arrived for longer than the read timeout (the gap between reads, not a total). */
    TIMEOUT_READ("timeout_read"),
    TIMEOUT_TOTAL("timeout_total"),
    CONNECTION_REFUSED("connection_refused"),
    /** The connection was reset or closed before the reply was complete. */
    CONNECTION_RESET("connection_reset"),
    /**
     * The TLS handshake or a TLS record failed: a certificate that is not trusted, expired or names another host, no
     * common protocol or cipher, or a server that does not speak TLS on an {@code https://} URL.
     */
    TLS_ERROR("tls_error"),
    /** Malformed SSE framing or JSON. */
    PROTOCOL_ERROR("protocol_error"),
    /** HTTP 200 whose body carries an {@code error} object, no choices, or no end marker. */
    BUSINESS_ERROR("business_error"),
    /**
     * A complete, well-formed reply that broke one of the scenario's {@code validate} rules (empty choices, content
     * not matching a regex, output that is not JSON). Kept apart from {@link #BUSINESS_ERROR}, which the server
     * itself signalled: this one is the benchmark judging the answer.
     */
    VALIDATION_ERROR("validation_error"),
    /** Cancelled by the benchmark (Ctrl-C, run stopped). */
    CANCELLED("cancelled");

    private final String label;

    ErrorClass(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The class of a non-2xx HTTP status. */
    public static ErrorClass ofStatus(int status) {
        return switch (status) {
            case 400 -> HTTP_400;
            case 401 -> HTTP_401;
            case 403 -> HTTP_403;
            case 404 -> HTTP_404;
            case 429 -> HTTP_429;
            default -> status >= 500 && status <= 599 ? HTTP_5XX : status >= 400 && status <= 499 ? HTTP_4XX
                    : status >= 300 && status <= 399 ? HTTP_3XX : HTTP_OTHER;
        };
    }

    @Override
    public String toString() {
        return label;
    }
}
