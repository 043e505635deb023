package io.unibench.metrics;

import io.unibench.Moments;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;

/**
 * Accumulates the {@link Phase} durations of successful requests (see {@link Distribution}: exact percentiles up to its limit).
 * Not thread-safe: {@link RunMetrics} calls it under its lock.
 */
final class PhaseStats {
    private final EnumMap<Phase, Distribution> values = new EnumMap<>(Phase.class);
    private long newConnections;
    private long reusedConnections;
    private long tlsHandshakes;
    private long retriedStale;
    /** Per request sent again after a stale pooled connection: the wasted first attempt's time, ms. */
    private final Distribution staleWastedMs = new Distribution();
    private long retries;
    private long retriedRequests;
    private long retryWaitNanos;

    PhaseStats() {
        for (Phase p : Phase.values()) values.put(p, new Distribution());
    }

    void accept(RequestRecord r) {
        if (r.retriedStaleConnection()) {
            retriedStale++; // failed ones too: every retry is counted
            if (r.timing().startNanos() != Moments.ABSENT) {
                staleWastedMs.add((r.timing().startNanos() - r.phases().staleStartNanos()) / 1e6);
            }
        }
        if (r.outcome().retries() > 0) { // --retry-on: refusals sent again, failed ones too
            retries += r.outcome().retries();
            retriedRequests++;
            retryWaitNanos += r.outcome().retryWaitNanos();
        }
        if (!r.success() || r.phases().writeStartNanos() == Moments.ABSENT) return; // no wire timings known
        if (r.phases().newConnection()) newConnections++;
        else reusedConnections++;
        if (r.phases().tlsDoneNanos() != Moments.ABSENT) tlsHandshakes++;
        for (Phase p : Phase.values()) {
            double v = p.millis(r);
            if (!Double.isNaN(v)) values.get(p).add(v);
        }
    }

    PhaseSummary summary() {
        List<PhaseSummary.Row> rows = new ArrayList<>();
        for (Phase p : Phase.values()) {
            if (p == Phase.TLS && tlsHandshakes == 0) continue; // plain HTTP: reused zeros would suggest a TLS cost of 0
            Distribution v = values.get(p);
            if (v.count() == 0) continue;
            rows.add(new PhaseSummary.Row(p, v.count(), Rounding.round(v.mean(), 3),
                    Rounding.round(v.nearestRankHigh(50), 3),
                    Rounding.round(v.nearestRankHigh(95), 3),
                    Rounding.round(v.nearestRankHigh(99), 3)));
        }
        PhaseSummary.Row stale = staleWastedMs.count() == 0 ? null : new PhaseSummary.Row(null, staleWastedMs.count(),
                Rounding.round(staleWastedMs.mean(), 3), Rounding.round(staleWastedMs.nearestRankHigh(50), 3),
                Rounding.round(staleWastedMs.nearestRankHigh(95), 3), Rounding.round(staleWastedMs.nearestRankHigh(99), 3));
        return new PhaseSummary(rows, newConnections, reusedConnections, retriedStale, stale, retries, retriedRequests,
                Rounding.round(retryWaitNanos / 1e6, 3));
    }
}
