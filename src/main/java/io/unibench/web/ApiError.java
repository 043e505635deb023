package io.unibench.web;

/** A request the service refuses: the status and the one-line reason sent as {@code {"error": …}}. */
final class ApiError extends RuntimeException {
    private final int status;
    private final String link;

    ApiError(int status, String message) {
        this(status, message, null);
    }

    /** @param link the service's page the refusal points to (sent as {@code link}; the error page links it), or null */
    ApiError(int status, String message, String link) {
        super(message, null, false, false);
        this.status = status;
        this.link = link;
    }

    int status() {
        return status;
    }

    String link() {
        return link;
    }

    static ApiError notFound(String what) {
        return new ApiError(404, what + ": not found");
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, message);
    }
}
