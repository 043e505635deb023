package io.unibench.report;

import io.unibench.metrics.PhaseSummary;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;

import java.util.List;

/**
 * The "Phases" table: where a request's time goes — the client's queue, the network (DNS, connect, TLS, write), the
 * server (wait for the first byte, prefill to the first token) and generation — as avg/p50/p95/p99 in ms over
 * successful requests. Reused keep-alive connections count 0 for DNS, connect and TLS. {@link #notes}
 * says how many connections were opened and reused, and what the stale retries cost, in words; with {@code --retry-on} the
 * refusals sent again and the back-off waited before them are two more rows.
 */
public final class PhasesTable {
    private static final TextTable.Align L = TextTable.Align.LEFT;
    private static final TextTable.Align R = TextTable.Align.RIGHT;

    private PhasesTable() {}

    public static boolean any(List<RunResult> runs) {
        return runs.stream().anyMatch(r -> !r.phases().isEmpty());
    }

    public static TextTable of(List<RunResult> runs) {
        boolean paced = runs.stream().anyMatch(r -> r.info().rate() > 0);
        TextTable t = new TextTable(List.of(paced ? "Level" : "Conc.", "Phase (ms)", "n", "avg", "p50", "p95", "p99"),
                R, L, R, R, R, R, R);
        for (RunResult r : runs) {
            PhaseSummary p = r.phases();
            if (p.isEmpty()) continue;
            boolean first = true;
            for (PhaseSummary.Row row : p.rows()) {
                t.row(first ? conc(r.info()) : "", row.phase().label(), Long.toString(row.n()),
                        DisplayNumbers.format(row.avg(), 3), DisplayNumbers.format(row.p50(), 3),
                        DisplayNumbers.format(row.p95(), 3), DisplayNumbers.format(row.p99(), 3));
                first = false;
            }
            t.row("", "connections opened / reused", p.newConnections() + " / " + p.reusedConnections(), "", "", "",
                    "");
            if (p.retries() > 0) { // --retry-on: refusals sent again
                t.row("", "refusals retried (requests)", p.retries() + " (" + p.retriedRequests() + ")", "", "", "",
                        "");
                t.row("", "retry wait (ms, total)", DisplayNumbers.format(p.retryWaitMs(), 3), "", "", "", "");
            }
            t.separator();
        }
        return t;
    }

    /** One line per run whose requests met stale pooled connections: how many, and what they cost. */
    public static String notes(List<RunResult> runs) {
        StringBuilder sb = new StringBuilder();
        for (RunResult r : runs) {
            if (r.phases().retriedStale() == 0) continue;
            sb.append("Note: ").append(r.info().label()).append(": connections: ").append(r.phases().connectionsLine())
                    .append(".\n");
        }
        return sb.toString();
    }

    /** {@code 8}, or a paced run's rate: {@code 10 req/s} (open loop) or {@code 8 @ 10 req/s} (bounded). */
    private static String conc(RunInfo info) {
        if (!(info.rate() > 0)) return info.concurrency() < 0 ? "INF" : Integer.toString(info.concurrency());
        String rate = DisplayNumbers.format(info.rate(), 2) + " req/s";
        return info.concurrency() < 0 ? rate : info.concurrency() + " @ " + rate;
    }
}
