package io.unibench.engine;

import io.unibench.BadInputException;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.client.LlmClient;

import java.util.Set;

/**
 * One tiny request (a one-token reply) before the run, so a wrong URL, key or model fails in a second
 * with the server's own message instead of producing a report full of errors. A 4xx or an unreachable
 * host or a certificate the client does not accept aborts at once; a 5xx, a timeout or a reset is retried a few times with growing pauses (a server
 * that is still starting), then aborts. It never loops for long (evalscope retries for hours).
 */
public final class ConnectionTest {
    private static final int ATTEMPTS = 4;
    private static final long FIRST_PAUSE_MILLIS = 500;
    private static final Set<ErrorClass> FATAL = Set.of(ErrorClass.CONNECTION_REFUSED, ErrorClass.HTTP_400,
            ErrorClass.HTTP_401, ErrorClass.HTTP_403, ErrorClass.HTTP_404, ErrorClass.HTTP_4XX,
            ErrorClass.TIMEOUT_CONNECT, ErrorClass.TLS_ERROR, ErrorClass.CANCELLED);

    /** The command line's way around a failed test, at the end of its message (a page, which has no flags, drops it). */
    public static final String SKIP_HINT = " (skip this check with --no-test-connection)";
    /** The command line's way past an untrusted certificate, at the end of a TLS failure's message. */
    public static final String TLS_HINT = " (trust the server's CA with --ca-cert FILE, or skip verification with "
            + "--insecure; in a scenario file ca_cert or insecure)";
    /** {@link #TLS_HINT} in a document's words, for a page (which has no flags). */
    static final String TLS_HINT_PAGE = " (trust the server's CA with ca_cert in the provider's tls, or skip "
            + "verification with insecure)";

    private ConnectionTest() {}

    /**
     * As {@link #run(LlmClient, java.util.function.Supplier, String, StopSignal)} on a client of its own for
     * {@code config}, closed after: a connection test outside a run (the web's "test connection").
     */
    public static void run(io.unibench.client.ClientConfig config, java.util.function.Supplier<PreparedRequest> probes,
                           String target, StopSignal stop) throws InterruptedException {
        try (LlmClient client = new LlmClient(config)) {
            run(client, probes, target, stop);
        }
    }

    /** Returns when the endpoint answered correctly; throws {@link BadInputException} otherwise. */
    public static void run(LlmClient client, RequestFactory requests, String target, StopSignal stop)
            throws InterruptedException {
        run(client, requests::probe, target, stop);
    }

    /** As {@link #run(LlmClient, RequestFactory, String, StopSignal)}, each attempt with a request of {@code probes}. */
    public static void run(LlmClient client, java.util.function.Supplier<PreparedRequest> probes, String target,
                           StopSignal stop) throws InterruptedException {
        long pause = FIRST_PAUSE_MILLIS;
        ClientResult last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            PreparedRequest probe = probes.get();
            last = client.send(probe.body(), probe.stream(), probe.requestId()).join();
            if (last.success()) return;
            if (FATAL.contains(last.errorClass()) || last.errorClass() == ErrorClass.HTTP_429 && attempt > 1) break;
            if (stop.awaitUntil(System.nanoTime() + pause * 1_000_000)) break;
            pause *= 2;
        }
        throw new BadInputException("connection test to " + target + " failed: " + last.errorClass().label()
                + (last.httpStatus() > 0 ? " (HTTP " + last.httpStatus() + ")" : "")
                + (last.errorMessage() == null ? "" : ": " + last.errorMessage())
                + (last.errorClass() == ErrorClass.TLS_ERROR ? TLS_HINT : SKIP_HINT));
    }

    /**
     * A failed test's message as a page shows it (the web's test connection, a failed run's reason): the command
     * line's hints in a document's words, no flag named.
     */
    public static String forPage(String message) {
        return message == null ? null : message.replace(TLS_HINT, TLS_HINT_PAGE).replace(SKIP_HINT, "");
    }
}
