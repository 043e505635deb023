package io.unibench.sim;

import java.util.Locale;

/**
 * The faults the simulator can inject (seed 003: a gateway must survive each of them). The {@link #id()} is the
 * {@code type} of the {@code X-Unibench-Fault} header and the suffix of the {@code --fault-rate-ID} flag.
 */
public enum FaultKind {
    /** HTTP 429 with an insufficient-quota message and {@code Retry-After}. */
    HTTP_429("429", "HTTP 429 with a quota message and Retry-After"),
    HTTP_500("500", "HTTP 500 InternalServerError"),
    /** Looks like a proxy in front of a dead backend: an HTML body, not JSON. */
    HTTP_502("502", "HTTP 502 with an HTML body, as a proxy sends it"),
    HTTP_503("503", "HTTP 503 'overloaded' with Retry-After"),
    HTTP_401("401", "HTTP 401 invalid API key"),
    /** A gateway that moved the API: unibench does not follow redirects. */
    REDIRECT("redirect", "HTTP 302 Found with a Location header, as a moved gateway sends it"),
    /** A server that ignores {@code stream: true}: the client must record the reply as not streamed. */
    JSON_REPLY("json-reply", "a streamed request answered with one complete JSON body (Content-Type application/json)"),
    UNKNOWN_MODEL("unknown-model", "HTTP 400: model does not exist, listing the served models"),
    CONTENT_POLICY("content-policy", "HTTP 400 content-policy refusal"),
    ERROR_BODY("error-body", "HTTP 200 whose JSON body is an error object"),
    EMPTY_CHOICES("empty-choices", "HTTP 200 with \"choices\": [] (stream: one such chunk, then [DONE])"),
    MALFORMED_JSON("malformed-json", "a data event with invalid JSON after N chunks (non-stream: a cut body)"),
    MALFORMED_SSE("malformed-sse", "every frame without its 'data:' field name (non-stream: a cut body)"),
    MISSING_DONE("missing-done", "the stream ends without data: [DONE]"),
    FAIL_MIDSTREAM("fail-midstream", "after N chunks an SSE error event, then [DONE] (non-stream: HTTP 500)"),
    DISCONNECT("disconnect", "after N chunks the connection is closed abruptly"),
    HANG_BEFORE_HEADERS("hang-before-headers", "no reply at all; the connection stays open"),
    HANG_AFTER_HEADERS("hang-after-headers", "the response head, then silence"),
    SLOW_FIRST_CHUNK("slow-first-chunk", "the first chunk waits first-chunk-delay-ms longer"),
    SLOW_CHUNKS("slow-chunks", "every chunk waits chunk-delay-ms after the previous one");

    private final String id;
    private final String description;

    FaultKind(String id, String description) {
        this.id = id;
        this.description = description;
    }

    public String id() { return id; }

    public String description() { return description; }

    /** By id ("429", "disconnect", ...); underscores are accepted for dashes. Null if unknown. */
    public static FaultKind byId(String id) {
        String norm = id.toLowerCase(Locale.ROOT).replace('_', '-');
        for (FaultKind k : values()) if (k.id.equals(norm)) return k;
        return null;
    }

    /** Faults answered at once, before the request reaches the scheduler. */
    boolean immediate() {
        return switch (this) {
            case HTTP_429, HTTP_500, HTTP_502, HTTP_503, HTTP_401, REDIRECT, UNKNOWN_MODEL, CONTENT_POLICY, ERROR_BODY,
                 EMPTY_CHOICES, HANG_BEFORE_HEADERS, HANG_AFTER_HEADERS -> true;
            default -> false;
        };
    }
}
