package io.unibench.report;

import io.unibench.Moments;
import static io.unibench.Moments.ABSENT;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import io.unibench.metrics.Phase;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.ServerTimings;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code requests.jsonl}: one JSON object per line per request, written as records arrive, so a run that is
 * killed still leaves every finished request on disk. Thread-safe.
 *
 * <p>Fields: {@code index, request_id, conversation_id, turn} (0-based){@code , is_first_turn, is_last_turn, stream,
 * success, error_class, http_status,
 * error_message, finish_reason, start_epoch_ms}; moments in seconds since {@code runStartNanos}
 * ({@code scheduled_s, start_s, headers_s, first_chunk_s, first_token_s, end_s}, null when the moment did not
 * happen); the connection and transfer moments {@code connect_start_s, dns_done_s, connect_done_s, tls_done_s,
 * write_start_s, written_s, first_byte_s} (connection moments null on a reused connection), {@code new_connection},
 * and {@code phases_ms} (queue, dns, connect, tls, write, server_wait, first_token, transfer; null when not
 * applicable); derived seconds {@code latency_s, ttft_s, first_chunk_latency_s, tpot_s, queue_delay_s} and
 * {@code tokens_per_chunk} (null when undefined); {@code itl_s}, the intervals between text-carrying chunks;
 * {@code prompt_tokens, completion_tokens, cached_tokens} (null when unknown / not reported),
 * {@code cached_token_source} ({@code server}, or {@code estimate} for the multi-turn client estimate; null when
 * unknown) and {@code token_source} ({@code server}, {@code tokenizer}, {@code estimate});
 * {@code target_prompt_tokens} and {@code synthesized_prompt_tokens}: the length a synthetic prompt (multi-turn: this
 * turn's new message) was aimed at and the length it has under the client's tokenizer (null when not synthesized);
 * {@code error_type}: a failure's error type in the server's words (the error object's {@code type}, with
 * {@code /code} when that is a string; null when none); the server's own timing (llama.cpp {@code timings}, null
 * when it sent none): {@code server_prompt_n, server_prompt_ms, server_predicted_n, server_predicted_ms,
 * server_cache_n}.
 * {@code retried_stale_connection}, true when the request's first attempt went out on a pooled connection the server
 * had closed and failed before any response byte, so it was sent again on a new connection (its {@code start_s}
 * and latencies are the second attempt's), and {@code stale_attempt_start_s}, when that wasted attempt began (its
 * duration is {@code phases_ms.stale_attempt}).
 *
 * <p>Flushing: after a write when half a second has passed since the last flush, by a background virtual thread
 * every half second while idle, and on close: as often as the run history commits (store.RunRecorder, 0.5 s),
 * so after a {@code kill -9} the file and the store both lack at most the last half second. Flushing every
 * record would cost a system call per request.
 * An I/O error stops the writing and is rethrown by {@link #close()}, not on the request completion path.
 * The writes are guarded by a {@link ReentrantLock}, not {@code synchronized}: a virtual thread blocked in file I/O
 * inside a monitor pins its carrier thread before JDK 24 (JEP 491), and Java 21 is the target.
 */
public final class RequestsJsonlWriter implements RecordSink {
    private static final long FLUSH_INTERVAL_NANOS = 500_000_000L;

    /*
     * Member names pre-quoted once (Jackson otherwise escapes every name of every record) and moments written by
     * SecondsText: the same text as Jackson's double, at a fraction of the cost (bench/README.md, third round).
     */
    private static final SerializedString INDEX = new SerializedString("index");
    private static final SerializedString REQUEST_ID = new SerializedString("request_id");
    private static final SerializedString CONVERSATION_ID = new SerializedString("conversation_id");
    private static final SerializedString TURN = new SerializedString("turn");
    private static final SerializedString IS_FIRST_TURN = new SerializedString("is_first_turn");
    private static final SerializedString IS_LAST_TURN = new SerializedString("is_last_turn");
    private static final SerializedString STREAM = new SerializedString("stream");
    private static final SerializedString SUCCESS = new SerializedString("success");
    private static final SerializedString ERROR_CLASS = new SerializedString("error_class");
    private static final SerializedString HTTP_STATUS = new SerializedString("http_status");
    private static final SerializedString ERROR_MESSAGE = new SerializedString("error_message");
    private static final SerializedString FINISH_REASON = new SerializedString("finish_reason");
    private static final SerializedString START_EPOCH_MS = new SerializedString("start_epoch_ms");
    private static final SerializedString SCHEDULED_S = new SerializedString("scheduled_s");
    private static final SerializedString START_S = new SerializedString("start_s");
    private static final SerializedString HEADERS_S = new SerializedString("headers_s");
    private static final SerializedString FIRST_CHUNK_S = new SerializedString("first_chunk_s");
    private static final SerializedString FIRST_TOKEN_S = new SerializedString("first_token_s");
    private static final SerializedString END_S = new SerializedString("end_s");
    private static final SerializedString NEW_CONNECTION = new SerializedString("new_connection");
    private static final SerializedString CONNECT_START_S = new SerializedString("connect_start_s");
    private static final SerializedString DNS_DONE_S = new SerializedString("dns_done_s");
    private static final SerializedString CONNECT_DONE_S = new SerializedString("connect_done_s");
    private static final SerializedString TLS_DONE_S = new SerializedString("tls_done_s");
    private static final SerializedString WRITE_START_S = new SerializedString("write_start_s");
    private static final SerializedString WRITTEN_S = new SerializedString("written_s");
    private static final SerializedString FIRST_BYTE_S = new SerializedString("first_byte_s");
    private static final SerializedString PHASES_MS = new SerializedString("phases_ms");
    private static final SerializedString LATENCY_S = new SerializedString("latency_s");
    private static final SerializedString TTFT_S = new SerializedString("ttft_s");
    private static final SerializedString FIRST_CHUNK_LATENCY_S = new SerializedString("first_chunk_latency_s");
    private static final SerializedString TPOT_S = new SerializedString("tpot_s");
    private static final SerializedString QUEUE_DELAY_S = new SerializedString("queue_delay_s");
    private static final SerializedString TOKENS_PER_CHUNK = new SerializedString("tokens_per_chunk");
    private static final SerializedString ITL_S = new SerializedString("itl_s");
    private static final SerializedString PROMPT_TOKENS = new SerializedString("prompt_tokens");
    private static final SerializedString COMPLETION_TOKENS = new SerializedString("completion_tokens");
    private static final SerializedString CACHED_TOKENS = new SerializedString("cached_tokens");
    private static final SerializedString CACHED_TOKEN_SOURCE = new SerializedString("cached_token_source");
    private static final SerializedString TOKEN_SOURCE = new SerializedString("token_source");
    private static final SerializedString TARGET_PROMPT_TOKENS = new SerializedString("target_prompt_tokens");
    private static final SerializedString SYNTHESIZED_PROMPT_TOKENS = new SerializedString("synthesized_prompt_tokens");
    private static final SerializedString ERROR_TYPE = new SerializedString("error_type");
    private static final SerializedString SERVER_PROMPT_N = new SerializedString("server_prompt_n");
    private static final SerializedString SERVER_PROMPT_MS = new SerializedString("server_prompt_ms");
    private static final SerializedString SERVER_PREDICTED_N = new SerializedString("server_predicted_n");
    private static final SerializedString SERVER_PREDICTED_MS = new SerializedString("server_predicted_ms");
    private static final SerializedString SERVER_CACHE_N = new SerializedString("server_cache_n");
    private static final SerializedString RETRIED_STALE_CONNECTION = new SerializedString("retried_stale_connection");
    private static final SerializedString STALE_ATTEMPT_START_S = new SerializedString("stale_attempt_start_s");
    private static final Phase[] PHASES = Phase.values();
    private static final SerializedString[] PHASE_NAMES = phaseNames();

    private final long runStartNanos;
    private final JsonGenerator gen;
    private final ReentrantLock lock = new ReentrantLock();
    private final Thread flusher;
    private long lastFlushNanos = System.nanoTime();
    private boolean dirty;
    /** Reused text of one moment (guarded by {@code lock}). */
    private final RawAscii momentText = new RawAscii(SecondsText.MAX_CHARS + 1);
    /** Reused text of one request's {@code itl_s} array (guarded by {@code lock}). */
    private final RawAscii intervalText = new RawAscii(8192);
    private boolean closed;
    private IOException failure;

    public RequestsJsonlWriter(Path file, long runStartNanos) throws IOException {
        this.runStartNanos = runStartNanos;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        this.gen = Json.MAPPER.getFactory()
                .createGenerator(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16), JsonEncoding.UTF8);
        gen.setRootValueSeparator(null); // lines are separated by our own '\n'
        this.flusher = Thread.ofVirtual().name("requests-jsonl-flusher").start(this::flushPeriodically);
    }

    @Override
    public void accept(RequestRecord r) {
        lock.lock();
        try {
            if (closed || failure != null) return;
            write(r);
            gen.writeRaw('\n');
            dirty = true;
            long now = System.nanoTime();
            if (now - lastFlushNanos >= FLUSH_INTERVAL_NANOS) flushLocked(now);
        } catch (IOException e) {
            failure = e;
        } finally {
            lock.unlock();
        }
    }

    private void flushPeriodically() {
        try {
            while (true) {
                Thread.sleep(FLUSH_INTERVAL_NANOS / 1_000_000);
                lock.lock();
                try {
                    if (closed) return;
                    if (dirty && failure == null) flushLocked(System.nanoTime());
                } finally {
                    lock.unlock();
                }
            }
        } catch (InterruptedException e) {
            // close() stops us
        } catch (IOException e) {
            lock.lock();
            try {
                if (failure == null) failure = e;
            } finally {
                lock.unlock();
            }
        }
    }

    private void flushLocked(long now) throws IOException {
        gen.flush();
        dirty = false;
        lastFlushNanos = now;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            gen.close();
        } catch (IOException e) {
            if (failure == null) failure = e;
        } finally {
            lock.unlock();
        }
        flusher.interrupt();
        if (failure != null) throw new UncheckedIOException("writing requests.jsonl failed", failure);
    }

    private void write(RequestRecord r) throws IOException {
        gen.writeStartObject();
        longField(INDEX, r.position().index());
        stringOrNull(REQUEST_ID, r.position().requestId());
        stringOrNull(CONVERSATION_ID, r.position().conversationId());
        longField(TURN, r.position().turnIndex());
        booleanField(IS_FIRST_TURN, r.position().firstTurn());
        booleanField(IS_LAST_TURN, r.position().lastTurn());
        booleanField(STREAM, r.timing().stream());
        booleanField(SUCCESS, r.success());
        stringOrNull(ERROR_CLASS, r.outcome().errorClass());
        longField(HTTP_STATUS, r.outcome().httpStatus());
        stringOrNull(ERROR_MESSAGE, r.outcome().errorMessage());
        stringOrNull(FINISH_REASON, r.outcome().finishReason());
        longField(START_EPOCH_MS, r.timing().startEpochMillis());
        moment(SCHEDULED_S, r.timing().scheduledNanos());
        moment(START_S, r.timing().startNanos());
        moment(HEADERS_S, r.timing().headersNanos());
        moment(FIRST_CHUNK_S, r.timing().firstChunkNanos());
        moment(FIRST_TOKEN_S, r.timing().firstTokenNanos());
        moment(END_S, r.timing().endNanos());
        PhaseTimes p = r.phases();
        booleanField(NEW_CONNECTION, p.newConnection());
        moment(CONNECT_START_S, p.connectStartNanos());
        moment(DNS_DONE_S, p.dnsDoneNanos());
        moment(CONNECT_DONE_S, p.connectDoneNanos());
        moment(TLS_DONE_S, p.tlsDoneNanos());
        moment(WRITE_START_S, p.writeStartNanos());
        moment(WRITTEN_S, p.writtenNanos());
        moment(FIRST_BYTE_S, p.firstByteNanos());
        gen.writeFieldName(PHASES_MS);
        gen.writeStartObject();
        for (int i = 0; i < PHASES.length; i++) numberOrNull(PHASE_NAMES[i], PHASES[i].millis(r));
        gen.writeEndObject();
        numberOrNull(LATENCY_S, r.latencySeconds());
        numberOrNull(TTFT_S, r.ttftSeconds());
        numberOrNull(FIRST_CHUNK_LATENCY_S, r.firstChunkSeconds());
        numberOrNull(TPOT_S, r.tpotSeconds());
        numberOrNull(QUEUE_DELAY_S, r.queueDelaySeconds());
        numberOrNull(TOKENS_PER_CHUNK, r.tokensPerChunk());
        gen.writeFieldName(ITL_S);
        writeIntervals(r);
        countOrNull(PROMPT_TOKENS, r.tokens().prompt());
        countOrNull(COMPLETION_TOKENS, r.tokens().completion());
        countOrNull(CACHED_TOKENS, r.tokens().cached());
        stringOrNull(CACHED_TOKEN_SOURCE,
                r.tokens().cachedSource() == null ? null : lowerName(r.tokens().cachedSource()));
        stringOrNull(TOKEN_SOURCE, r.tokens().source() == null ? null : lowerName(r.tokens().source()));
        countOrNull(TARGET_PROMPT_TOKENS, r.tokens().promptTarget());
        countOrNull(SYNTHESIZED_PROMPT_TOKENS, r.tokens().promptSynth());
        stringOrNull(ERROR_TYPE, r.outcome().errorType());
        ServerTimings t = r.serverTimings();
        countOrNull(SERVER_PROMPT_N, t == null ? -1 : t.promptN());
        numberOrNull(SERVER_PROMPT_MS, t == null ? Double.NaN : t.promptMs());
        countOrNull(SERVER_PREDICTED_N, t == null ? -1 : t.predictedN());
        numberOrNull(SERVER_PREDICTED_MS, t == null ? Double.NaN : t.predictedMs());
        countOrNull(SERVER_CACHE_N, t == null ? -1 : t.cacheN());
        booleanField(RETRIED_STALE_CONNECTION, r.retriedStaleConnection());
        moment(STALE_ATTEMPT_START_S, p.staleStartNanos());
        gen.writeEndObject();
    }

    /**
     * {@code itl_s} as one raw array: the same text Jackson writes for each {@link RequestRecord#interChunkSeconds}
     * double (see {@link SecondsText}), at a third of the cost; ~255 numbers per streamed request made this the
     * biggest per-request cost after the event loop.
     */
    private void writeIntervals(RequestRecord r) throws IOException {
        int count = r.interChunkCount();
        long[] t = r.timing().tokenChunkNanos();
        int needed = 2 + count * (SecondsText.MAX_CHARS + 1);
        byte[] out = intervalText.room(needed);
        int pos = 0;
        out[pos++] = '[';
        for (int i = 0; i < count; i++) {
            if (i > 0) out[pos++] = ',';
            pos = SecondsText.append(out, pos, t[i + 1] - t[i]);
        }
        out[pos++] = ']';
        gen.writeRawValue(intervalText.length(pos));
    }

    private void moment(SerializedString name, long nanos) throws IOException {
        gen.writeFieldName(name);
        if (nanos == ABSENT) {
            gen.writeNull();
        } else {
            gen.writeRawValue(momentText.length(SecondsText.append(momentText.room(0), 0, nanos - runStartNanos)));
        }
    }

    private void longField(SerializedString name, long v) throws IOException {
        gen.writeFieldName(name);
        gen.writeNumber(v);
    }

    private void booleanField(SerializedString name, boolean v) throws IOException {
        gen.writeFieldName(name);
        gen.writeBoolean(v);
    }

    private void numberOrNull(SerializedString name, double v) throws IOException {
        gen.writeFieldName(name);
        if (Double.isFinite(v)) gen.writeNumber(v);
        else gen.writeNull();
    }

    private void countOrNull(SerializedString name, int v) throws IOException {
        gen.writeFieldName(name);
        if (v >= 0) gen.writeNumber(v);
        else gen.writeNull();
    }

    private void stringOrNull(SerializedString name, String v) throws IOException {
        gen.writeFieldName(name);
        if (v == null) gen.writeNull();
        else gen.writeString(v);
    }

    private static String lowerName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static SerializedString[] phaseNames() {
        SerializedString[] names = new SerializedString[PHASES.length];
        for (int i = 0; i < names.length; i++) names[i] = new SerializedString(PHASES[i].name().toLowerCase(Locale.ROOT));
        return names;
    }

    /**
     * Reusable ASCII bytes handed to the generator as a raw value: copied straight into its byte buffer, where a
     * char[] raw value would be converted char by char (a third of this writer's samples for {@code itl_s}).
     * Only the unquoted UTF-8 forms are ever asked for by {@code writeRawValue}.
     */
    private static final class RawAscii implements SerializableString {
        private byte[] bytes;
        private int length;

        RawAscii(int capacity) {
            bytes = new byte[capacity];
        }

        /** The buffer, with room for {@code needed} bytes. */
        byte[] room(int needed) {
            if (bytes.length < needed) bytes = new byte[Math.max(needed, bytes.length * 2)];
            return bytes;
        }

        RawAscii length(int n) {
            length = n;
            return this;
        }

        @Override public String getValue() { return new String(bytes, 0, length, StandardCharsets.US_ASCII); }
        @Override public int charLength() { return length; }
        @Override public byte[] asUnquotedUTF8() { return Arrays.copyOf(bytes, length); }

        @Override
        public int appendUnquotedUTF8(byte[] buffer, int offset) {
            if (offset + length > buffer.length) return -1;
            System.arraycopy(bytes, 0, buffer, offset, length);
            return length;
        }

        @Override
        public int appendUnquoted(char[] buffer, int offset) {
            if (offset + length > buffer.length) return -1;
            for (int i = 0; i < length; i++) buffer[offset + i] = (char) bytes[i];
            return length;
        }

        @Override
        public int writeUnquotedUTF8(OutputStream out) throws IOException {
            out.write(bytes, 0, length);
            return length;
        }

        @Override
        public int putUnquotedUTF8(ByteBuffer buffer) {
            if (buffer.remaining() < length) return -1;
            buffer.put(bytes, 0, length);
            return length;
        }

        // a raw value is never quoted
        @Override public char[] asQuotedChars() { throw new UnsupportedOperationException(); }
        @Override public byte[] asQuotedUTF8() { throw new UnsupportedOperationException(); }
        @Override public int appendQuotedUTF8(byte[] buffer, int offset) { throw new UnsupportedOperationException(); }
        @Override public int appendQuoted(char[] buffer, int offset) { throw new UnsupportedOperationException(); }
        @Override public int writeQuotedUTF8(OutputStream out) { throw new UnsupportedOperationException(); }
        @Override public int putQuotedUTF8(ByteBuffer buffer) { throw new UnsupportedOperationException(); }
    }
}
