package io.unibench.check;

import io.unibench.client.ErrorClass;
import io.unibench.engine.ProbeSession;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RequestRecord;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The records of a burst (a point of the check's session) sorted by what happened: served, refused early (429/503), gave up waiting (the client's
 * timeout before any token), or failed otherwise; with the queue wait of the served ones estimated by their time
 * to first token (an estimate: it includes the prefill), as the burst's {@code metrics} aggregate gives it (TTFT p50
 * and max, the exact percentile of every report).
 *
 * @param waitP50Seconds NaN when no served request had a first token
 */
record Outcomes(int served, int refused, int waitedOut, Map<String, Integer> otherFailures, double waitP50Seconds,
                double waitMaxSeconds, double slowestRefusalSeconds, int total) {

    private static final String TOTAL = ErrorClass.TIMEOUT_TOTAL.label();
    private static final String READ = ErrorClass.TIMEOUT_READ.label();

    static boolean refusal(RequestRecord r) {
        return r.outcome().httpStatus() == 429 || r.outcome().httpStatus() == 503;
    }

    static Outcomes of(ProbeSession.Point burst) {
        int served = 0;
        int refused = 0;
        int waitedOut = 0;
        Map<String, Integer> other = new TreeMap<>();
        double slowestRefusal = 0;
        for (RequestRecord r : burst.records()) {
            String error = r.outcome().errorClass();
            if (r.success()) {
                served++;
            } else if (refusal(r)) {
                refused++;
                slowestRefusal = Math.max(slowestRefusal, r.latencySeconds());
            } else if (TOTAL.equals(error) || READ.equals(error)) {
                waitedOut++;
            } else {
                other.merge(String.valueOf(error), 1, Integer::sum);
            }
        }
        Double p50 = burst.result().percentile("50%", PercentileRow.TTFT);
        Double max = burst.result().percentile("max", PercentileRow.TTFT);
        return new Outcomes(served, refused, waitedOut, other, p50 == null ? Double.NaN : p50 / 1000,
                max == null ? Double.NaN : max / 1000, slowestRefusal, burst.records().size());
    }

    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(served).append(" served");
        if (!Double.isNaN(waitP50Seconds)) {
            sb.append(String.format(Locale.ROOT, " (wait est. from TTFT p50 %.2f s, max %.2f s)", waitP50Seconds,
                    waitMaxSeconds));
        }
        sb.append(", ").append(refused).append(" refused (").append(Math.round(100.0 * refused / Math.max(1, total)))
                .append("%");
        if (refused > 0) sb.append(String.format(Locale.ROOT, ", within %.2f s", slowestRefusalSeconds));
        sb.append("), ").append(waitedOut).append(" ran into the client's timeout");
        if (!otherFailures.isEmpty()) sb.append(", failed otherwise: ").append(otherFailures);
        return sb.toString();
    }
}
