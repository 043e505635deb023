package io.unibench.engine.live;

import io.unibench.engine.LoadPlan;

/**
 * A load point begins.
 *
 * @param point  0-based index over the whole run
 * @param points how many points the run has (known up front); 0 for a search's probe (SLA auto-tune), whose count
 *               is not known in advance
 * @param label  human label, e.g. {@code parallel_8_number_100}, or {@code openai/chat/parallel_8} for a scenario's
 *               provider/scenario/level
 * @param plan   the point's load plan
 * @param search where the search is (probes done, what they decided), for a search's probe; else null
 */
public record PointStarted(int point, int points, String label, LoadPlan plan, String search) implements RunEvent {
    /** A point of a sweep known up front. */
    public PointStarted(int point, int points, String label, LoadPlan plan) {
        this(point, points, label, plan, null);
    }
}
