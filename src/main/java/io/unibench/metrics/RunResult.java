package io.unibench.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything reported about one run: the snapshot {@link RunMetrics#result(RunInfo)} takes at its end.
 *
 * @param errors       error class → count, most frequent first (ties by name)
 * @param sampleErrors error class → the first message seen for it (may be absent for a class without message)
 * @param traces       per-trace statistics of a multi-turn run; {@code null} for single-turn runs
 * @param turnPositions multi-turn: one row per turn position (1, 2, 3, …); empty for single-turn runs
 * @param phases       the connection and transfer phases of successful requests; empty when no timings were known
 * @param serverVsClient the server's own timing beside the client's; {@code null} when no server sent timings
 * @param errorTypes   error class → the error types the server named for it ({@code exceed_context_size_error}, or
 *                     {@code "a (3), b (1)"} when several); classes without any are absent
 * @param goodput      requests meeting the {@code --goodput} objectives per second; {@code null} without objectives
 * @param verdict      whether the point's numbers can be trusted ({@link PointVerdict}); {@code null} until the session
 *                     runner judged it
 */
public record RunResult(
        RunInfo info,
        Summary summary,
        List<PercentileRow> percentiles,
        WorkloadThroughput workload,
        WorkloadTimeline timeline,
        Map<String, Long> errors,
        Map<String, String> sampleErrors,
        TraceSummary traces,
        List<TurnPositionRow> turnPositions,
        PhaseSummary phases,
        ServerVsClient serverVsClient,
        Map<String, String> errorTypes,
        Goodput goodput,
        PointVerdict verdict) {

    public RunResult {
        if (phases == null) phases = new PhaseSummary(List.of(), 0, 0);
        percentiles = List.copyOf(percentiles);
        turnPositions = turnPositions == null ? List.of() : List.copyOf(turnPositions);
        errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
        sampleErrors = Collections.unmodifiableMap(new LinkedHashMap<>(sampleErrors));
        errorTypes = errorTypes == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(errorTypes));
    }

    /** A result not judged yet. */
    public RunResult(RunInfo info, Summary summary, List<PercentileRow> percentiles, WorkloadThroughput workload,
                     WorkloadTimeline timeline, Map<String, Long> errors, Map<String, String> sampleErrors,
                     TraceSummary traces, List<TurnPositionRow> turnPositions, PhaseSummary phases,
                     ServerVsClient serverVsClient, Map<String, String> errorTypes, Goodput goodput) {
        this(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces, turnPositions, phases,
                serverVsClient, errorTypes, goodput, null);
    }

    /** This result with its verdict. */
    public RunResult withVerdict(PointVerdict v) {
        return new RunResult(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces,
                turnPositions, phases, serverVsClient, errorTypes, goodput, v);
    }

    /** A result without goodput. */
    public RunResult(RunInfo info, Summary summary, List<PercentileRow> percentiles, WorkloadThroughput workload,
                     WorkloadTimeline timeline, Map<String, Long> errors, Map<String, String> sampleErrors,
                     TraceSummary traces, List<TurnPositionRow> turnPositions, PhaseSummary phases,
                     ServerVsClient serverVsClient, Map<String, String> errorTypes) {
        this(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces, turnPositions, phases,
                serverVsClient, errorTypes, null);
    }

    /** This result with other workload throughput figures (an imported run's, without what it did not measure). */
    public RunResult withWorkload(WorkloadThroughput w) {
        return new RunResult(info, summary, percentiles, w, timeline, errors, sampleErrors, traces,
                turnPositions, phases, serverVsClient, errorTypes, goodput, verdict);
    }

    /** This result with its goodput. */
    public RunResult withGoodput(Goodput g) {
        return new RunResult(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces,
                turnPositions, phases, serverVsClient, errorTypes, g, verdict);
    }

    /** A result without the server's timings and error types. */
    public RunResult(RunInfo info, Summary summary, List<PercentileRow> percentiles, WorkloadThroughput workload,
                     WorkloadTimeline timeline, Map<String, Long> errors, Map<String, String> sampleErrors,
                     TraceSummary traces, List<TurnPositionRow> turnPositions, PhaseSummary phases) {
        this(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces, turnPositions, phases,
                null, null);
    }

    /** A single-turn result. */
    public RunResult(RunInfo info, Summary summary, List<PercentileRow> percentiles, WorkloadThroughput workload,
                     WorkloadTimeline timeline, Map<String, Long> errors, Map<String, String> sampleErrors) {
        this(info, summary, percentiles, workload, timeline, errors, sampleErrors, null, List.of(), null);
    }

    /** A result without phase timings. */
    public RunResult(RunInfo info, Summary summary, List<PercentileRow> percentiles, WorkloadThroughput workload,
                     WorkloadTimeline timeline, Map<String, Long> errors, Map<String, String> sampleErrors,
                     TraceSummary traces, List<TurnPositionRow> turnPositions) {
        this(info, summary, percentiles, workload, timeline, errors, sampleErrors, traces, turnPositions, null);
    }

    /** The goodput keys of the summary ({@link Goodput#toMap()}); empty without {@code --goodput}. */
    public Map<String, Object> goodputKeys() {
        return goodput == null ? Map.of() : goodput.toMap();
    }

    public boolean multiTurn() {
        return traces != null;
    }

    /** A cell of the percentile table, e.g. {@code percentile("99%", PercentileRow.TTFT)}; null when absent. */
    public Double percentile(String label, String column) {
        for (PercentileRow row : percentiles) {
            if (row.label().equals(label)) return row.value(column);
        }
        return null;
    }

    /** The 95 % interval of a percentile row's column ({@link PercentileRow#interval}), or null when it has none. */
    public Interval percentileInterval(String label, String column) {
        for (PercentileRow row : percentiles) {
            if (row.label().equals(label)) return row.interval(column);
        }
        return null;
    }
}
