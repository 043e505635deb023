package io.unibench.schedule;

import io.unibench.store.Sql;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The notification outbox and its delivery log, in the run database: a notice is enqueued in the round's
 * evaluation and delivered later by whoever runs the schedules ({@link Notifier}), so a slow or failing webhook
 * never holds up a run, and a message survives a restart.
 */
public final class OutboxStore {
    public static final String PENDING = "pending";
    public static final String SENT = "sent";
    public static final String FAILED = "failed";
    private static final String COLUMNS = "message_id, schedule, channel, channel_type, url_env, secret_env, format, "
            + "message_json, created_at, next_attempt_at, attempts, status, last_error";

    private final Db db;

    OutboxStore(Db db) {
        this.db = db;
    }

    /** One message: its channel (by name and variables, never its URL) and what it says. */
    public record Message(String messageId, String schedule, Channel channel, Notice notice, long createdAt,
                          long nextAttemptAt, int attempts, String status, String lastError) {}

    /** One delivery attempt. */
    public record Delivery(String messageId, int attempt, long at, Integer httpStatus, String outcome, String detail) {}

    public String enqueue(String schedule, Channel ch, Notice notice, long nowMillis) throws SQLException {
        String id = Db.newId("msg", nowMillis);
        String json;
        try {
            json = Payloads.JSON.writeValueAsString(notice.in(ch.language())); // rendered in the channel's language
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        db.tx(c -> Sql.update(c, "INSERT INTO notify_outbox (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                id, schedule, ch.name(), ch.type().id(), ch.urlEnv(), ch.secretEnv(),
                ch.format() != null ? ch.format() : ch.signatureHeader(), json, nowMillis, nowMillis, 0, PENDING, null));
        return id;
    }

    /** Pending messages whose next attempt is due, oldest first. */
    public List<Message> due(long nowMillis, int limit) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM notify_outbox WHERE status = ? AND next_attempt_at "
                + "<= ? ORDER BY next_attempt_at, message_id LIMIT ?", OutboxStore::message, PENDING, nowMillis, limit));
    }

    /** The earliest next attempt of a pending message, or null when none is pending. */
    public Long nextAttempt() throws SQLException {
        List<Long> t = db.tx(c -> Sql.query(c, "SELECT MIN(next_attempt_at) FROM notify_outbox WHERE status = ?",
                rs -> Sql.optLong(rs, 1), PENDING));
        return t.isEmpty() ? null : t.getFirst();
    }

    /** A message held back by its channel's rate limit: not an attempt, just later. */
    public void postpone(String messageId, long untilMillis) throws SQLException {
        db.tx(c -> Sql.update(c, "UPDATE notify_outbox SET next_attempt_at = ? WHERE message_id = ?", untilMillis, messageId));
    }

    /**
     * Records an attempt: {@code status} {@link #SENT}, {@link #PENDING} (retry at {@code nextAttemptAt}) or
     * {@link #FAILED} (gave up), with the HTTP status and what went wrong (already masked).
     */
    public void attempted(Message m, long nowMillis, Integer httpStatus, String status, String detail, long nextAttemptAt)
            throws SQLException {
        int attempt = m.attempts() + 1;
        db.tx(c -> {
            Sql.update(c, "INSERT INTO notify_deliveries (message_id, attempt, at, http_status, outcome, detail) "
                    + "VALUES (?, ?, ?, ?, ?, ?)", m.messageId(), attempt, nowMillis, httpStatus,
                    status.equals(SENT) ? "delivered" : "error", detail);
            return Sql.update(c, "UPDATE notify_outbox SET attempts = ?, status = ?, last_error = ?, next_attempt_at = ? "
                    + "WHERE message_id = ?", attempt, status, status.equals(SENT) ? null : detail, nextAttemptAt,
                    m.messageId());
        });
    }

    /** The schedule's messages, newest first. */
    public List<Message> messages(String schedule, int limit) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM notify_outbox WHERE schedule = ? ORDER BY "
                + "created_at DESC, message_id DESC LIMIT ?", OutboxStore::message, schedule, limit));
    }

    /** One message, or null. */
    public Message message(String messageId) throws SQLException {
        List<Message> m = db.tx(c -> Sql.query(c, "SELECT " + COLUMNS + " FROM notify_outbox WHERE message_id = ?",
                OutboxStore::message, messageId));
        return m.isEmpty() ? null : m.getFirst();
    }

    /** A message of the delivery log with its attempts, oldest attempt first. */
    public record Entry(Message message, List<Delivery> attempts) {}

    /** The schedule's delivery log: its newest messages, each with every attempt (failures and retries). */
    public List<Entry> log(String schedule, int limit) throws SQLException {
        List<Entry> out = new java.util.ArrayList<>();
        for (Message m : messages(schedule, limit)) out.add(new Entry(m, deliveries(m.messageId())));
        return out;
    }

    public List<Delivery> deliveries(String messageId) throws SQLException {
        return db.tx(c -> Sql.query(c, "SELECT message_id, attempt, at, http_status, outcome, detail FROM "
                + "notify_deliveries WHERE message_id = ? ORDER BY attempt", rs -> new Delivery(rs.getString(1),
                rs.getInt(2), rs.getLong(3), rs.getObject(4) == null ? null : rs.getInt(4), rs.getString(5),
                rs.getString(6)), messageId));
    }

    private static Message message(ResultSet rs) throws SQLException {
        Channel.Type type = Channel.Type.of(rs.getString(4));
        String extra = rs.getString(7);
        boolean feishu = type == Channel.Type.FEISHU || type == Channel.Type.LARK;
        Notice n;
        try {
            n = Payloads.JSON.readValue(rs.getString(8), Notice.class);
        } catch (JsonProcessingException e) {
            throw new SQLException("outbox message " + rs.getString(1) + " is not a notice: " + e.getOriginalMessage(), e);
        }
        Channel ch = new Channel(rs.getString(3), type, rs.getString(5), rs.getString(6), feishu ? extra : null,
                type == Channel.Type.WEBHOOK ? extra : null, n.language());
        return new Message(rs.getString(1), rs.getString(2), ch, n, rs.getLong(9), rs.getLong(10), rs.getInt(11),
                rs.getString(12), rs.getString(13));
    }
}
