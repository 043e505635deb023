package io.unibench.web;

/** A request the service refuses: the status and the one-line reason sent as {@code {"error": …}}. */
final class ApiError extends RuntimeException {
    private final int status;

    ApiError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }

    static ApiError notFound(String what) {
        return new ApiError(404, what + ": not found");
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, message);
    }
}
