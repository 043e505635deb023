package io.unibench.scrape;

import io.unibench.Secrets;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Reads a server's Prometheus endpoint once a second while a run point runs ({@code perf}, {@code run}) or when a
 * check asks. The first scrape decides: an endpoint that does not answer 200 with the names of a known engine is
 * {@link #unavailable()} (one line saying why) and is not asked again. A later failed scrape is skipped (the
 * series has a gap), not fatal. The scrape runs on its own daemon thread, never on the client's event loops.
 *
 * <p>Thread-safe: {@link #scrapeOnce()} may run on the timer thread and the caller's at once.
 */
public final class ServerMetricsScraper implements AutoCloseable {
    public static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final URI url;
    private final LongSupplier epochMs;
    private final HttpClient http;
    private final List<ServerSample> samples = new ArrayList<>();
    private ServerEngine engine;
    private String unavailable;
    private ScheduledExecutorService timer;

    /** @param epochMs the wall clock of the samples' timestamps (tests drive it) */
    public ServerMetricsScraper(URI url, LongSupplier epochMs) {
        this(url, epochMs, null);
    }

    /**
     * @param epochMs the wall clock of the samples' timestamps (tests drive it)
     * @param tls     how an https endpoint's certificate is checked (the target's); null: the JDK's trust store
     */
    public ServerMetricsScraper(URI url, LongSupplier epochMs, SSLContext tls) {
        this.url = url;
        this.epochMs = epochMs;
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (tls != null) http.sslContext(tls);
        this.http = http.build();
    }

    /** The base URL's {@code /metrics}: scheme, host and port of an endpoint URL such as {@code …/v1/chat/completions}. */
    public static URI defaultUrl(URI endpoint) {
        return URI.create(endpoint.getScheme() + "://" + endpoint.getRawAuthority().replaceFirst("^[^@]*@", "") + "/metrics");
    }

    public URI url() { return url; }

    /** The URL as a report or log line shows it: user info and credential-named query parameters masked. */
    public String shownUrl() { return Secrets.redact(url.toString()); }

    /**
     * Scrapes now; the first call decides whether the endpoint is usable. Null when unavailable or this scrape failed.
     */
    public synchronized ServerSample scrapeOnce() {
        if (unavailable != null) return null;
        String problem;
        try {
            HttpResponse<String> reply = http.send(HttpRequest.newBuilder(url).timeout(TIMEOUT).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (reply.statusCode() == 200) {
                Exposition e = Exposition.parse(reply.body());
                if (engine == null) engine = ServerEngine.detect(e);
                if (engine != null) {
                    ServerSample s = engine.sample(e, epochMs.getAsLong());
                    samples.add(s);
                    return s;
                }
                problem = "no running-requests gauge of a known engine (vLLM, SGLang, TGI, llama.cpp)";
            } else {
                problem = "HTTP " + reply.statusCode();
            }
        } catch (IOException e) {
            problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        // the URL may carry a token (--server-metrics URL): the line is shown by check's report and run's log
        if (samples.isEmpty()) unavailable = Secrets.redact("no server metrics at " + shownUrl() + " (" + problem + ")");
        return null;
    }

    /** Why the endpoint is not used, in one line, its URL's secrets masked; null while it is. */
    public synchronized String unavailable() { return unavailable; }

    /** Scrapes now and then once every {@link #INTERVAL} until {@link #stop()}; returns this scraper. */
    public synchronized ServerMetricsScraper start() {
        scrapeOnce();
        if (unavailable == null && timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "unibench-server-metrics");
                t.setDaemon(true);
                return t;
            });
            long ms = INTERVAL.toMillis();
            timer.scheduleAtFixedRate(this::scrapeOnce, ms, ms, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /** Ends the timer after one last scrape (the point's end); the series so far. */
    public ServerSeries stop() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
            timer = null;
        }
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            scrapeOnce();
        }
        return series();
    }

    /** The samples so far. */
    public synchronized ServerSeries series() {
        return new ServerSeries(engine == null ? "unknown" : engine.label(), samples);
    }

    /** The samples taken from {@code from} on (for one point of a sweep, or one phase of a check). */
    public synchronized ServerSeries seriesSince(long fromEpochMs) {
        List<ServerSample> part = new ArrayList<>();
        for (ServerSample s : samples) if (s.epochMs() >= fromEpochMs) part.add(s);
        return new ServerSeries(engine == null ? "unknown" : engine.label(), part);
    }

    @Override public void close() {
        stop();
        http.close();
    }
}
