package io.unibench.report;

import static io.unibench.metrics.RequestRecord.ABSENT;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import io.unibench.metrics.Phase;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
 * turn's new message) was aimed at and the length it has under the client's tokenizer (null when not synthesized).
 *
 * <p>Flushing: after a write when a second has passed since the last flush, by a background virtual thread
 * once a second while idle, and on close. Flushing every record would cost a system call per request.
 * An I/O error stops the writing and is rethrown by {@link #close()}, not on the request completion path.
 */
public final class RequestsJsonlWriter implements RecordSink {
    private static final long FLUSH_INTERVAL_NANOS = 1_000_000_000L;

    private final long runStartNanos;
    private final JsonGenerator gen;
    private final Object lock = new Object();
    private final Thread flusher;
    private long lastFlushNanos = System.nanoTime();
    private boolean dirty;
    /** Reused text of one request's {@code itl_s} array (guarded by {@code lock}). */
    private char[] intervalText = new char[8192];
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
        synchronized (lock) {
            if (closed || failure != null) return;
            try {
                write(r);
                gen.writeRaw('\n');
                dirty = true;
                long now = System.nanoTime();
                if (now - lastFlushNanos >= FLUSH_INTERVAL_NANOS) flushLocked(now);
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    private void flushPeriodically() {
        try {
            while (true) {
                Thread.sleep(FLUSH_INTERVAL_NANOS / 1_000_000);
                synchronized (lock) {
                    if (closed) return;
                    if (dirty && failure == null) flushLocked(System.nanoTime());
                }
            }
        } catch (InterruptedException e) {
            // close() stops us
        } catch (IOException e) {
            synchronized (lock) {
                if (failure == null) failure = e;
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
        synchronized (lock) {
            if (closed) return;
            closed = true;
            try {
                gen.close();
            } catch (IOException e) {
                if (failure == null) failure = e;
            }
        }
        flusher.interrupt();
        if (failure != null) throw new UncheckedIOException("writing requests.jsonl failed", failure);
    }

    private void write(RequestRecord r) throws IOException {
        gen.writeStartObject();
        gen.writeNumberField("index", r.index());
        stringOrNull("request_id", r.requestId());
        stringOrNull("conversation_id", r.conversationId());
        gen.writeNumberField("turn", r.turnIndex());
        gen.writeBooleanField("is_first_turn", r.firstTurn());
        gen.writeBooleanField("is_last_turn", r.lastTurn());
        gen.writeBooleanField("stream", r.stream());
        gen.writeBooleanField("success", r.success());
        stringOrNull("error_class", r.errorClass());
        gen.writeNumberField("http_status", r.httpStatus());
        stringOrNull("error_message", r.errorMessage());
        stringOrNull("finish_reason", r.finishReason());
        gen.writeNumberField("start_epoch_ms", r.startEpochMillis());
        moment("scheduled_s", r.scheduledNanos());
        moment("start_s", r.startNanos());
        moment("headers_s", r.headersNanos());
        moment("first_chunk_s", r.firstChunkNanos());
        moment("first_token_s", r.firstTokenNanos());
        moment("end_s", r.endNanos());
        PhaseTimes p = r.phases();
        gen.writeBooleanField("new_connection", p.newConnection());
        moment("connect_start_s", p.connectStartNanos());
        moment("dns_done_s", p.dnsDoneNanos());
        moment("connect_done_s", p.connectDoneNanos());
        moment("tls_done_s", p.tlsDoneNanos());
        moment("write_start_s", p.writeStartNanos());
        moment("written_s", p.writtenNanos());
        moment("first_byte_s", p.firstByteNanos());
        gen.writeObjectFieldStart("phases_ms");
        for (Phase phase : Phase.values()) numberOrNull(phase.name().toLowerCase(java.util.Locale.ROOT), phase.millis(r));
        gen.writeEndObject();
        numberOrNull("latency_s", r.latencySeconds());
        numberOrNull("ttft_s", r.ttftSeconds());
        numberOrNull("first_chunk_latency_s", r.firstChunkSeconds());
        numberOrNull("tpot_s", r.tpotSeconds());
        numberOrNull("queue_delay_s", r.queueDelaySeconds());
        numberOrNull("tokens_per_chunk", r.tokensPerChunk());
        gen.writeFieldName("itl_s");
        writeIntervals(r);
        countOrNull("prompt_tokens", r.promptTokens());
        countOrNull("completion_tokens", r.completionTokens());
        countOrNull("cached_tokens", r.cachedTokens());
        stringOrNull("cached_token_source",
                r.cachedTokenSource() == null ? null : r.cachedTokenSource().name().toLowerCase());
        stringOrNull("token_source", r.tokenSource() == null ? null : r.tokenSource().name().toLowerCase());
        countOrNull("target_prompt_tokens", r.promptTargetTokens());
        countOrNull("synthesized_prompt_tokens", r.promptSynthTokens());
        gen.writeEndObject();
    }

    /**
     * {@code itl_s} as one raw array: the same text Jackson writes for each {@link RequestRecord#interChunkSeconds}
     * double (see {@link SecondsText}), at a third of the cost; ~255 numbers per streamed request made this the
     * biggest per-request cost after the event loop.
     */
    private void writeIntervals(RequestRecord r) throws IOException {
        int count = r.interChunkCount();
        long[] t = r.tokenChunkNanos();
        int needed = 2 + count * (SecondsText.MAX_CHARS + 1);
        if (intervalText.length < needed) intervalText = new char[Math.max(needed, intervalText.length * 2)];
        char[] out = intervalText;
        int pos = 0;
        out[pos++] = '[';
        for (int i = 0; i < count; i++) {
            if (i > 0) out[pos++] = ',';
            pos = SecondsText.append(out, pos, t[i + 1] - t[i]);
        }
        out[pos++] = ']';
        gen.writeRawValue(out, 0, pos);
    }

    private void moment(String name, long nanos) throws IOException {
        if (nanos == ABSENT) gen.writeNullField(name);
        else gen.writeNumberField(name, (nanos - runStartNanos) / 1e9);
    }

    private void numberOrNull(String name, double v) throws IOException {
        if (Double.isFinite(v)) gen.writeNumberField(name, v);
        else gen.writeNullField(name);
    }

    private void countOrNull(String name, int v) throws IOException {
        if (v >= 0) gen.writeNumberField(name, v);
        else gen.writeNullField(name);
    }

    private void stringOrNull(String name, String v) throws IOException {
        if (v == null) gen.writeNullField(name);
        else gen.writeStringField(name, v);
    }
}
