package io.unibench.sim;

/**
 * A request the simulator refuses, answered as an OpenAI/vLLM error body
 * {@code {"error":{"message","type","param","code"}}}. Thrown only inside the simulator, never to its users.
 */
final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String param;

    ApiException(int status, String type, String message, String param) {
        super(message, null, false, false); // no stack trace: it is an answer, not a bug
        this.status = status;
        this.type = type;
        this.param = param;
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
}
