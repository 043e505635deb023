package io.unibench.schedule;

import io.unibench.store.Sql;
import io.unibench.BadInputException;
import io.unibench.store.Owner;
import io.unibench.store.StoreLocation;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Schedules, their extra alert rules and their rounds, in the run database (SQLite or PostgreSQL, migration V10).
 * Thread-safe: one connection, one transaction per call ({@link Db}). Alert state and the outbox are
 * {@link #alerts()} and {@link #outbox()} over the same connection.
 */
public final class ScheduleStore implements AutoCloseable {
    private static final String COLUMNS = "name, document, document_name, cron, time_zone, every_ms, jitter_ms, "
            + "enabled, next_fire_at, next_due_at, created_at, updated_at";
    private static final String ROUND_COLUMNS = "round_id, schedule, trigger_kind, due_at, started_at, ended_at, "
            + "status, reason";

    private final Db db;
    private final StoreLocation location;
    private final AlertStore alerts;
    private final OutboxStore outbox;

    private ScheduleStore(Db db, StoreLocation location) {
        this.db = db;
        this.location = location;
        this.alerts = new AlertStore(db);
        this.outbox = new OutboxStore(db);
    }

    public static ScheduleStore open(StoreLocation location) throws SQLException {
        return new ScheduleStore(Db.open(location), location);
    }

    public StoreLocation location() {
        return location;
    }

    public AlertStore alerts() {
        return alerts;
    }

    public OutboxStore outbox() {
        return outbox;
    }

    // ---- schedules ------------------------------------------------------------------------------

    /** Inserts a new schedule; bad input when the name is taken. */
    public void add(Schedule s) throws SQLException {
        db.tx(c -> {
            if (!Sql.query(c, "SELECT 1 FROM schedules WHERE name = ?", rs -> 1, s.name()).isEmpty()) {
                throw new BadInputException("schedule '" + s.name() + "': already exists (schedule remove it first, "
                        + "or choose another name)");
            }
            TriggerColumns t = TriggerColumns.of(s.trigger());
            return Sql.update(c, "INSERT INTO schedules (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    s.name(), s.document(), s.documentName(), t.cron, t.zone, t.everyMs, s.jitter().toMillis(),
                    s.enabled(), s.nextFireAt(), s.nextDueAt(), s.createdAt(), s.updatedAt());
        });
    }

    /** Replaces a schedule's document, trigger, jitter and enabled flag (its next fire time is recomputed). */
    public void update(Schedule s) throws SQLException {
        db.tx(c -> {
            TriggerColumns t = TriggerColumns.of(s.trigger());
            int n = Sql.update(c, "UPDATE schedules SET document = ?, document_name = ?, cron = ?, time_zone = ?, "
                            + "every_ms = ?, jitter_ms = ?, enabled = ?, next_fire_at = ?, next_due_at = ?, updated_at = ? "
                            + "WHERE name = ?", s.document(), s.documentName(), t.cron, t.zone, t.everyMs,
                    s.jitter().toMillis(), s.enabled(), s.nextFireAt(), s.nextDueAt(), s.updatedAt(), s.name());
            if (n == 0) throw noSuch(s.name());
            return n;
        });
    }

    public List<Schedule> list() throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM schedules ORDER BY name", ScheduleStore::schedule));
    }

    /** The schedule, or bad input naming it. */
    public Schedule get(String name) throws SQLException {
        List<Schedule> found = db.tx(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM schedules WHERE name = ?",
                ScheduleStore::schedule, name));
        if (found.isEmpty()) throw noSuch(name);
        return found.getFirst();
    }

    public void setEnabled(String name, boolean enabled, long nowMillis) throws SQLException {
        db.tx(c -> {
            // re-enabled: the scheduler computes the next fire time from now (no catch-up for the disabled time)
            int n = Sql.update(c, "UPDATE schedules SET enabled = ?, next_fire_at = NULL, next_due_at = NULL, "
                    + "updated_at = ? WHERE name = ?", enabled, nowMillis, name);
            if (n == 0) throw noSuch(name);
            return n;
        });
    }

    /** The scheduler's bookkeeping: the next fire time and when that round is due (with its jitter). */
    public void setNext(String name, Long fireAt, Long dueAt) throws SQLException {
        db.tx(c -> Sql.update(c, "UPDATE schedules SET next_fire_at = ?, next_due_at = ? WHERE name = ?",
                fireAt, dueAt, name));
    }

    /** Removes the schedule with its rules, rounds and alert state; its runs stay in the history. */
    public void remove(String name) throws SQLException {
        db.tx(c -> {
            if (Sql.update(c, "DELETE FROM schedules WHERE name = ?", name) == 0) throw noSuch(name);
            Sql.update(c, "DELETE FROM round_runs WHERE round_id IN (SELECT round_id FROM schedule_rounds WHERE "
                    + "schedule = ?)", name);
            for (String table : List.of("schedule_rules", "schedule_rounds", "alert_observations", "alert_states",
                    "alert_incidents", "alert_events")) {
                Sql.update(c, "DELETE FROM " + table + " WHERE schedule = ?", name);
            }
            return null;
        });
    }

    private static BadInputException noSuch(String name) {
        return new BadInputException("schedule '" + name + "': no such schedule (schedule list shows them)");
    }

    private static Schedule schedule(ResultSet rs) throws SQLException {
        long created = rs.getLong(11);
        String cron = rs.getString(4);
        Trigger trigger = cron != null ? Trigger.cron(cron, rs.getString(5), "cron")
                : new Trigger.Every(Duration.ofMillis(rs.getLong(6)), created);
        return new Schedule(rs.getString(1), rs.getString(2), rs.getString(3), trigger,
                Duration.ofMillis(rs.getLong(7)), rs.getInt(8) != 0, Sql.optLong(rs, 9), Sql.optLong(rs, 10), created,
                rs.getLong(12));
    }

    private record TriggerColumns(String cron, String zone, Long everyMs) {
        static TriggerColumns of(Trigger t) {
            return switch (t) {
                case Trigger.Cron c -> new TriggerColumns(c.expression(), c.zone().getId(), null);
                case Trigger.Every e -> new TriggerColumns(null, null, e.interval().toMillis());
            };
        }
    }

    // ---- per-schedule rules (UI/API) ------------------------------------------------------------

    /** Adds or replaces one rule given outside the document (its {@code alerts:} entry as JSON). */
    public void putRule(String schedule, String rule, String ruleJson) throws SQLException {
        db.tx(c -> {
            Sql.update(c, "DELETE FROM schedule_rules WHERE schedule = ? AND name = ?", schedule, rule);
            return Sql.update(c, "INSERT INTO schedule_rules (schedule, name, rule_json) VALUES (?, ?, ?)", schedule,
                    rule, ruleJson);
        });
    }

    public boolean removeRule(String schedule, String rule) throws SQLException {
        return db.tx(c -> Sql.update(c, "DELETE FROM schedule_rules WHERE schedule = ? AND name = ?", schedule, rule)) > 0;
    }

    /** Rule name → JSON, in name order. */
    public Map<String, String> rules(String schedule) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        db.tx(c -> Sql.query(c, "SELECT name, rule_json FROM schedule_rules WHERE schedule = ? ORDER BY name",
                rs -> out.put(rs.getString(1), rs.getString(2)), schedule));
        return out;
    }

    // ---- rounds ---------------------------------------------------------------------------------

    /**
     * Records a round as queued unless one of the schedule is still queued or running: then a skipped round is
     * recorded instead, naming the one in the way. Returns the recorded round (check its status).
     */
    public Round startRound(String schedule, String trigger, long dueAt, long nowMillis) throws SQLException {
        return db.tx(c -> {
            List<Round> active = Sql.query(c, "SELECT " + ROUND_COLUMNS + " FROM schedule_rounds WHERE schedule = ? "
                    + "AND status IN (?, ?) ORDER BY due_at", ScheduleStore::round, schedule, Round.QUEUED, Round.RUNNING);
            String id = Db.newId("round", nowMillis);
            Owner me = Owner.current();
            if (!active.isEmpty()) {
                Round busy = active.getFirst();
                String reason = "round " + busy.roundId() + " (due " + Times.utc(busy.dueAt()) + ") is still "
                        + busy.status();
                insertRound(c, id, schedule, trigger, dueAt, nowMillis, Round.SKIPPED, reason, me);
                return new Round(id, schedule, trigger, dueAt, null, nowMillis, Round.SKIPPED, reason, List.of());
            }
            insertRound(c, id, schedule, trigger, dueAt, null, Round.QUEUED, null, me);
            return new Round(id, schedule, trigger, dueAt, null, null, Round.QUEUED, null, List.of());
        });
    }

    /** A skipped round that was never attempted (fire times missed while nothing ran the schedules). */
    public Round skipRound(String schedule, String trigger, long dueAt, String reason, long nowMillis)
            throws SQLException {
        return db.tx(c -> {
            String id = Db.newId("round", nowMillis);
            insertRound(c, id, schedule, trigger, dueAt, nowMillis, Round.SKIPPED, reason, Owner.current());
            return new Round(id, schedule, trigger, dueAt, null, nowMillis, Round.SKIPPED, reason, List.of());
        });
    }

    private static void insertRound(Connection c, String id, String schedule, String trigger, long dueAt, Long endedAt,
                                    String status, String reason, Owner owner) throws SQLException {
        Sql.update(c, "INSERT INTO schedule_rounds (round_id, schedule, trigger_kind, due_at, started_at, ended_at, "
                        + "status, reason, owner_host, owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", id, schedule,
                trigger, dueAt, null, endedAt, status, reason, owner.host(), owner.pid());
    }

    public void roundRunning(String roundId, long nowMillis) throws SQLException {
        db.tx(c -> Sql.update(c, "UPDATE schedule_rounds SET status = ?, started_at = ? WHERE round_id = ?",
                Round.RUNNING, nowMillis, roundId));
    }

    /** The round's end: finished or failed (with why), and the runs it stored. */
    public void roundEnded(String roundId, String status, String reason, List<String> runIds, long nowMillis)
            throws SQLException {
        db.tx(c -> {
            Sql.update(c, "UPDATE schedule_rounds SET status = ?, reason = ?, ended_at = ? WHERE round_id = ?", status,
                    reason, nowMillis, roundId);
            for (String run : runIds) {
                Sql.update(c, "INSERT INTO round_runs (round_id, run_id) VALUES (?, ?)", roundId, run);
            }
            return null;
        });
    }

    /**
     * Rounds left queued or running by a process of this host that is gone (killed service, killed
     * {@code schedule run}): marked interrupted so they no longer make every later round skip. Returns how many.
     */
    public int recoverAbandoned(long nowMillis) throws SQLException {
        Owner me = Owner.current();
        return db.tx(c -> {
            List<String[]> active = Sql.query(c, "SELECT round_id, owner_host, owner_pid FROM schedule_rounds WHERE "
                    + "status IN (?, ?)", rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)},
                    Round.QUEUED, Round.RUNNING);
            int n = 0;
            for (String[] r : active) {
                boolean mine = me.host().equals(r[1]);
                boolean gone = mine && Long.parseLong(r[2]) != me.pid()
                        && ProcessHandle.of(Long.parseLong(r[2])).map(p -> !p.isAlive()).orElse(true);
                if (gone) {
                    n += Sql.update(c, "UPDATE schedule_rounds SET status = ?, ended_at = ?, reason = ? WHERE round_id = ?",
                            Round.INTERRUPTED, nowMillis, "the process running it (pid " + r[2] + ") is gone", r[0]);
                }
            }
            return n;
        });
    }

    /** The schedule's rounds, newest first, at most {@code limit}. */
    public List<Round> rounds(String schedule, int limit) throws SQLException {
        return db.tx(c -> {
            List<Round> rows = Sql.query(c, "SELECT " + ROUND_COLUMNS + " FROM schedule_rounds WHERE schedule = ? "
                    + "ORDER BY due_at DESC, round_id DESC LIMIT ?", ScheduleStore::round, schedule, limit);
            List<Round> out = new ArrayList<>(rows.size());
            for (Round r : rows) out.add(withRuns(c, r));
            return out;
        });
    }

    public Round round(String roundId) throws SQLException {
        return db.tx(c -> {
            List<Round> rows = Sql.query(c, "SELECT " + ROUND_COLUMNS + " FROM schedule_rounds WHERE round_id = ?",
                    ScheduleStore::round, roundId);
            if (rows.isEmpty()) throw new BadInputException("round '" + roundId + "': no such round");
            return withRuns(c, rows.getFirst());
        });
    }

    private static Round withRuns(Connection c, Round r) throws SQLException {
        List<String> runs = Sql.query(c, "SELECT run_id FROM round_runs WHERE round_id = ? ORDER BY run_id",
                rs -> rs.getString(1), r.roundId());
        return new Round(r.roundId(), r.schedule(), r.trigger(), r.dueAt(), r.startedAt(), r.endedAt(), r.status(),
                r.reason(), runs);
    }

    private static Round round(ResultSet rs) throws SQLException {
        return new Round(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), Sql.optLong(rs, 5),
                Sql.optLong(rs, 6), rs.getString(7), rs.getString(8), List.of());
    }

    @Override
    public void close() throws SQLException {
        db.close();
    }
}
