package io.unibench.store;

import static io.unibench.Moments.ABSENT;

import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.ServerTimings;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Locale;

/**
 * A {@link RequestRecord} as a row of {@code requests}: the fields of {@code requests.jsonl}, with moments kept
 * as exact nanoseconds since the point's start (so a stored run rebuilds the very same report) and the text
 * chunk arrivals packed by {@link ChunkTimes}. Counts that were unknown stay -1. A request retried after a stale
 * connection has its wasted attempt's start in {@code stale_start_ns} (V2; null = sent once); the member a
 * server's cached-token figure was read from is {@code cached_token_field} (V16); reasoning models' first content
 * moment and reasoning tokens are {@code first_content_ns} and {@code reasoning_tokens} (V21).
 */
final class RequestRows {
    /** Migration V3: the server's own words (error type, llama.cpp timings); NULL when it said nothing. */
    private static final String SERVER_COLUMNS = "error_type, server_prompt_n, server_prompt_ms, server_predicted_n, "
            + "server_predicted_ms, server_cache_n";
    private static final String PHASE_COLUMNS = "connect_start_ns, dns_done_ns, connect_done_ns, tls_done_ns, "
            + "write_start_ns, written_ns, first_byte_ns";
    static final String COLUMNS = "run_id, point_index, idx, request_id, conversation_id, turn, stream, success, "
            + "error_class, http_status, error_message, finish_reason, start_epoch_ms, scheduled_ns, start_ns, "
            + "headers_ns, first_chunk_ns, first_token_ns, end_ns, chunk_ns, prompt_tokens, completion_tokens, "
            + "cached_tokens, token_source, last_turn, cached_source, " + PHASE_COLUMNS
            + ", prompt_target_tokens, prompt_synth_tokens, " + SERVER_COLUMNS + ", stale_start_ns, cached_token_field, first_content_ns, reasoning_tokens";
    static final String INSERT = "INSERT INTO requests (" + COLUMNS + ") VALUES ("
            + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    /** Columns read back, in {@link #read} order (run_id and point_index are known to the caller). */
    static final String READ_COLUMNS = "idx, request_id, conversation_id, turn, stream, success, error_class, "
            + "http_status, error_message, finish_reason, start_epoch_ms, scheduled_ns, start_ns, headers_ns, "
            + "first_chunk_ns, first_token_ns, end_ns, chunk_ns, prompt_tokens, completion_tokens, cached_tokens, "
            + "token_source, last_turn, cached_source, " + PHASE_COLUMNS + ", prompt_target_tokens, "
            + "prompt_synth_tokens, " + SERVER_COLUMNS + ", stale_start_ns, cached_token_field, first_content_ns, "
            + "reasoning_tokens";
    static final String SELECT = "SELECT " + READ_COLUMNS + " FROM requests";

    /** Stored names of the enums, lower-cased once (per row it was a visible share of the writer's samples). */
    private static final String[] TOKEN_SOURCES = lowerNames(RequestRecord.TokenSource.values());
    private static final String[] CACHE_SOURCES = lowerNames(RequestRecord.CacheSource.values());

    private RequestRows() {}

    private static String[] lowerNames(Enum<?>[] values) {
        String[] names = new String[values.length];
        for (Enum<?> v : values) names[v.ordinal()] = v.name().toLowerCase(Locale.ROOT);
        return names;
    }

    static void bind(PreparedStatement ps, String runId, int point, long base, RequestRecord r) throws SQLException {
        bind(ps, runId, point, base, r, new ChunkTimes.Packer());
    }

    static void bind(PreparedStatement ps, String runId, int point, long base, RequestRecord r,
                     ChunkTimes.Packer packer) throws SQLException {
        int i = 1;
        ps.setString(i++, runId);
        ps.setInt(i++, point);
        ps.setLong(i++, r.position().index());
        ps.setString(i++, clean(r.position().requestId()));
        ps.setString(i++, clean(r.position().conversationId()));
        ps.setInt(i++, r.position().turnIndex());
        ps.setShort(i++, (short) (r.timing().stream() ? 1 : 0));
        ps.setShort(i++, (short) (r.success() ? 1 : 0));
        ps.setString(i++, clean(r.outcome().errorClass()));
        ps.setInt(i++, r.outcome().httpStatus());
        ps.setString(i++, clean(r.outcome().errorMessage()));
        ps.setString(i++, clean(r.outcome().finishReason()));
        ps.setLong(i++, r.timing().startEpochMillis());
        moment(ps, i++, r.timing().scheduledNanos(), base);
        moment(ps, i++, r.timing().startNanos(), base);
        moment(ps, i++, r.timing().headersNanos(), base);
        moment(ps, i++, r.timing().firstChunkNanos(), base);
        moment(ps, i++, r.timing().firstTokenNanos(), base);
        moment(ps, i++, r.timing().endNanos(), base);
        byte[] chunks = packer.pack(r.timing().tokenChunkNanos(), base);
        if (chunks == null) ps.setNull(i++, Types.BINARY);
        else ps.setBytes(i++, chunks);
        ps.setInt(i++, r.tokens().prompt());
        ps.setInt(i++, r.tokens().completion());
        ps.setInt(i++, r.tokens().cached());
        ps.setString(i++, r.tokens().source() == null ? null : TOKEN_SOURCES[r.tokens().source().ordinal()]);
        ps.setShort(i++, (short) (r.position().lastTurn() ? 1 : 0));
        RequestRecord.CacheSource cachedSource = r.tokens().cachedSource();
        ps.setString(i++, cachedSource == null ? null : CACHE_SOURCES[cachedSource.ordinal()]);
        PhaseTimes p = r.phases();
        moment(ps, i++, p.connectStartNanos(), base);
        moment(ps, i++, p.dnsDoneNanos(), base);
        moment(ps, i++, p.connectDoneNanos(), base);
        moment(ps, i++, p.tlsDoneNanos(), base);
        moment(ps, i++, p.writeStartNanos(), base);
        moment(ps, i++, p.writtenNanos(), base);
        moment(ps, i++, p.firstByteNanos(), base);
        ps.setInt(i++, r.tokens().promptTarget());
        ps.setInt(i++, r.tokens().promptSynth());
        ps.setString(i++, clean(r.outcome().errorType()));
        ServerTimings t = r.serverTimings();
        if (t == null) {
            for (int k = 0; k < 5; k++) ps.setNull(i++, k % 2 == 0 ? Types.INTEGER : Types.DOUBLE);
        } else {
            ps.setInt(i++, t.promptN());
            millis(ps, i++, t.promptMs());
            ps.setInt(i++, t.predictedN());
            millis(ps, i++, t.predictedMs());
            ps.setInt(i++, t.cacheN());
        }
        moment(ps, i++, p.staleStartNanos(), base);
        ps.setString(i++, r.tokens().cachedField());
        moment(ps, i++, r.timing().firstContentNanos(), base);
        ps.setInt(i, r.tokens().reasoning());
    }

