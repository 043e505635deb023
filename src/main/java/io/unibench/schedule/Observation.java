package io.unibench.schedule;

/**
 * What a rule saw of a target in one round.
 *
 * @param value null when the round gave no value (see {@code note})
 * @param runId the stored run the value was read from, or null
 * @param note  why there is no value, or what the regression baseline was
 */
public record Observation(String roundId, long at, Double value, String runId, String note) {}
