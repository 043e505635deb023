package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The "Phases" table of a run: per {@link Phase}, over successful requests, in milliseconds.
 *
 * @param rows            one row per phase that had samples, in phase order
 * @param newConnections  successful requests that opened their connection
 * @param reusedConnections successful requests that reused one
 * @param retriedStale    requests (successful or not) sent again on a new connection after a stale pooled one
 * @param staleWasted     the time those requests' wasted first attempts took (phase null), ms; null when none
 * @param retries         refusals sent again ({@code --retry-on}), over all requests
 * @param retriedRequests requests (successful or not) that were retried at least once
 * @param retryWaitMs     the back-off waited before those retries, in total (ms)
 */
public record PhaseSummary(List<Row> rows, long newConnections, long reusedConnections, long retriedStale,
                           Row staleWasted, long retries, long retriedRequests, double retryWaitMs) {

    public PhaseSummary {
        rows = List.copyOf(rows);
    }

    /** A summary without the stale retries' cost or refusals retried. */
    public PhaseSummary(List<Row> rows, long newConnections, long reusedConnections, long retriedStale) {
        this(rows, newConnections, reusedConnections, retriedStale, null, 0, 0, 0);
    }

    /**
     * The connections in one line: {@code 200 opened, 0 reused; 53 sent again after a stale pooled connection
     * (counted as opened), the wasted attempts 0.41 ms each on average, 21.7 ms in all}.
     */
    public String connectionsLine() {
        return connectionsLine(newConnections, reusedConnections, retriedStale,
                staleWasted == null ? null : staleWasted.avg(), staleWasted == null ? 0 : staleWasted.n());
    }

    /**
     * {@link #connectionsLine()} from its numbers, as a stored run keeps them ({@link #toMap}): the terminal's and
     * the web page's one wording.
     *
     * @param wastedAvg the stale retries' wasted attempts' mean (ms); null when unknown, the cost then left out
     * @param wastedN   how many wasted attempts that mean is over
     */
    public static String connectionsLine(long opened, long reused, long retriedStale, Double wastedAvg, long wastedN) {
        String line = opened + " opened, " + reused + " reused";
        if (retriedStale == 0) return line;
        line += "; " + retriedStale + " sent again after a stale pooled connection (counted as opened)";
        if (wastedAvg == null) return line;
        return line + ", the wasted attempts " + wastedAvg + " ms each on average, "
                + Rounding.round(wastedAvg * wastedN, 3) + " ms in all";
    }

    /** A summary without retry counts. */
    public PhaseSummary(List<Row> rows, long newConnections, long reusedConnections) {
        this(rows, newConnections, reusedConnections, 0);
    }

    /** A phase's statistics; values null when no sample. */
    public record Row(Phase phase, long n, Double avg, Double p50, Double p95, Double p99) {}

    public Row row(Phase phase) {
        for (Row r : rows) if (r.phase() == phase) return r;
        return null;
    }

    public boolean isEmpty() {
        return rows.isEmpty() && retries == 0;
    }

    /** The Phases table's data (ours: evalscope has none), as the run history stores it: rows in phase order, ms. */
    public Map<String, Object> toMap() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("phase", row.phase().label());
            rm.put("n", row.n());
            rm.put("avg_ms", row.avg());
            rm.put("p50_ms", row.p50());
            rm.put("p95_ms", row.p95());
            rm.put("p99_ms", row.p99());
            out.add(rm);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", out);
        m.put("new_connections", newConnections);
        m.put("reused_connections", reusedConnections);
        m.put("retried_stale_connections", retriedStale);
        if (staleWasted != null && staleWasted.avg() != null) { // the cost connectionsLine() names, for the web page
            m.put("stale_wasted_n", staleWasted.n());
            m.put("stale_wasted_avg_ms", staleWasted.avg());
        }
        if (retries > 0) { // only a run that retried: the stored tables of others stay as they were
            m.put("retries", retries);
            m.put("retried_requests", retriedRequests);
            m.put("retry_wait_ms", retryWaitMs);
        }
        return m;
    }
}
