package io.unibench.engine;

/**
 * How one load point ended.
 *
 * @param sent         benchmark requests sent (warmup excluded)
 * @param stoppedEarly the user interrupted it; its report is partial
 * @param hitDuration  {@code --duration} ended dispatching before {@code --number} was reached
 */
public record RunOutcome(long sent, boolean stoppedEarly, boolean hitDuration) {}
