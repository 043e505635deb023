package io.unibench.check;

import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The replies of a burst sorted by what happened: served, refused early (429/503), gave up waiting (the client's
 * timeout before any token), or failed otherwise; with the queue wait of the served ones estimated by their time
 * to first token (an estimate: it includes the prefill).
 */
record Outcomes(int served, int refused, int waitedOut, Map<String, Integer> otherFailures, double[] waitSeconds,
                double slowestRefusalSeconds, int total) {

    /** The first refusal's (429/503) {@code Retry-After} as sent, if any refusal carried one. */
    static java.util.Optional<String> retryAfter(List<ClientResult> results) {
        return results.stream().filter(r -> r.httpStatus() == 429 || r.httpStatus() == 503)
                .map(ClientResult::retryAfter).filter(java.util.Objects::nonNull).findFirst();
    }

    static Outcomes of(List<ClientResult> results) {
        int served = 0;
        int refused = 0;
        int waitedOut = 0;
        Map<String, Integer> other = new TreeMap<>();
        double[] waits = new double[results.size()];
        int w = 0;
        double slowestRefusal = 0;
        for (ClientResult r : results) {
            if (r.success()) {
                served++;
                if (r.firstTokenNanos() != io.unibench.Moments.ABSENT) waits[w++] = (r.firstTokenNanos() - r.startNanos()) / 1e9;
            } else if (r.httpStatus() == 429 || r.httpStatus() == 503) {
                refused++;
                slowestRefusal = Math.max(slowestRefusal, (r.endNanos() - r.startNanos()) / 1e9);
            } else if (r.errorClass() == ErrorClass.TIMEOUT_TOTAL || r.errorClass() == ErrorClass.TIMEOUT_READ) {
                waitedOut++;
            } else {
                other.merge(String.valueOf(r.errorClass()), 1, Integer::sum);
            }
        }
        double[] sorted = Arrays.copyOf(waits, w);
        Arrays.sort(sorted);
        return new Outcomes(served, refused, waitedOut, other, sorted, slowestRefusal, results.size());
    }

    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(served).append(" served");
        if (waitSeconds.length > 0) {
            sb.append(String.format(java.util.Locale.ROOT, " (wait est. from TTFT p50 %.2f s, max %.2f s)",
                    waitSeconds[waitSeconds.length / 2], waitSeconds[waitSeconds.length - 1]));
        }
        sb.append(", ").append(refused).append(" refused (").append(Math.round(100.0 * refused / Math.max(1, total)))
                .append("%");
        if (refused > 0) sb.append(String.format(java.util.Locale.ROOT, ", within %.2f s", slowestRefusalSeconds));
        sb.append("), ").append(waitedOut).append(" ran into the client's timeout");
        if (!otherFailures.isEmpty()) sb.append(", failed otherwise: ").append(otherFailures);
        return sb.toString();
    }
}
