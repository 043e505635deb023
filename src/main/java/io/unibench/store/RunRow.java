package io.unibench.store;

import java.util.List;

/**
 * One run as listed: identity, status and counts, without the per-point details.
 *
 * @param startedAt    epoch ms
 * @param endedAt      epoch ms, or null while running
 * @param requestCount stored request rows (live while running)
 * @param statusReason why it failed, was cancelled or interrupted (one line), or null
 * @param verdict      "valid", or the union of its points' verdict reasons (metrics.PointVerdict); null when not judged
 */
public record RunRow(String runId, String name, String model, String url, String status, long startedAt,
                     Long endedAt, long requestCount, long successCount, List<String> tags, String configKey,
                     String statusReason, String verdict) {
    /** Waiting in the service's queue (created by {@code POST /api/runs}, not started yet). */
    public static final String QUEUED = "queued";
    public static final String RUNNING = "running";
    public static final String FINISHED = "finished";
    public static final String FAILED = "failed";
    public static final String INTERRUPTED = "interrupted";
    /** Stopped on request ({@code POST /api/runs/{id}/cancel}), queued or running. */
    public static final String CANCELLED = "cancelled";
    /** A sharded run's merge of which a shard failed, was killed or client-bound ({@code status_reason} says which). */
    public static final String PARTIAL = "partial";
    /** Every status a run can have, in its life's order. */
    public static final List<String> STATUSES =
            List.of(QUEUED, RUNNING, FINISHED, FAILED, CANCELLED, INTERRUPTED, PARTIAL);

    public RunRow {
        tags = List.copyOf(tags);
    }

    /** A run not judged (stored before verdicts, or merged from shards). */
    public RunRow(String runId, String name, String model, String url, String status, long startedAt, Long endedAt,
                  long requestCount, long successCount, List<String> tags, String configKey, String statusReason) {
        this(runId, name, model, url, status, startedAt, endedAt, requestCount, successCount, tags, configKey,
                statusReason, null);
    }

    public RunRow(String runId, String name, String model, String url, String status, long startedAt, Long endedAt,
                  long requestCount, long successCount, List<String> tags, String configKey) {
        this(runId, name, model, url, status, startedAt, endedAt, requestCount, successCount, tags, configKey, null);
    }

    /** True while the run can still change: queued or running. */
    public boolean active() {
        return QUEUED.equals(status) || RUNNING.equals(status);
    }

    /** The run in one line, as {@code runs compare} heads its columns: id, name, model @ url [status]. */
    public String label() {
        return label(null);
    }

    /**
     * The run in one line; a run without a URL (imported from files that name none) says what is known instead:
     * {@code model (from vLLM bench serve; no URL in its files)}, never {@code @ null}.
     *
     * @param sourceTool the tool an imported run came from, or null
     */
    public String label(String sourceTool) {
        return runId + (name != null ? " " + name : "") + " — " + target(sourceTool) + " [" + status + "]";
    }

    /** {@code model @ url}, or without a URL what is known: {@code model (from TOOL; no URL in its files)}. */
    public String target(String sourceTool) {
        String m = model == null ? "model not recorded" : model;
        if (url != null) return m + " @ " + url;
        return m + (sourceTool != null ? " (from " + sourceTool + "; no URL in its files)" : " (no URL recorded)");
    }
}
