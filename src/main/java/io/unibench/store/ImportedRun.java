package io.unibench.store;

import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;

import java.util.List;
import java.util.Map;

/**
 * A run another tool measured (evalscope, vLLM {@code bench serve}, …), ready to be stored as a run like any other
 * ({@link RunStore#storeImported}, one transaction): its start (model, URL, the source's arguments as the
 * configuration, the source tool, version, file checksum and what it did not measure in the environment), and its
 * points.
 */
public record ImportedRun(RunStart start, long startedAtMillis, long endedAtMillis, List<Point> points) {
    /**
     * The environment's key naming the per-request fields ({@code RequestFields} names) the source did not measure
     * though its rows hold a value for them (an HTTP status, a connection flag, reasoning tokens): the export
     * ({@link RunExport}) writes them null, never the stand-in value.
     */
    public static final String NOT_MEASURED_FIELDS = "not_measured_request_fields";

    public ImportedRun {
        points = List.copyOf(points);
    }

    /**
     * One point of an imported run.
     *
     * @param result      our figures recomputed from the source's per-request rows, or null when it had none (then
     *                    only {@code summary} and {@code percentiles} are stored)
     * @param summary     the summary stored ({@code benchmark_summary.json}'s keys; a figure the source did not
     *                    measure is null)
     * @param percentiles {@code benchmark_percentile.json}'s rows
     * @param requests    the per-request rows, moments in nanoseconds since the point's start; empty when none
     */
    public record Point(RunInfo info, long startedAtMillis, RunResult result, Map<String, Object> summary,
                        List<Map<String, Object>> percentiles, List<RequestRecord> requests) {
        public Point {
            requests = List.copyOf(requests);
        }
    }
}
