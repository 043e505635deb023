package io.unibench.output;

import static io.unibench.Moments.ABSENT;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import io.unibench.metrics.Phase;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestFields;
import io.unibench.metrics.RequestFields.ChunkMoments;
import io.unibench.metrics.RequestFields.Count;
import io.unibench.metrics.RequestFields.Field;
import io.unibench.metrics.RequestFields.Flag;
import io.unibench.metrics.RequestFields.Intervals;
import io.unibench.metrics.RequestFields.Moment;
import io.unibench.metrics.RequestFields.PhasesMs;
import io.unibench.metrics.RequestFields.Real;
import io.unibench.metrics.RequestFields.Text;
import io.unibench.metrics.RequestFields.Whole;
import io.unibench.metrics.RequestRecord;
import io.unibench.OutputFailedException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code requests.jsonl}: one JSON object per line per request, written as records arrive, so a run that is
 * killed still leaves every finished request on disk. Thread-safe.
 *
 * <p>Fields: {@link RequestFields#JSONL}, the list the run history's export shares. {@code index, request_id,
 * conversation_id, turn} (0-based){@code , is_first_turn, is_last_turn, stream, success, error_class, http_status,
 * error_message, finish_reason, start_epoch_ms}; moments in seconds since {@code runStartNanos}
 * ({@code scheduled_s, start_s, headers_s, first_chunk_s, first_token_s, end_s}, null when the moment did not
 * happen); the connection and transfer moments {@code connect_start_s, dns_done_s, connect_done_s, tls_done_s,
 * write_start_s, written_s, first_byte_s} (connection moments null on a reused connection), {@code new_connection},
 * and {@code phases_ms} (queue, dns, connect, tls, write, server_wait, first_token, transfer; null when not
 * applicable); derived seconds {@code latency_s, ttft_s, first_chunk_latency_s, tpot_s, queue_delay_s} and
 * {@code tokens_per_chunk} (null when undefined); {@code itl_s}, the intervals between text-carrying chunks;
 * {@code prompt_tokens, completion_tokens, cached_tokens} (null when unknown / not reported),
 * {@code cached_token_source} ({@code server}, or {@code estimate} for the multi-turn client estimate; null when
 * unknown) and {@code token_source} ({@code server}, {@code server_timings}: llama.cpp's timings without a usage,
 * {@code tokenizer}, {@code estimate});
 * {@code target_prompt_tokens} and {@code synthesized_prompt_tokens}: the length a synthetic prompt (multi-turn: this
 * turn's new message) was aimed at and the length it has under the client's tokenizer (null when not synthesized);
 * {@code error_type}: a failure's error type in the server's words (the error object's {@code type}, with
 * {@code /code} when that is a string; null when none); the server's own timing (llama.cpp {@code timings}, null
 * when it sent none): {@code server_prompt_n, server_prompt_ms, server_predicted_n, server_predicted_ms,
 * server_cache_n}.
 * {@code retried_stale_connection}, true when the request's first attempt went out on a pooled connection the server
 * had closed and failed before any response byte, so it was sent again on a new connection (its {@code start_s}
 * and latencies are the second attempt's), and {@code stale_attempt_start_s}, when that wasted attempt began (its
 * duration is {@code phases_ms.stale_attempt}); {@code cached_token_field}: the member of the server's reply its
 * cached-token figure was read from ({@code prompt_tokens_details.cached_tokens}, {@code prompt_cache_hit_tokens},
 * {@code cache_read_input_tokens}, {@code input_tokens_details.cached_tokens}, llama.cpp's {@code timings.cache_n};
 * null when none or the client's estimate). Reasoning models: {@code first_content_token_s}, the first chunk of the
 * answer after any reasoning ({@code first_token_s} counts reasoning; equal for a reply without it; null when no
 * answer text came), {@code ttfct_s} (time to it), {@code answer_tpot_s} (TPOT of the answer part) and
 * {@code reasoning_tokens} (the server's {@code completion_tokens_details.reasoning_tokens}, null when not sent).
 *
 * <p>Flushing: after a write when half a second has passed since the last flush or 64 KiB are pending, by a
 * background virtual thread every half second while idle, and on close: as often as the run history commits (store.RunRecorder, 0.5 s),
 * so after a {@code kill -9} the file and the store both lack at most the last half second. Flushing every
 * record would cost a system call per request.
 * Each line is made whole in memory first and the file only ever receives whole lines; a write that fails (disk
 * full) cuts the file back to its last whole line, so every line in it is valid JSON. The failure is thrown (an
 * {@link OutputFailedException} naming the file) by the next record's {@link #accept}, which ends the run, and
 * again by {@link #close()}.
 * The writes are guarded by a {@link ReentrantLock}, not {@code synchronized}: a virtual thread blocked in file I/O
 * inside a monitor pins its carrier thread before JDK 24 (JEP 491), and Java 21 is the target.
 */
public final class RequestsJsonlWriter implements RecordSink {
    private static final long FLUSH_INTERVAL_NANOS = 500_000_000L;

    /*
     * Member names pre-quoted once (Jackson otherwise escapes every name of every record) and moments written by
     * SecondsText: the same text as Jackson's double, at a fraction of the cost (bench/HISTORY.md, third round).
     */
    private static final Field[] FIELDS = RequestFields.JSONL.toArray(new Field[0]);
    private static final SerializedString[] NAMES = names(FIELDS);
    private static final Phase[] PHASES = Phase.values();
    private static final SerializedString[] PHASE_NAMES = phaseNames();

    private final Path file;
    private final long runStartNanos;
    private final SeekableByteChannel channel;
    /** The lines made but not yet in the file: only whole lines between records (the generator flushes into it). */
    private final Pending pending = new Pending();
    private final JsonGenerator gen;
    private final ReentrantLock lock = new ReentrantLock();
    private final Thread flusher;
    private long lastFlushNanos = System.nanoTime();
    /** Bytes of whole lines in the file: where it is cut back to when a write fails (guarded by {@code lock}). */
    private long written;
    /** Reused text of one moment (guarded by {@code lock}). */
    private final RawAscii momentText = new RawAscii(SecondsText.MAX_CHARS + 1);
    /** Reused text of one request's {@code itl_s} array (guarded by {@code lock}). */
    private final RawAscii intervalText = new RawAscii(8192);
    private boolean closed;
    private OutputFailedException failure;
    private boolean thrown; // failure was thrown to a record's caller once

    public RequestsJsonlWriter(Path file, long runStartNanos) throws IOException {
        this(file, open(file), runStartNanos);
    }

    /** Writes to {@code channel} (tests: a disk that fills up); {@code file} is the name failures give. */
    RequestsJsonlWriter(Path file, SeekableByteChannel channel, long runStartNanos) throws IOException {
        this.file = file;
        this.runStartNanos = runStartNanos;
        this.channel = channel;
        this.gen = Json.MAPPER.getFactory().createGenerator(pending, JsonEncoding.UTF8);
        gen.setRootValueSeparator(null); // lines are separated by our own '\n'
        this.flusher = Thread.ofVirtual().name("requests-jsonl-flusher").start(this::flushPeriodically);
    }

    private static SeekableByteChannel open(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        return Files.newByteChannel(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }

    /**
     * Adds the request's line. When the file cannot be written (now or by the last flush), throws
     * {@link OutputFailedException} once, so the run ends; the records after it are not written (the run's other
     * sinks and the run history still have them).
     */
    @Override
    public void accept(RequestRecord r) {
        lock.lock();
        try {
            if (closed) return;
            if (failure == null) {
                int mark = pending.size();
                try {
                    write(r);
                    gen.writeRaw('\n');
                    gen.flush(); // the whole line into pending: a flush to the file never cuts a record
                } catch (IOException e) {
                    pending.cut(mark); // pending is memory: not reached; kept whole all the same
                    throw new IllegalStateException("writing a record into memory failed", e);
                }
                long now = System.nanoTime();
                if (pending.size() >= Pending.FLUSH_AT || now - lastFlushNanos >= FLUSH_INTERVAL_NANOS) {
                    flushLocked(now);
                }
            }
            if (failure != null && !thrown) {
                thrown = true;
                throw failure;
            }
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
                    if (failure == null && pending.size() > 0) flushLocked(System.nanoTime());
                } finally {
                    lock.unlock();
                }
            }
        } catch (InterruptedException e) {
            // close() stops us
        }
    }

    /**
     * Writes the pending lines to the file. A failure (disk full mid-write) cuts the file back to its last whole
     * line and is kept: the next record or {@link #close()} throws it.
     */
    private void flushLocked(long now) {
        lastFlushNanos = now;
        if (failure != null || pending.size() == 0) return;
        ByteBuffer bytes = pending.bytes();
        try {
            while (bytes.hasRemaining()) channel.write(bytes);
            written += pending.size();
        } catch (IOException e) {
            failure = new OutputFailedException(file, e);
            try {
                channel.truncate(written);
            } catch (IOException ignored) {
                // the file could not be cut back either: what failed first is the line the user gets
            }
        } finally {
            pending.cut(0);
        }
    }

    /** Writes what is pending and closes the file; throws the write failure, if any, again. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            flushLocked(System.nanoTime());
            try {
                channel.close();
            } catch (IOException e) {
                if (failure == null) failure = new OutputFailedException(file, e);
            }
        } finally {
            lock.unlock();
        }
        flusher.interrupt();
        if (failure != null) throw failure;
    }

    /** An in-memory byte buffer the generator writes into; flushing the generator is copying into it. */
    private static final class Pending extends OutputStream {
        /** The file is written when this much is pending (or half a second has passed). */
        static final int FLUSH_AT = 1 << 16;
        private byte[] buf = new byte[FLUSH_AT + (FLUSH_AT >> 1)];
        private int size;

        int size() {
            return size;
        }

        void cut(int to) {
            size = to;
        }

        ByteBuffer bytes() {
            return ByteBuffer.wrap(buf, 0, size);
        }

        @Override
        public void write(int b) {
            room(1);
            buf[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            room(len);
            System.arraycopy(b, off, buf, size, len);
            size += len;
        }

        private void room(int n) {
            if (size + n > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
        }
    }

    private void write(RequestRecord r) throws IOException {
        gen.writeStartObject();
        for (int i = 0; i < NAMES.length; i++) {
            gen.writeFieldName(NAMES[i]);
            switch (FIELDS[i]) {
                case Whole f -> gen.writeNumber(f.of().applyAsLong(r));
                case Count f -> countOrNull(f.of().applyAsInt(r));
                case Flag f -> gen.writeBoolean(f.of().test(r));
                case Text f -> stringOrNull(f.of().apply(r));
                case Real f -> numberOrNull(f.of().applyAsDouble(r));
                case Moment f -> moment(f.nanos().applyAsLong(r));
                case Intervals f -> writeIntervals(r);
                case ChunkMoments f -> writeChunkMoments(r);
                case PhasesMs f -> writePhases(r);
            }
        }
        gen.writeEndObject();
    }

    private void writePhases(RequestRecord r) throws IOException {
        gen.writeStartObject();
        for (int i = 0; i < PHASES.length; i++) {
            gen.writeFieldName(PHASE_NAMES[i]);
            numberOrNull(PHASES[i].millis(r));
        }
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
            long interval = t[i + 1] - t[i];
            if (interval == 0) { // chunks that came in one read: common, and "0.0" needs no call
                out[pos] = '0';
                out[pos + 1] = '.';
                out[pos + 2] = '0';
                pos += 3;
            } else {
                pos = SecondsText.append(out, pos, interval);
            }
        }
        out[pos++] = ']';
        gen.writeRawValue(intervalText.length(pos));
    }

    /** {@code token_chunk_s}: each text chunk's arrival since the run's start, raw like {@code itl_s}. */
    private void writeChunkMoments(RequestRecord r) throws IOException {
        long[] t = r.timing().tokenChunkNanos();
        byte[] out = intervalText.room(2 + t.length * (SecondsText.MAX_CHARS + 1));
        int pos = 0;
        out[pos++] = '[';
        for (int i = 0; i < t.length; i++) {
            if (i > 0) out[pos++] = ',';
            pos = SecondsText.append(out, pos, t[i] - runStartNanos);
        }
        out[pos++] = ']';
        gen.writeRawValue(intervalText.length(pos));
    }

    private void moment(long nanos) throws IOException {
        if (nanos == ABSENT) {
            gen.writeNull();
        } else {
            gen.writeRawValue(momentText.length(SecondsText.append(momentText.room(0), 0, nanos - runStartNanos)));
        }
    }

    /**
     * A real as Jackson writes it: the latencies in seconds and the phases in milliseconds are whole nanoseconds
     * divided, written by {@link SecondsText#appendIfWhole} (the same text without the general algorithm, which was
     * a quarter of this writer's time), anything else by Jackson.
     */
    private void numberOrNull(double v) throws IOException {
        if (!Double.isFinite(v)) {
            gen.writeNull();
            return;
        }
        int end = SecondsText.appendIfWhole(momentText.room(0), 0, v);
        if (end >= 0) gen.writeRawValue(momentText.length(end));
        else gen.writeNumber(v);
    }

    private void countOrNull(int v) throws IOException {
        if (v >= 0) gen.writeNumber(v);
        else gen.writeNull();
    }

    private void stringOrNull(String v) throws IOException {
        if (v == null) gen.writeNull();
        else gen.writeString(v);
    }

    private static SerializedString[] names(Field[] fields) {
        SerializedString[] names = new SerializedString[fields.length];
        for (int i = 0; i < names.length; i++) names[i] = new SerializedString(fields[i].name());
        return names;
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
