package io.unibench.engine.live;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The state of the running point, once a second and once at its end. Figures are over the point so far. The
 * percentiles come from HdrHistogram interval recorders merged since the point began: live estimates (3 significant
 * digits); the exact figures of the reports come from the raw values.
 *
 * @param point                 0-based index of the point, as in {@link PointStarted}
 * @param elapsedSeconds        since the point began
 * @param completed             requests finished: succeeded + failed + cancelled
 * @param succeeded             successful requests
 * @param cancelled             requests a stop cancelled in flight (neither success nor failure)
 * @param failedByClass         error class ({@code http_429}, {@code timeout_read}, …) → failed requests, by class name; unmodifiable
 * @param inFlight              requests sent and not yet finished, as the engine counts them
 * @param requestsPerSecond     successful requests / elapsed
 * @param outputTokensPerSecond completion tokens of successful requests / elapsed
 * @param ttftMs                time to first token of successful requests
 * @param latencyMs             end-to-end latency of successful requests
 * @param client                the client's own load (self-check) at the moment of the snapshot
 * @param ttfctMs               time to first content (answer) token of the successful replies that reasoned first;
 *                              {@link Quantiles#NONE} until one did
 */
public record Snapshot(int point, double elapsedSeconds, long completed, long succeeded, long cancelled,
                       Map<String, Long> failedByClass, int inFlight, double requestsPerSecond,
                       double outputTokensPerSecond, Quantiles ttftMs, Quantiles latencyMs, ClientLoad client,
                       Quantiles ttfctMs)
        implements RunEvent {

    /** A snapshot of a point whose replies did not reason (no TTFCT). */
    public Snapshot(int point, double elapsedSeconds, long completed, long succeeded, long cancelled,
                    Map<String, Long> failedByClass, int inFlight, double requestsPerSecond,
                    double outputTokensPerSecond, Quantiles ttftMs, Quantiles latencyMs, ClientLoad client) {
        this(point, elapsedSeconds, completed, succeeded, cancelled, failedByClass, inFlight, requestsPerSecond,
                outputTokensPerSecond, ttftMs, latencyMs, client, Quantiles.NONE);
    }

    /** True once a successful reply reasoned before its answer: {@link #ttfctMs} is measured. */
    public boolean reasoning() {
        return !Double.isNaN(ttfctMs.p50());
    }

    public Snapshot {
        failedByClass = Collections.unmodifiableMap(new LinkedHashMap<>(failedByClass));
    }

    /** Failed requests over every class. */
    public long failed() {
        long n = 0;
        for (long v : failedByClass.values()) n += v;
        return n;
    }

    /** Live percentiles in milliseconds; NaN when no sample yet. */
    public record Quantiles(double p50, double p95, double p99) {
        public static final Quantiles NONE = new Quantiles(Double.NaN, Double.NaN, Double.NaN);
    }

    /**
     * The client's load: process CPU as a share of one core in percent (150 = one and a half cores busy), the
     * event-loop timer lag p99 of the last interval, and a warning when the client may be the bottleneck (null =
     * fine). NaN where not measured.
     */
    public record ClientLoad(double cpuPercentOfOneCore, double loopLagP99Ms, String warning) {
        public static final ClientLoad UNKNOWN = new ClientLoad(Double.NaN, Double.NaN, null);
    }
}
