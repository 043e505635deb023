package io.unibench.schedule;

import java.time.Duration;

/**
 * A stored schedule: a scenario document (the same YAML/JSON as {@code unibench run --config}) and when it fires.
 *
 * @param documentName the file name the document came from (the runs' default name is derived from it)
 * @param jitter       each round starts a random 0 … jitter after its fire time (spreads many schedules' load)
 * @param nextFireAt   the next fire time (epoch ms), null until the scheduler first looks at the schedule
 * @param nextDueAt    {@code nextFireAt} plus its drawn jitter: when the round really starts
 */
public record Schedule(String name, String document, String documentName, Trigger trigger, Duration jitter,
                       boolean enabled, Long nextFireAt, Long nextDueAt, long createdAt, long updatedAt) {
    public Schedule withTimes(Long fire, Long due) {
        return new Schedule(name, document, documentName, trigger, jitter, enabled, fire, due, createdAt, updatedAt);
    }
}
