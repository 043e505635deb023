package io.unibench.schedule;

import io.unibench.store.Sql;
import io.unibench.schedule.AlertMachine.Event;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Alert state per rule × target, the values each round gave, incidents and the alert history (fired, reminder,
 * resolved), in the run database. {@link #applyRound} writes one round's outcome for one rule × target in one
 * transaction, so a crash never leaves a state without its incident or an incident without its event.
 */
public final class AlertStore {
    private static final String INCIDENT_COLUMNS = "incident_id, schedule, rule, target, kind, opened_at, fired_round, "
            + "resolved_at, resolved_round, first_value, worst_value, last_value";

    private final Db db;

    AlertStore(Db db) {
        this.db = db;
    }

    /** One event of a round with the incident it opened, touched or closed (as it is after the round). */
    public record Change(Event event, Incident incident) {}

    public AlertState state(String schedule, String rule, String target) throws SQLException {
        return db.tx(c -> state(c, schedule, rule, target));
    }

    private static AlertState state(Connection c, String schedule, String rule, String target) throws SQLException {
        List<AlertState> found = Sql.query(c, "SELECT state, breach_streak, clear_streak, no_data_streak, since_notice, "
                + "incident_id, no_data_incident_id FROM alert_states WHERE schedule = ? AND rule = ? AND target = ?",
                rs -> new AlertState(AlertState.Status.valueOf(rs.getString(1)), rs.getInt(2), rs.getInt(3),
                        rs.getInt(4), rs.getInt(5), rs.getString(6), rs.getString(7)), schedule, rule, target);
        return found.isEmpty() ? AlertState.INITIAL : found.getFirst();
    }

    /** Target key → state of every target the rule has seen in this schedule. */
    public Map<String, AlertState> states(String schedule, String rule) throws SQLException {
        Map<String, AlertState> out = new LinkedHashMap<>();
        db.tx(c -> Sql.query(c, "SELECT target FROM alert_states WHERE schedule = ? AND rule = ? ORDER BY target",
                rs -> rs.getString(1), schedule, rule)).forEach(t -> out.put(t, null));
        for (String t : out.keySet()) out.put(t, state(schedule, rule, t));
        return out;
    }

    /**
     * Renames a target's key in its state, values, incidents and history (one transaction), unless {@code to}
     * already has a state: a key of the form from before levels had names becomes its level's key, so the level's
     * open incidents and streaks carry on under it ({@link Target#parse}).
     */
    void rekey(String schedule, String rule, String from, String to) throws SQLException {
        db.tx(c -> {
            if (!Sql.query(c, "SELECT target FROM alert_states WHERE schedule = ? AND rule = ? AND target = ?",
                    rs -> rs.getString(1), schedule, rule, to).isEmpty()) {
                return null;
            }
            for (String table : List.of("alert_states", "alert_observations", "alert_incidents", "alert_events")) {
                Sql.update(c, "UPDATE " + table + " SET target = ? WHERE schedule = ? AND rule = ? AND target = ?", to,
                        schedule, rule, from);
            }
            return null;
        });
    }

    /** The rule's values for the target, newest first, at most {@code limit} rounds. */
    public List<Observation> observations(String schedule, String rule, String target, int limit) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT round_id, at, value, run_id, note FROM alert_observations WHERE "
                + "schedule = ? AND rule = ? AND target = ? ORDER BY at DESC, round_id DESC LIMIT ?",
                rs -> new Observation(rs.getString(1), rs.getLong(2), Sql.optDouble(rs, 3), rs.getString(4),
                        rs.getString(5)), schedule, rule, target, limit));
    }

    /**
     * Stores what the round gave and the machine's step: the value, the new state, incidents opened (fired, no
     * data), updated (their last and worst values every round while open) and closed (resolved, data back), one
     * history event per notice. Returns the changes that call for a notice, in the machine's order.
     */
    public List<Change> applyRound(String schedule, AlertRule rule, String target, Observation o,
                                   AlertMachine.Step step) throws SQLException {
        return db.tx(c -> {
            Sql.update(c, "DELETE FROM alert_observations WHERE schedule = ? AND rule = ? AND target = ? AND round_id = ?",
                    schedule, rule.name(), target, o.roundId());
            Sql.update(c, "INSERT INTO alert_observations (schedule, rule, target, round_id, at, value, run_id, note) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", schedule, rule.name(), target, o.roundId(), o.at(), o.value(),
                    o.runId(), o.note());
            AlertState before = state(c, schedule, rule.name(), target);
            String incident = before.incidentId();
            String noData = before.noDataIncidentId();
            List<Change> changes = new ArrayList<>();
            if (incident != null && o.value() != null) track(c, incident, o.value(), rule.op().higherIsWorse());
            for (Event e : step.events()) {
                switch (e) {
                    case FIRED -> {
                        incident = open(c, schedule, rule, target, rule.regression() != null ? "regression" : "threshold", o);
                        changes.add(new Change(e, event(c, incident, e, o)));
                    }
                    case REMINDER -> changes.add(new Change(e, event(c, incident, e, o)));
                    case RESOLVED -> {
                        close(c, incident, o);
                        changes.add(new Change(e, event(c, incident, e, o)));
                        incident = null;
                    }
                    case NO_DATA -> {
                        noData = open(c, schedule, rule, target, Incident.NO_DATA, o);
                        changes.add(new Change(e, event(c, noData, e, o)));
                    }
                    case DATA_BACK -> {
                        close(c, noData, o);
                        changes.add(new Change(e, event(c, noData, e, o)));
                        noData = null;
                    }
                }
            }
            AlertState s = step.state().withIncidents(incident, noData);
            Sql.update(c, "DELETE FROM alert_states WHERE schedule = ? AND rule = ? AND target = ?", schedule,
                    rule.name(), target);
            Sql.update(c, "INSERT INTO alert_states (schedule, rule, target, state, breach_streak, clear_streak, "
                    + "no_data_streak, since_notice, incident_id, no_data_incident_id, updated_at) VALUES "
                    + "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", schedule, rule.name(), target, s.status().name(),
                    s.breachStreak(), s.clearStreak(), s.noDataStreak(), s.sinceNotice(), incident, noData, o.at());
            return changes;
        });
    }

    private static String open(Connection c, String schedule, AlertRule rule, String target, String kind,
                               Observation o) throws SQLException {
        String id = Db.newId("inc", o.at());
        Sql.update(c, "INSERT INTO alert_incidents (" + INCIDENT_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                id, schedule, rule.name(), target, kind, o.at(), o.roundId(), null, null, o.value(), o.value(), o.value());
        return id;
    }

    /** An open incident's last value, and its worst in the rule's direction. */
    private static void track(Connection c, String incident, double value, boolean higherIsWorse) throws SQLException {
        String worse = higherIsWorse ? ">" : "<";
        Sql.update(c, "UPDATE alert_incidents SET last_value = ?, worst_value = CASE WHEN worst_value IS NULL OR ? "
                + worse + " worst_value THEN ? ELSE worst_value END WHERE incident_id = ?", value, value, value, incident);
    }

    private static void close(Connection c, String incident, Observation o) throws SQLException {
        Sql.update(c, "UPDATE alert_incidents SET resolved_at = ?, resolved_round = ? WHERE incident_id = ?", o.at(),
                o.roundId(), incident);
    }

    private static Incident event(Connection c, String incident, Event e, Observation o) throws SQLException {
        Incident i = incident(c, incident);
        Sql.update(c, "INSERT INTO alert_events (event_id, incident_id, schedule, rule, target, kind, at, round_id, value) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", Db.newId("evt", o.at()), incident, i.schedule(), i.rule(),
                i.target(), e.name().toLowerCase(java.util.Locale.ROOT), o.at(), o.roundId(), o.value());
        return i;
    }

    private static Incident incident(Connection c, String id) throws SQLException {
        return Sql.query(c, "SELECT " + INCIDENT_COLUMNS + " FROM alert_incidents WHERE incident_id = ?",
                AlertStore::incident, id).getFirst();
    }

    /** The schedule's incidents, newest first. */
    public List<Incident> incidents(String schedule, int limit) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT " + INCIDENT_COLUMNS + " FROM alert_incidents WHERE schedule = ? "
                + "ORDER BY opened_at DESC, incident_id DESC LIMIT ?", AlertStore::incident, schedule, limit));
    }

    /** One entry of the alert history. */
    public record HistoryEvent(String incidentId, String rule, String target, String kind, long at, String roundId,
                               Double value) {}

    /** The schedule's alert history, oldest first (the trend page's marks). */
    public List<HistoryEvent> events(String schedule) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT incident_id, rule, target, kind, at, round_id, value FROM alert_events "
                + "WHERE schedule = ? ORDER BY at, event_id", rs -> new HistoryEvent(rs.getString(1), rs.getString(2),
                rs.getString(3), rs.getString(4), rs.getLong(5), rs.getString(6), Sql.optDouble(rs, 7)), schedule));
    }

    private static Incident incident(ResultSet rs) throws SQLException {
        return new Incident(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getLong(6), rs.getString(7), Sql.optLong(rs, 8), rs.getString(9), Sql.optDouble(rs, 10),
                Sql.optDouble(rs, 11), Sql.optDouble(rs, 12));
    }
}
