package io.unibench.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.scrape.ServerMetricsScraper;
import io.unibench.scrape.ServerSample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The server under check, as the checks reach it: the real benchmark client for everything that is a completion
 * (streams are timed where unibench always times them), a plain JDK HTTP client for what the benchmark client
 * would never send (a malformed body) or does not show (the raw events of a stream, a refusal's headers), and the
 * server's own metrics when it has them.
 */
final class Target {
    /** How often gauges are read while waiting for the server to settle. */
    static final Duration POLL = Duration.ofMillis(100);

    final CheckSettings settings;
    final ObjectMapper mapper = new ObjectMapper();
    private final LlmClient client;
    private final HttpClient raw;
    private final ServerMetricsScraper scraper; // null when --server-metrics off or unavailable
    private final Sleeper sleeper;
    private Integer foundLimit;

    /** Waits between polls; tests of the polling logic may pass their own. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    Target(CheckSettings settings, LlmClient client, ServerMetricsScraper scraper, Sleeper sleeper) {
        this.settings = settings;
        this.client = client;
        this.scraper = scraper;
        this.sleeper = sleeper;
        this.raw = HttpClient.newBuilder().connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    String model() { return settings.model(); }

    ClientResult send(Ask ask) {
        return sendAsync(ask, new CompletableFuture<>()).join();
    }

    /** Sends; completing {@code cancel} hangs up, as a client that goes away mid-stream. */
    CompletableFuture<ClientResult> sendAsync(Ask ask, CompletionStage<?> cancel) {
        return client.send(ask.body(mapper), ask.stream(), null, cancel);
    }

    /** Sends all at once and waits for every reply. */
    List<ClientResult> burst(List<Ask> asks) {
        List<CompletableFuture<ClientResult>> futures = new ArrayList<>();
        for (Ask a : asks) futures.add(sendAsync(a, new CompletableFuture<>()));
        List<ClientResult> out = new ArrayList<>();
        for (CompletableFuture<ClientResult> f : futures) out.add(f.join());
        return out;
    }

    /** A raw POST of {@code body} to the endpoint; the reply read whole (a stream too) or the timeout seen. */
    RawReply post(byte[] body) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.endpoint()).timeout(settings.timeout())
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body));
        settings.headers().forEach(request::header);
        long start = System.nanoTime();
        try {
            HttpResponse<String> reply = raw.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new RawReply(reply.statusCode(), reply.headers().firstValue("retry-after"), reply.body(),
                    System.nanoTime() - start, null);
        } catch (HttpTimeoutException e) {
            return new RawReply(0, Optional.empty(), "", System.nanoTime() - start,
                    "no reply within " + settings.timeout().toMillis() + " ms");
        } catch (IOException e) {
            return new RawReply(0, Optional.empty(), "", System.nanoTime() - start, e.toString());
        }
    }

    /**
     * A reply read by the plain client.
     *
     * @param problem null when a reply arrived; else what happened instead (a timeout, a reset)
     */
    record RawReply(int status, Optional<String> retryAfter, String body, long nanos, String problem) {
        String head(int chars) {
            String b = body.replace("\n", "\\n").replace("\r", "\\r");
            return b.length() <= chars ? b : b.substring(0, chars) + "…";
        }
    }

    /**
     * {@code GET} of {@code path} relative to the endpoint ({@code ../models}: {@code /v1/models};
     * {@code ../../props}: llama.cpp's {@code /props}), parsed; null when it does not answer 200 with JSON.
     */
    com.fasterxml.jackson.databind.JsonNode get(String path) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.endpoint().resolve(path))
                .timeout(settings.timeout()).GET();
        settings.headers().forEach(request::header);
        try {
            HttpResponse<String> reply = raw.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return reply.statusCode() == 200 ? mapper.readTree(reply.body()) : null;
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
        if (foundLimit == null) foundLimit = Ramp.find(this);
        return foundLimit;
    }

    static double seconds(long nanos) {
        return nanos / 1e9;
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
