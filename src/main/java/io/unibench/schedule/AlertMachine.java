package io.unibench.schedule;

import io.unibench.schedule.AlertState.Status;

import java.util.ArrayList;
import java.util.List;

/**
 * The state machine of one rule × target, one step per round: ok → pending → firing → ok. Pure (no I/O, no clock),
 * so the same stored values always give the same transitions.
 *
 * <ul>
 *   <li>A round where the condition holds adds to the breach streak; at {@code for_rounds} the rule fires (one
 *       notice). Pending never notifies.</li>
 *   <li>While firing, {@code resolve_after_rounds} rounds in a row within bounds resolve it (one notice);
 *       a breach in between resets that count. With {@code remind_every_rounds} a still-firing rule notifies
 *       again every N rounds.</li>
 *   <li>A round without a value (the round failed, the point is missing, too few successes) neither counts toward
 *       nor resets any streak; {@code no_data_rounds} such rounds in a row open their own no-data incident, which
 *       the next value resolves.</li>
 *   <li>A round whose value's 95 % interval straddles a threshold rule's threshold is inconclusive
 *       ({@link #inconclusive}): it is data (it ends a no-data streak, and resolves a no-data incident), but it is
 *       neither a breach nor a recovery: the breach streak, a firing rule's clear streak and its reminder count stay
 *       as they were, as on a no-data round, and nothing fires, reminds or resolves.</li>
 * </ul>
 */
public final class AlertMachine {
    public enum Event { FIRED, REMINDER, RESOLVED, NO_DATA, DATA_BACK }

    /** The state after the round and what it calls for (incident ids are the store's to fill in). */
    public record Step(AlertState state, List<Event> events) {
        public Step {
            events = List.copyOf(events);
        }
    }

    private AlertMachine() {}

    /**
     * An inconclusive round (the interval straddles the threshold): the state is held; only a no-data streak ends
     * ({@link Event#DATA_BACK} when it had opened an incident).
     */
    public static Step inconclusive(AlertState s) {
        List<Event> events = s.noDataIncidentId() != null ? List.of(Event.DATA_BACK) : List.of();
        return new Step(new AlertState(s.status(), s.breachStreak(), s.clearStreak(), 0, s.sinceNotice(),
                s.incidentId(), s.noDataIncidentId()), events);
    }

    /** @param breach the condition held this round; ignored when {@code noData} */
    public static Step step(AlertRule rule, AlertState s, boolean noData, boolean breach) {
        List<Event> events = new ArrayList<>();
        if (noData) {
            int streak = s.noDataStreak() + 1;
            if (rule.noDataRounds() > 0 && streak >= rule.noDataRounds() && s.noDataIncidentId() == null) {
                events.add(Event.NO_DATA);
            }
            return new Step(new AlertState(s.status(), s.breachStreak(), s.clearStreak(), streak, s.sinceNotice(),
                    s.incidentId(), s.noDataIncidentId()), events);
        }
        if (s.noDataIncidentId() != null) events.add(Event.DATA_BACK);
        AlertState next;
        if (breach) {
            int streak = s.breachStreak() + 1;
            if (s.status() == Status.FIRING) {
                int since = s.sinceNotice() + 1;
                if (rule.remindEveryRounds() > 0 && since >= rule.remindEveryRounds()) {
                    events.add(Event.REMINDER);
                    since = 0;
                }
                next = new AlertState(Status.FIRING, streak, 0, 0, since, s.incidentId(), s.noDataIncidentId());
            } else if (streak >= rule.forRounds()) {
                events.add(Event.FIRED);
                next = new AlertState(Status.FIRING, streak, 0, 0, 0, s.incidentId(), s.noDataIncidentId());
            } else {
                next = new AlertState(Status.PENDING, streak, 0, 0, 0, s.incidentId(), s.noDataIncidentId());
            }
        } else if (s.status() == Status.FIRING) {
            int clear = s.clearStreak() + 1;
            if (clear >= rule.resolveAfterRounds()) {
                events.add(Event.RESOLVED);
                next = new AlertState(Status.OK, 0, 0, 0, 0, s.incidentId(), s.noDataIncidentId());
            } else {
                next = new AlertState(Status.FIRING, 0, clear, 0, s.sinceNotice() + 1, s.incidentId(),
                        s.noDataIncidentId());
            }
        } else {
            next = new AlertState(Status.OK, 0, 0, 0, 0, s.incidentId(), s.noDataIncidentId());
        }
        return new Step(next, events);
    }
}
