package io.unibench.store;

import java.util.List;

/**
 * One run as listed: identity, status and counts, without the per-point details.
 *
 * @param startedAt    epoch ms
 * @param endedAt      epoch ms, or null while running
 * @param requestCount stored request rows (live while running)
 */
public record RunRow(String runId, String name, String model, String url, String status, long startedAt,
                     Long endedAt, long requestCount, long successCount, List<String> tags, String configKey) {
    public static final String RUNNING = "running";
    public static final String FINISHED = "finished";
    public static final String FAILED = "failed";
    public static final String INTERRUPTED = "interrupted";

    public RunRow {
        tags = List.copyOf(tags);
    }

    /** The run in one line, as {@code runs compare} heads its columns: id, name, model @ url [status]. */
    public String label() {
        return runId + (name != null ? " " + name : "") + " — " + model + " @ " + url + " [" + status + "]";
    }
}
