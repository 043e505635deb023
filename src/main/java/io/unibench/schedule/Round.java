package io.unibench.schedule;

import java.util.List;

/**
 * One round of a schedule: fired (queued → running → finished or failed) or skipped, with why.
 *
 * @param trigger {@code scheduled}, {@code catch-up} (the one round after downtime) or {@code manual} ({@code schedule run})
 * @param dueAt   when it was due (epoch ms)
 * @param reason  why it was skipped or failed; null otherwise
 * @param runIds  the stored runs it made (one per provider)
 */
public record Round(String roundId, String schedule, String trigger, long dueAt, Long startedAt, Long endedAt,
                    String status, String reason, List<String> runIds) {
    public static final String QUEUED = "queued";
    public static final String RUNNING = "running";
    public static final String FINISHED = "finished";
    public static final String FAILED = "failed";
    public static final String SKIPPED = "skipped";
    public static final String INTERRUPTED = "interrupted";

    public static final String SCHEDULED = "scheduled";
    public static final String CATCH_UP = "catch-up";
    public static final String MANUAL = "manual";

    public Round {
        runIds = List.copyOf(runIds);
    }

    public boolean active() {
        return status.equals(QUEUED) || status.equals(RUNNING);
    }
}
