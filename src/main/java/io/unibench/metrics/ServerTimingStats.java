package io.unibench.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects {@link ServerVsClient} from successful records that carry {@link ServerTimings}. Not thread-safe: fed
 * under {@link RunMetrics}' lock.
 */
final class ServerTimingStats {
    private long requests;
    private final Distribution prefillMs = new Distribution();
    private final Distribution ttftMs = new Distribution();
    private final Distribution ttftMinusPrefillMs = new Distribution();
    private final Distribution decodeMs = new Distribution();
    private final Distribution tpotMs = new Distribution();
    private final Distribution tpotMinusDecodeMs = new Distribution();

    void accept(RequestRecord r) {
        ServerTimings t = r.serverTimings();
        if (t == null || !r.success()) return;
        requests++;
        double ttft = r.ttftSeconds() * 1000;
        if (Double.isFinite(t.promptMs()) && Double.isFinite(ttft)) {
            prefillMs.add(t.promptMs());
            ttftMs.add(ttft);
            ttftMinusPrefillMs.add(ttft - t.promptMs());
        }
        double decode = t.decodeMsPerToken();
        double tpot = r.tpotSeconds() * 1000;
        if (Double.isFinite(decode) && Double.isFinite(tpot)) {
            decodeMs.add(decode);
            tpotMs.add(tpot);
            tpotMinusDecodeMs.add(tpot - decode);
        }
    }

    /** The comparison, or null when no request carried timings. */
    ServerVsClient summary() {
        if (requests == 0) return null;
        List<ServerVsClient.Row> rows = new ArrayList<>();
        rows.add(row(ServerVsClient.SERVER_PREFILL, prefillMs));
        rows.add(row(ServerVsClient.CLIENT_TTFT, ttftMs));
        rows.add(row(ServerVsClient.TTFT_MINUS_PREFILL, ttftMinusPrefillMs));
        rows.add(row(ServerVsClient.SERVER_DECODE, decodeMs));
        rows.add(row(ServerVsClient.CLIENT_TPOT, tpotMs));
        rows.add(row(ServerVsClient.TPOT_MINUS_DECODE, tpotMinusDecodeMs));
        return new ServerVsClient(requests, rows);
    }

    private static ServerVsClient.Row row(String metric, Distribution d) {
        return new ServerVsClient.Row(metric, d.count(), round(d.mean()), at(d, 50), at(d, 90), at(d, 99));
    }

    private static Double at(Distribution d, double p) {
        return d.count() == 0 ? null : round(d.nearestRankHigh(p));
    }

    private static Double round(Double v) {
        return v == null ? null : Rounding.round(v, 3);
    }
}
