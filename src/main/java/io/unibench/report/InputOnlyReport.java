package io.unibench.report;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Summary;

import java.util.List;
import java.util.Locale;

import static io.unibench.report.DisplayNumbers.AVG_COUNT;
import static io.unibench.report.DisplayNumbers.RATE;
import static io.unibench.report.DisplayNumbers.SECONDS;
import static io.unibench.report.DisplayNumbers.format;
import static io.unibench.report.DisplayNumbers.formatAvailable;

/**
 * evalscope's terminal view of embedding and rerank runs (reference §6): the panel "Embedding/Rerank Performance
 * Test Summary" and the table "Detailed Performance Metrics" ({@code Conc. | Rate | RPS | Avg Lat.(s) | P99 Lat.(s)
 * | Avg Inp.TPS | P99 Inp.TPS | Avg Inp.Tok | Success Rate}) in place of the generation tables, which would be all
 * zeros and dashes for requests without output.
 */
final class InputOnlyReport {
    static final String TITLE = "Embedding/Rerank Performance Test Summary";

    private InputOnlyReport() {}

    /** Runs whose successes produced no output (their percentiles have the input-throughput column). */
    static boolean applies(List<RunResult> runs) {
        return !runs.isEmpty() && runs.stream().anyMatch(r -> !r.percentiles().isEmpty()
                && r.percentiles().getFirst().values().containsKey(PercentileRow.INPUT_THROUGHPUT))
                && runs.stream().allMatch(r -> r.summary().requests().successRequests() == 0
                        || r.summary().tokens().avgOutputTokens() == 0);
    }

    static TextTable table(List<RunResult> runs) {
        TextTable t = new TextTable(List.of("Conc.", "Rate", "RPS", "Avg Lat.(s)", "P99 Lat.(s)", "Avg Inp.TPS",
                "P99 Inp.TPS", "Avg Inp.Tok", "Success Rate"), align(9));
        for (RunResult r : runs) {
            Summary s = r.summary();
            t.row(r.info().concurrency() < 0 ? "INF" : Integer.toString(r.info().concurrency()),
                    r.info().rate() < 0 ? "-" : format(r.info().rate(), RATE),
                    formatAvailable(s.throughput().reqThroughput(), RATE),
                    formatAvailable(s.latency().avgLatencySeconds(), SECONDS),
                    format(p99(r, PercentileRow.LATENCY), SECONDS),
                    formatAvailable(s.throughput().inputThroughput(), RATE),
                    format(p99(r, PercentileRow.INPUT_THROUGHPUT), RATE),
                    formatAvailable(s.tokens().avgInputTokens(), AVG_COUNT),
                    s.requests().successRatePercent() == null ? DisplayNumbers.MISSING
                            : String.format(Locale.ROOT, "%.1f%%", s.requests().successRatePercent()));
        }
        return t;
    }

    private static Double p99(RunResult r, String column) {
        return r.percentiles().stream().filter(p -> p.label().equals("99%")).findFirst()
                .map(p -> p.values().get(column)).orElse(null);
    }

    private static TextTable.Align[] align(int n) {
        TextTable.Align[] a = new TextTable.Align[n];
        java.util.Arrays.fill(a, TextTable.Align.RIGHT);
        return a;
    }
}
