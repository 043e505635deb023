package io.unibench.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.client.RawReply;
import io.unibench.engine.ProbeRunner;
import io.unibench.engine.ProbeSession;
import io.unibench.scrape.ServerMetricsScraper;
import io.unibench.scrape.ServerSample;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The server under check, as the checks reach it: through the engine and its one client. A completion is a request
 * of the engine's {@link ProbeRunner} whose record is kept (its figures are the record's); a burst is the next point
 * of the check's {@link ProbeSession}, run by the session runner as every run's point (connection test, self-check,
 * verdict), whose records {@code metrics} aggregates; what the benchmark client would never send (a malformed body)
 * or does not show (the raw events of a stream, a reply's {@code system_fingerprint}) is the same client's raw
 * request. The server's own metrics when it has them.
 */
final class Target {
    /** How often gauges are read while waiting for the server to settle. */
    static final Duration POLL = Duration.ofMillis(100);

    final CheckSettings settings;
    final ObjectMapper mapper = new ObjectMapper();
    private final ProbeRunner probes;
    private final ProbeSession points;
    private final ServerMetricsScraper scraper; // null when --server-metrics off or unavailable
    private final Sleeper sleeper;
    private Ramp.Found found;

    /** Waits between polls; tests of the polling logic may pass their own. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    Target(CheckSettings settings, ProbeRunner probes, ProbeSession points, ServerMetricsScraper scraper,
           Sleeper sleeper) {
        this.settings = settings;
        this.probes = probes;
        this.points = points;
        this.scraper = scraper;
        this.sleeper = sleeper;
    }

    String model() { return settings.model(); }

    ProbeRunner.Reply send(Ask ask) {
        return probes.send(ask.prompt(), ask.params());
    }

    /** Sends; completing {@code cancel} hangs up, as a client that goes away mid-stream. */
    CompletableFuture<ProbeRunner.Reply> sendAsync(Ask ask, CompletionStage<?> cancel) {
        return probes.sendAsync(ask.prompt(), ask.params(), cancel);
    }

    /**
     * {@code n} requests of {@code ask} at once ({@code ask}'s prompt + {@code " #i"}): the next point of the check's
     * session, a closed-loop point of n workers, named {@code label}.
     */
    ProbeSession.Point burst(String label, Ask ask, int n) throws InterruptedException {
        return startBurst(label, ask, n).await();
    }

    /** {@link #burst}, running in the background. */
    ProbeSession.Running startBurst(String label, Ask ask, int n) {
        List<String> prompts = java.util.stream.IntStream.range(0, n).mapToObj(i -> ask.prompt() + " #" + i).toList();
        return points.start(label, prompts, ask.params());
    }

    /** The body the engine builds for {@code ask}, for a raw post. */
    byte[] body(Ask ask) {
        return probes.body(ask.prompt(), ask.params());
    }

    /** A raw POST of {@code body} to the endpoint; the reply read whole or the timeout seen. */
    RawPost post(byte[] body) {
        return post(body, false);
    }

    /** {@link #post(byte[])}, asking for a stream ({@code Accept: text/event-stream}) when {@code stream}. */
    RawPost post(byte[] body, boolean stream) {
        RawReply reply = probes.raw("POST", "", body, stream);
        ClientResult r = reply.result();
        long nanos = r.endNanos() - r.startNanos();
        if (reply.status() > 0) return new RawPost(reply.status(), reply.text(), nanos, null);
        String problem = r.errorClass() == ErrorClass.TIMEOUT_TOTAL || r.errorClass() == ErrorClass.TIMEOUT_READ
                ? "no reply within " + settings.timeout().toMillis() + " ms"
                : r.errorClass().label() + " " + r.errorMessage();
        return new RawPost(0, "", nanos, problem);
    }

    /**
     * A reply read raw.
     *
     * @param problem null when a reply arrived; else what happened instead (a timeout, a reset)
     */
    record RawPost(int status, String body, long nanos, String problem) {
        String head(int chars) {
            String b = body.replace("\n", "\\n").replace("\r", "\\r");
            return b.length() <= chars ? b : b.substring(0, chars) + "…";
        }
    }

    /**
     * {@code GET} of {@code path} relative to the endpoint ({@code ../models}: {@code /v1/models};
     * {@code ../../props}: llama.cpp's {@code /props}), parsed; null when it does not answer 200 with JSON.
     */
    JsonNode get(String path) {
        RawReply reply = probes.raw("GET", path, new byte[0], false);
        if (reply.status() != 200) return null;
        try {
            return mapper.readTree(reply.body());
        } catch (IOException e) {
            return null;
        }
    }

    boolean hasMetrics() { return scraper != null && scraper.unavailable() == null; }

    /** Why there are no server metrics, for a SKIP line. */
    String noMetrics() {
        if (scraper == null) return "no server metrics (--server-metrics off)";
        return scraper.unavailable();
    }

    /** The server's gauges now; null when the scrape failed. */
    ServerSample gauges() { return scraper == null ? null : scraper.scrapeOnce(); }

    /**
     * Reads the gauges every {@link #POLL} until {@code done} holds; the nanoseconds that took, or -1 when it did not
     * within {@code limit}. {@code last} receives every reading.
     */
    long awaitGauges(Duration limit, Predicate<ServerSample> done, List<ServerSample> last) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        while (true) {
            ServerSample s = gauges();
            if (s != null) {
                last.add(s);
                if (done.test(s)) return System.nanoTime() - start;
            }
            if (System.nanoTime() >= deadline) return -1;
            sleeper.sleep(POLL);
        }
    }

    void pause(Duration d) throws InterruptedException {
        sleeper.sleep(d);
    }

    /** The server's concurrency limit: {@code --concurrency-limit}, else found once by {@link Ramp}. */
    int concurrencyLimit() throws InterruptedException {
        if (settings.concurrencyLimit() != null) return settings.concurrencyLimit();
        if (found == null) found = Ramp.find(this);
        return found.limit();
    }

    /**
     * What a check that uses the limit says of it when the ramp found it with the client as the bottleneck
     * ({@code "; the limit is the client's …"}); empty when given, or found by the server's behaviour.
     */
    String limitNote() {
        return found == null || found.clientLimited() == null ? "" : "; " + found.clientLimited();
    }

    /**
     * {@code "; not the server's doing: the client was the bottleneck (client-bound: …)"} when the point's verdict
     * says the client limited it; empty otherwise.
     */
    static String clientNote(ProbeSession.Point point) {
        String why = point.clientLimited();
        return why == null ? "" : "; the client was the bottleneck of this point (" + why + ")";
    }

    static double seconds(long nanos) {
        return nanos / 1e9;
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
