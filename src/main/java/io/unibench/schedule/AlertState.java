package io.unibench.schedule;

/**
 * Where one rule stands for one target after a round.
 *
 * @param breachStreak    rounds in a row the condition held (no-data rounds neither count nor reset it)
 * @param clearStreak     while firing: rounds in a row it did not hold
 * @param noDataStreak    rounds in a row without a value
 * @param sinceNotice     while firing: rounds since the last notice (fired or reminder)
 * @param incidentId      the open incident while firing, else null
 * @param noDataIncidentId the open no-data incident, else null
 */
public record AlertState(Status status, int breachStreak, int clearStreak, int noDataStreak, int sinceNotice,
                         String incidentId, String noDataIncidentId) {
    public static final AlertState INITIAL = new AlertState(Status.OK, 0, 0, 0, 0, null, null);

    public enum Status { OK, PENDING, FIRING }

    AlertState withIncidents(String incident, String noData) {
        return new AlertState(status, breachStreak, clearStreak, noDataStreak, sinceNotice, incident, noData);
    }
}
