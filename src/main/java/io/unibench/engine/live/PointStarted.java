package io.unibench.engine.live;

import io.unibench.engine.LoadPlan;

/**
 * A load point begins.
 *
 * @param point  0-based index over the whole run
 * @param points how many points the run has (known up front)
 * @param label  human label, e.g. {@code parallel_8_number_100}, or {@code openai/chat/parallel_8} for a scenario's
 *               provider/scenario/level
 * @param plan   the point's load plan
 */
public record PointStarted(int point, int points, String label, LoadPlan plan) implements RunEvent {}
