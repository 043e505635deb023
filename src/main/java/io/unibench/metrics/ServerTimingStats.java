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
    private long streamed;
    private long estimatedLeftOut;
    private long notStreamed;
    private final Distribution nsPrefillMs = new Distribution();
    private final Distribution nsLatencyMs = new Distribution();
    private final Distribution nsDecodeMs = new Distribution();
    private final Distribution nsRestMs = new Distribution();

    void accept(RequestRecord r) {
        ServerTimings t = r.serverTimings();
        if (t == null || !r.success()) return;
        requests++;
        if (!r.timing().stream()) {
            // no TTFT: the latency holds the prefill and the whole decode
            notStreamed++;
            double latency = r.latencySeconds() * 1000;
            if (Double.isFinite(t.promptMs()) && Double.isFinite(t.predictedMs()) && Double.isFinite(latency)) {
                nsPrefillMs.add(t.promptMs());
                nsDecodeMs.add(t.predictedMs());
                nsLatencyMs.add(latency);
                nsRestMs.add(latency - t.promptMs() - t.predictedMs());
            }
            return;
        }
        streamed++;
        double ttft = r.ttftSeconds() * 1000;
        if (Double.isFinite(t.promptMs()) && Double.isFinite(ttft)) {
            prefillMs.add(t.promptMs());
            ttftMs.add(ttft);
            ttftMinusPrefillMs.add(ttft - t.promptMs());
        }
        double decode = t.decodeMsPerToken();
        double tpot = r.tpotSeconds() * 1000;
        RequestRecord.TokenSource source = r.tokens().source();
        boolean exact = source == RequestRecord.TokenSource.SERVER || source == RequestRecord.TokenSource.SERVER_TIMINGS;
        if (!exact && Double.isFinite(decode) && Double.isFinite(tpot)) {
            estimatedLeftOut++; // a TPOT from the client's count is not subtracted from the server's figure
        } else if (Double.isFinite(decode) && Double.isFinite(tpot)) {
            decodeMs.add(decode);
            tpotMs.add(tpot);
            tpotMinusDecodeMs.add(tpot - decode);
        }
    }

    /** The comparison, or null when no request carried timings. */
    ServerVsClient summary() {
        if (requests == 0) return null;
        List<ServerVsClient.Row> rows = new ArrayList<>();
        if (streamed > 0) {
            rows.add(row(ServerVsClient.SERVER_PREFILL, prefillMs));
            rows.add(row(ServerVsClient.CLIENT_TTFT, ttftMs));
            rows.add(row(ServerVsClient.TTFT_MINUS_PREFILL, ttftMinusPrefillMs));
            rows.add(row(ServerVsClient.SERVER_DECODE, decodeMs));
            rows.add(row(ServerVsClient.CLIENT_TPOT, tpotMs));
            rows.add(row(ServerVsClient.TPOT_MINUS_DECODE, tpotMinusDecodeMs));
        }
        if (notStreamed > 0) {
            if (streamed == 0) rows.add(row(ServerVsClient.SERVER_PREFILL, nsPrefillMs));
            rows.add(row(ServerVsClient.SERVER_DECODE_WHOLE, nsDecodeMs));
            rows.add(row(ServerVsClient.CLIENT_LATENCY_NO_STREAM, nsLatencyMs));
            rows.add(row(ServerVsClient.LATENCY_MINUS_SERVER, nsRestMs));
        }
        return new ServerVsClient(requests, rows, estimatedLeftOut);
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
