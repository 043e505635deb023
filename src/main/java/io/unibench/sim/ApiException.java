package io.unibench.sim;

import java.util.Map;

/**
 * A request the simulator refuses, answered as an OpenAI/vLLM error body
 * {@code {"error":{"message","type","param","code"}}}. Thrown only inside the simulator, never to its users.
 */
final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final Map<String, String> headers;

    ApiException(int status, String type, String message, String param) {
        this(status, type, message, param, null, Map.of());
    }

    /**
     * @param code    OpenAI's string code ("insufficient_quota", ...); null = the HTTP status as a number, as vLLM does
     * @param headers extra response headers (Retry-After, ...)
     */
    ApiException(int status, String type, String message, String param, String code, Map<String, String> headers) {
        super(message, null, false, false); // no stack trace: it is an answer, not a bug
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.headers = Map.copyOf(headers);
    }

    static ApiException badRequest(String param, String message) {
        return new ApiException(400, "BadRequestError", message, param);
    }

    static ApiException notFound(String message) {
        return new ApiException(404, "NotFoundError", message, null);
    }

    int status() { return status; }

    String type() { return type; }

    /** The request field at fault, or null. */
    String param() { return param; }

    /** OpenAI's string code, or null for the numeric status. */
    String code() { return code; }

    Map<String, String> headers() { return headers; }
}
