package io.unibench.engine;

/**
 * A bug ended the run: a worker, a sink or a hook threw (a request's failure never does: it is a record with an
 * error class). The runners throw it once every request already sent has ended and been recorded, and no request
 * started after the failure, so the sinks hold the partial run and the front end can print it with this one line.
 * Nothing is swallowed: a dead worker would otherwise leave the run going on at a lower concurrency than reported.
 */
public final class RunFailedException extends RuntimeException {
    RunFailedException(Throwable cause) {
        super("the run stopped on an internal error: " + oneLine(cause), cause);
    }

    /** The cause and where it was thrown, on one line. */
    private static String oneLine(Throwable cause) {
        StackTraceElement[] trace = cause.getStackTrace();
        return trace.length == 0 ? cause.toString() : cause + " (at " + trace[0] + ")";
    }
}
