package io.unibench.metrics;

import java.util.List;

/**
 * The "Phases" table of a run: per {@link Phase}, over successful requests, in milliseconds.
 *
 * @param rows            one row per phase that had samples, in phase order
 * @param newConnections  successful requests that opened their connection
 * @param reusedConnections successful requests that reused one
 * @param retriedStale    requests (successful or not) sent again on a new connection after a stale pooled one
 */
public record PhaseSummary(List<Row> rows, long newConnections, long reusedConnections, long retriedStale) {

    public PhaseSummary {
        rows = List.copyOf(rows);
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
        return rows.isEmpty();
    }
}
