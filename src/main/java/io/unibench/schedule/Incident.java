package io.unibench.schedule;

/**
 * A rule firing for a target, from the round it fired to the round it resolved (null while open).
 *
 * @param kind {@code threshold}, {@code regression} or {@code no_data}
 */
public record Incident(String incidentId, String schedule, String rule, String target, String kind, long openedAt,
                       String firedRound, Long resolvedAt, String resolvedRound, Double firstValue, Double worstValue,
                       Double lastValue) {
    public static final String NO_DATA = "no_data";

    public boolean open() {
        return resolvedAt == null;
    }
}