    /** The timings of columns {@code from..from+4}, or null when the server sent none (the first is NULL). */
    private static ServerTimings timings(ResultSet rs, int from) throws SQLException {
        int promptN = rs.getInt(from);
        if (rs.wasNull()) return null;
        return new ServerTimings(promptN, millis(rs, from + 1), rs.getInt(from + 2), millis(rs, from + 3),
                rs.getInt(from + 4));
    }

    /** A time the server did not give (NaN) is NULL: SQLite has no NaN. */
    private static void millis(PreparedStatement ps, int i, double ms) throws SQLException {
        if (Double.isFinite(ms)) ps.setDouble(i, ms);
        else ps.setNull(i, Types.DOUBLE);
    }

    private static double millis(ResultSet rs, int i) throws SQLException {
        double v = rs.getDouble(i);
        return rs.wasNull() ? Double.NaN : v;
    }

    /** The record of the current row, its moments relative to the point's start (base 0). */
    static RequestRecord read(ResultSet rs) throws SQLException {
        String source = rs.getString(22);
        String cachedSource = rs.getString(24);
        return new RequestRecord(
                new Position(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(23) != 0),
                new Timing(rs.getInt(5) != 0, rs.getLong(11), moment(rs, 12), moment(rs, 13), moment(rs, 14),
                        moment(rs, 15), moment(rs, 16), moment(rs, 17), ChunkTimes.decode(rs.getBytes(18)),
                        firstContent(rs, 42, moment(rs, 16))),
                new Tokens(rs.getInt(19), rs.getInt(20), rs.getInt(21),
                        cachedSource == null ? null
                                : RequestRecord.CacheSource.valueOf(cachedSource.toUpperCase(Locale.ROOT)),
                        source == null ? null : RequestRecord.TokenSource.valueOf(source.toUpperCase(Locale.ROOT)),
                        rs.getInt(32), rs.getInt(33), rs.getString(41), reasoningTokens(rs, 43)),
                new Outcome(rs.getInt(6) != 0, rs.getString(7), rs.getInt(8), rs.getString(9), rs.getString(34),
                        rs.getString(10)),
                new PhaseTimes(moment(rs, 25), moment(rs, 26), moment(rs, 27), moment(rs, 28), moment(rs, 29),
                        moment(rs, 30), moment(rs, 31), moment(rs, 40)),
                timings(rs, 35));
    }

    /**
     * The first content moment; NULL (no answer text, or a row stored before V21) reads as the first token: a row
     * stored before V21 had no reasoning measured, and a reply that reasoned and never answered is then read as if
     * it answered at its first token (the one loss, for a rare failure shape).
     */
    private static long firstContent(ResultSet rs, int i, long firstToken) throws SQLException {
        long v = moment(rs, i);
        return v == ABSENT ? firstToken : v;
    }

    /** NULL: a row stored before V21, when no reasoning was measured (read as none). */
    private static int reasoningTokens(ResultSet rs, int i) throws SQLException {
        int v = rs.getInt(i);
        return rs.wasNull() ? 0 : v;
    }

    private static void moment(PreparedStatement ps, int i, long nanos, long base) throws SQLException {
        if (nanos == ABSENT) ps.setNull(i, Types.BIGINT);
        else ps.setLong(i, nanos - base);
    }

    private static long moment(ResultSet rs, int i) throws SQLException {
        long v = rs.getLong(i);
        return rs.wasNull() ? ABSENT : v;
    }

    /** PostgreSQL text cannot hold NUL; a server's error message might. */
    private static String clean(String s) {
        return s == null || s.indexOf('\0') < 0 ? s : s.replace('\0', ' ');
    }
}
