package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.unibench.Moments;
import io.unibench.Secrets;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request on the wire, from acquiring a connection to the last byte.
 *
 * <p>Threading: once a channel is assigned, everything runs on that channel's event loop. Events from outside
 * (total timeout, cancellation) either finish the exchange directly while it still has no channel, or hop onto
 * the channel's loop. The {@code finished} flag and the channel assignment are guarded by {@code this} so that
 * exactly one of those paths completes the future.
 *
 * <p>Stale connections: a server may close a keep-alive connection just as the pool hands it out (llama.cpp's
 * server closes after every streamed reply while its headers say keep-alive; gateways close idle connections). A
 * request that fails that way, on a reused connection and before any byte of its response arrived, is sent once
 * more on a new connection, as OkHttp's {@code retryOnConnectionFailure} and Apache HttpClient's stale-connection
 * rule do; never after a response byte, never a second time, never after a failure on a new connection. The
 * result's start is then the second attempt's (so latency and TTFT are those of the attempt the server answered)
 * and {@link WireTimes#staleStartNanos()} keeps the start of the wasted one. The rule covers a connection closed
 * while the pool hands it out (found closed before the write) and one closed after the request was written and
 * before any response byte (the write fails, or the close or reset arrives). The new connection is made after the
 * event loop's current batch of socket events ({@link ConnectionPool}), so it cannot inherit the stale one's.
 */
final class Exchange implements ConnectionPool.Waiter {

    private enum Mode { SSE, BODY, ERROR_BODY }

    /** Largest non-streamed body accepted; a reply beyond it is treated as broken rather than buffered. */
    private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;
    /** Bytes of an error body kept for its message. */
    private static final int MAX_ERROR_BODY_BYTES = 64 * 1024;
    /** Bytes of a raw reply kept ({@link LlmClient#raw}); the rest is read and dropped. */
    static final int MAX_RAW_BYTES = 16 * 1024 * 1024;
    /**
     * How long the end of a response may trail its {@code [DONE]}. Servers end the response right after it; one
     * that does not costs this delay once, then its connection is dropped rather than reused.
     */
    private static final long DRAIN_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LlmClient client;
    private final byte[] body;
    private final boolean stream;
    private final String requestId;
    /** Null: the client's head. */
    private final RequestHead head;
    /** The reply's bytes as they arrived, for {@link LlmClient#raw}; null when not kept. */
    private final ByteAccumulator raw;
    private final CompletableFuture<ClientResult> future = new CompletableFuture<>();
    private volatile long startNanos;
    /** Start of the first attempt when a stale connection made this a second one; ABSENT otherwise. */
    private volatile long staleStartNanos = Moments.ABSENT;
    private volatile ScheduledFuture<?> totalTimer;

    // guarded by this
    private Channel channel;
    private boolean finished;
    /** The total timeout not armed yet (see {@link #deferTotalTimeout}); 0 when none or armed. */
    private long deferredTotalNanos;

    // confined to the channel's event loop
    private ResponseHandler handler;
    private ScheduledFuture<?> readCheck;
    private long requestWrittenNanos = Moments.ABSENT; // write started (the read timeout counts from here)
    private long writtenNanos = Moments.ABSENT;
    /** The request opened a connection: the pool is to make a spare socket once its first token is read (loop only). */
    private boolean spareDue;
    private long firstByteNanos = Moments.ABSENT;
    /** The connection's open timings when this request opened it; {@code null} on a reused connection. */
    private ConnectTimer freshConnection;
    /** The request went out on a connection an earlier request used (what may have gone stale meanwhile). */
    private boolean reusedConnection;
    private long headersNanos = Moments.ABSENT;
    private int status;
    private String retryAfter;
    private boolean keepAlive;
    private Mode mode;
    private SseParser sse;
    private ChunkInterpreter chunks;
    private ByteAccumulator bodyBytes;
    /** The {@code type} of an error body's error object, once read. */
    private String errorBodyType;
    /** Arrival of the read being processed (for events the SSE parser dispatches). */
    private long currentNanos;
    /**
     * {@code [DONE]} arrived: the reply is valid and complete; the future completes when the response ends, so the
     * connection is back in the pool before the caller sends its next request.
     */
    private boolean draining;
    private long doneNanos;

    Exchange(LlmClient client, byte[] body, boolean stream, String requestId) {
        this(client, body, stream, requestId, null, false);
    }

    /**
     * @param head    the request line and headers; {@code null}: the client's ({@code POST} to its endpoint)
     * @param keepRaw keep the reply's body bytes as they arrived ({@link #rawBody}), up to {@link #MAX_RAW_BYTES}
     */
    Exchange(LlmClient client, byte[] body, boolean stream, String requestId, RequestHead head, boolean keepRaw) {
        this.client = client;
        this.body = body;
        this.stream = stream;
        this.requestId = requestId;
        this.head = head;
        this.raw = keepRaw ? new ByteAccumulator(MAX_RAW_BYTES) : null;
    }

    /**
     * The reply's body bytes as they arrived (a stream's events, an error body whole), cut at {@link #MAX_RAW_BYTES};
     * empty unless kept. Read it once the future completed (the event loop wrote it before completing).
     */
    byte[] rawBody() {
        return raw == null ? new byte[0] : java.util.Arrays.copyOf(raw.array(), raw.length());
    }

    byte[] body() {
        return body;
    }

    boolean stream() {
        return stream;
    }

    String requestId() {
        return requestId;
    }

    CompletableFuture<ClientResult> future() {
        return future;
    }

    void start(long nanos) {
        this.startNanos = nanos;
    }

    void totalTimer(ScheduledFuture<?> timer) {
        this.totalTimer = timer;
    }

    /**
     * The total timeout, armed later rather than now from the caller's thread (which would wake an event loop for
     * every request: a thread switch on the request's path): on the channel's loop when the request is written, or
     * from the caller's thread when it has to wait for a connection. Either way it counts from the start. Only for a
     * timeout no shorter than the connect timeout, which bounds the connect that comes before the write.
     */
    void deferTotalTimeout(long nanos) {
        synchronized (this) {
            deferredTotalNanos = nanos;
        }
    }

    @Override
    public void onQueued() {
        armTotalTimer(client.ioLoops());
    }

    private void armTotalTimer(io.netty.util.concurrent.EventExecutorGroup where) {
        long total;
        synchronized (this) {
            total = deferredTotalNanos;
            deferredTotalNanos = 0;
            if (finished || total == 0) {
                return;
            }
        }
        long first = staleStartNanos != Moments.ABSENT ? staleStartNanos : startNanos;
        long remaining = Math.max(0, total - (System.nanoTime() - first));
        totalTimer = where.schedule(() -> abort(ErrorClass.TIMEOUT_TOTAL,
                "request took longer than " + TimeUnit.NANOSECONDS.toMillis(total) + " ms"),
                remaining, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized boolean isDone() {
        return finished;
    }

    @Override
    public boolean wantsNewConnection() {
        return staleStartNanos != Moments.ABSENT;
    }

    /** True once a connection was assigned (the request is written or about to be). */
    synchronized boolean hasChannel() {
        return channel != null;
    }

    // ---- connection acquisition (any thread) ----

    @Override
    public void onAcquired(Channel ch) {
        boolean unwanted;
        synchronized (this) {
            unwanted = finished;
            if (!unwanted) {
                channel = ch;
            }
        }
        if (unwanted) {
            client.pool().release(ch, true); // untouched: still good for someone else
        } else if (ch.eventLoop().inEventLoop()) {
            writeRequest(ch);
        } else {
            ch.eventLoop().execute(() -> writeRequest(ch));
        }
    }

    @Override
    public void onConnectFailed(Throwable cause) {
        finishWithoutChannel(ErrorMapping.classify(cause), ErrorMapping.message(cause));
    }

    /** Ends the request from outside the event loop (total timeout, cancellation). */
    void abort(ErrorClass errorClass, String message) {
        Channel ch;
        synchronized (this) {
            if (finished) {
                return;
            }
            ch = channel;
        }
        if (ch == null) {
            finishWithoutChannel(errorClass, message);
            return;
        }
        try {
            ch.eventLoop().execute(() -> fail(errorClass, message, System.nanoTime()));
        } catch (RejectedExecutionException shuttingDown) {
            ch.close();
            if (markFinished()) {
                complete(minimalFailure(errorClass, message, System.nanoTime()));
            }
        }
    }

    private void finishWithoutChannel(ErrorClass errorClass, String message) {
        long now = System.nanoTime();
        synchronized (this) {
            if (finished || channel != null) {
                if (!finished) {
                    // a channel was assigned meanwhile: let its loop finish the request
                    Channel ch = channel;
                    try {
                        ch.eventLoop().execute(() -> fail(errorClass, message, now));
                    } catch (RejectedExecutionException shuttingDown) {
                        ch.close(); // LlmClient.close() ends requests its stopped loops could not
                    }
                }
                return;
            }
            finished = true;
        }
        complete(minimalFailure(errorClass, message, now));
    }

    // ---- on the channel's event loop from here on ----

    private void writeRequest(Channel ch) {
        try {
            doWriteRequest(ch);
        } catch (RuntimeException e) {
            // a bug must not leave the caller waiting on a future nobody will complete
            fail(ErrorClass.PROTOCOL_ERROR, "cannot send request: " + ErrorMapping.message(e), System.nanoTime());
        }
    }

    private void doWriteRequest(Channel ch) {
        if (isDone()) {
            return; // failed between assignment and now; fail() already closed the channel
        }
        armTotalTimer(ch.eventLoop()); // on its own loop: no wake-up
        handler = ch.attr(ResponseHandler.KEY).get(); // an attribute: a closed channel's pipeline is emptied
        if (handler == null) {
            fail(ErrorClass.PROTOCOL_ERROR, "connection without a response handler", System.nanoTime());
            return;
        }
        handler.attach(this);
        freshConnection = handler.takeFreshConnection();
        reusedConnection = freshConnection == null;
        if (!ch.isActive()) {
            Throwable tls = handler.handshakeFailure(); // closed by a failed handshake before this ran: say so
            if (tls != null) onChannelError(tls);
            else fail(ErrorClass.CONNECTION_RESET, "connection closed before the request was sent", System.nanoTime());
            return;
        }
        ByteBuf request = (head != null ? head : client.head()).encode(ByteBufAllocator.DEFAULT, stream, requestId, body);
        requestWrittenNanos = System.nanoTime();
        ResponseHandler responses = handler;
        ch.writeAndFlush(request).addListener(f -> {
            if (channelUnsafe() != ch) {
                return; // an attempt on a stale connection, already given up
            }
            if (f.isSuccess()) {
                writtenNanos = System.nanoTime();
                // the server opens connections: have a socket ready for the next one, made once this reply's first
                // token is read (afterRead) or the request ends, not now: the spare's ~0.1 ms of CPU while the server
                // works on the prompt slowed llama-server's first token by ~0.13 ms at c=1 (bench/HISTORY.md)
                spareDue = freshConnection != null;
            } else {
                // a failed handshake fails the write too (the engine is closed): the handshake's error says why
                Throwable handshake = responses.handshakeFailure();
                Throwable cause = handshake != null ? handshake : f.cause();
                fail(ErrorMapping.classify(cause), ErrorMapping.message(cause), System.nanoTime());
            }
        });
        long readTimeout = client.readTimeoutNanos();
        if (readTimeout > 0) {
            scheduleReadCheck(readTimeout);
        }
    }

    // ---- the response, from the connection's ResponseDecoder (via ResponseHandler) ----

    /** Raw bytes of this response arrived (before decoding: a head split over reads counts from its first). */
    void onRead(long arrival) {
        if (firstByteNanos == Moments.ABSENT) {
            firstByteNanos = arrival;
        }
    }

    /** A read of this response arrived; false when the request already ended (its channel is closing). */
    private boolean arrived(long arrival) {
        currentNanos = arrival;
        return !isDone();
    }

    void onHead(int status, String contentType, boolean keepAlive, String retryAfter, long arrival) {
        if (!arrived(arrival)) {
            return;
        }
        headersNanos = arrival;
        this.status = status;
        this.retryAfter = retryAfter;
        this.keepAlive = keepAlive;
        if (status < 200 || status > 299) {
            mode = Mode.ERROR_BODY;
            bodyBytes = new ByteAccumulator(MAX_ERROR_BODY_BYTES);
        } else if (contentType.startsWith("text/event-stream") || (stream && !contentType.contains("json"))) {
            mode = Mode.SSE;
            chunks = new ChunkInterpreter(client.mapper(), handler.scanner(), client.api());
            sse = new SseParser(this::onEvent, this::claimEvent);
        } else {
            mode = Mode.BODY;
            chunks = new ChunkInterpreter(client.mapper(), client.api());
            bodyBytes = new ByteAccumulator(MAX_BODY_BYTES);
        }
        if (client.debug().enabled()) {
            client.debug().response(requestId, "HTTP " + status + " " + contentType, null);
        }
    }

    void onBody(byte[] bytes, int offset, int length, long arrival) {
        if (!arrived(arrival)) {
            return;
        }
        if (raw != null) {
            raw.append(bytes, offset, Math.min(length, MAX_RAW_BYTES - raw.length())); // beyond the limit: cut
        }
        if (draining) {
            return;
        }
        if (mode == Mode.SSE) {
            try {
                sse.feed(bytes, offset, length);
            } catch (SseParser.SseException e) {
                fail(ErrorClass.PROTOCOL_ERROR, e.getMessage(), currentNanos);
            }
        } else if (!bodyBytes.append(bytes, offset, length) && mode == Mode.BODY) {
            fail(ErrorClass.PROTOCOL_ERROR, "reply body larger than " + MAX_BODY_BYTES + " bytes", currentNanos);
        }
        // an error body beyond its limit is simply cut: only its start is shown
    }

    void onMalformed(String message, long arrival) {
        if (arrived(arrival)) {
            fail(ErrorClass.PROTOCOL_ERROR, "malformed HTTP response: " + message, arrival);
        }
    }

    /** A read was decoded. */
    void afterRead() {
        if (spareDue && chunks != null && chunks.firstTokenNanos() != Moments.ABSENT) {
            prepareSpare();
        }
        if (draining && readCheck == null && !isDone()) {
            // the response did not end with its [DONE]: wait for the end a little (scheduled here rather than
            // at [DONE], which is nearly always followed by the end in the same read: no timer to cancel)
            scheduleReadCheck(DRAIN_GRACE_NANOS);
        }
    }

    private void onEvent(byte[] buf, int framingStart, int offset, int length) {
        if (draining || isDone()) {
            return; // after [DONE] or a failure, later events change nothing
        }
        if (client.debug().enabled()) {
            client.debug().response(requestId, "chunk", new String(buf, offset, length, StandardCharsets.UTF_8));
        }
        switch (chunks.onEvent(buf, framingStart, offset, length, currentNanos)) {
            case DONE -> startDraining();
            case FAILED -> fail(chunks.failure(), chunks.failureMessage(), currentNanos);
            case CONTINUE -> { }
        }
    }

    /**
     * A token event recognised in place (SseParser.Claimer); anything else goes through {@link #onEvent}. No
     * {@code isDone()} (a lock per event): the parser is only fed while not done, and within one feed the request
     * can only end through an event, i.e. by {@code [DONE]} (draining) or a failure the interpreter keeps (it
     * then claims nothing).
     */
    private int claimEvent(byte[] buf, int offset, int limit) {
        if (draining || client.debug().enabled()) {
            return -1;
        }
        return chunks.claim(buf, offset, limit, currentNanos);
    }

    private void startDraining() {
        draining = true;
        doneNanos = chunks.lastEventNanos(); // onResponsePart schedules the grace check if the response goes on
    }

    void onEnd(long arrival) {
        if (!arrived(arrival)) {
            return;
        }
        if (draining) {
            succeed(doneNanos, keepAlive);
            return;
        }
        switch (mode) {
            case SSE -> {
                try {
                    sse.finish();
                } catch (SseParser.SseException e) {
                    fail(ErrorClass.PROTOCOL_ERROR, e.getMessage(), arrival);
                }
                if (draining) {
                    succeed(doneNanos, keepAlive); // [DONE] was the very last event, without its blank line
                } else if (!isDone()) {
                    endOfBody(chunks.onEndOfStream(), arrival);
                }
            }
            case BODY -> {
                if (client.debug().enabled()) {
                    client.debug().response(requestId, "body", bodyBytes.text(bodyBytes.length()));
                }
                endOfBody(chunks.onBody(bodyBytes.array(), bodyBytes.length(), arrival), arrival);
            }
            case ERROR_BODY -> {
                if (client.debug().enabled()) {
                    client.debug().response(requestId, "error body", bodyBytes.text(bodyBytes.length()));
                }
                fail(ErrorClass.ofStatus(status), errorBodyMessage(), arrival);
            }
        }
    }

    private void endOfBody(ChunkInterpreter.Outcome outcome, long arrival) {
        if (outcome == ChunkInterpreter.Outcome.FAILED) {
            fail(chunks.failure(), chunks.failureMessage(), arrival);
        } else {
            succeed(arrival, keepAlive);
        }
    }

    private String errorBodyMessage() {
        ChunkInterpreter.ServerError server =
                ChunkInterpreter.serverError(client.mapper(), bodyBytes.array(), bodyBytes.length());
        if (server != null) {
            errorBodyType = server.type();
            if (!server.message().isEmpty()) return server.message();
        }
        String text = ChunkInterpreter.oneLine(bodyBytes.text(800));
        return text.isEmpty() ? "HTTP " + status : text;
    }

    void onConnectionClosed() {
        fail(ErrorClass.CONNECTION_RESET, "connection closed before the reply was complete", System.nanoTime());
    }

    void onChannelError(Throwable cause) {
        fail(ErrorMapping.classify(cause), ErrorMapping.message(cause), System.nanoTime());
    }

    // ---- read timeout: one scheduled check per period, not one reschedule per read ----

    private void scheduleReadCheck(long delayNanos) {
        readCheck = channelUnsafe().eventLoop().schedule(this::checkRead, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkRead() {
        readCheck = null;
        if (isDone()) {
            return;
        }
        long now = System.nanoTime();
        if (draining) {
            long waited = now - doneNanos;
            if (waited >= DRAIN_GRACE_NANOS) {
                succeed(doneNanos, false);
            } else {
                scheduleReadCheck(DRAIN_GRACE_NANOS - waited);
            }
            return;
        }
        long timeout = client.readTimeoutNanos();
        long quiet = now - Math.max(requestWrittenNanos, handler.arrivalNanos());
        if (quiet < timeout) {
            scheduleReadCheck(timeout - quiet);
        } else {
            fail(ErrorClass.TIMEOUT_READ, "no data for " + TimeUnit.NANOSECONDS.toMillis(quiet) + " ms", now);
        }
    }

    // ---- completion ----

    /** Ends the request as successful (on the event loop), giving the channel back before completing. */
    private void succeed(long endNanos, boolean reuseChannel) {
        if (!markFinished()) {
            return;
        }
        ClientResult result = result(endNanos, null, null);
        releaseChannel(reuseChannel);
        complete(result);
    }

    /**
     * Ends the request as failed (on the event loop): its channel is closed, never reused. After {@code [DONE]}
     * the reply is already known to be valid, so whatever ends the response then ends the request successfully.
     */
    private void fail(ErrorClass errorClass, String message, long nanos) {
        if (draining) {
            succeed(doneNanos, false);
            return;
        }
        if (staleConnection(errorClass) && retryOnNewConnection(nanos)) {
            return;
        }
        if (!markFinished()) {
            return;
        }
        ClientResult result = result(nanos, errorClass, message);
        releaseChannel(false);
        complete(result);
    }

    /** The failure is what a pooled connection the server had already closed looks like (see the class comment). */
    private boolean staleConnection(ErrorClass errorClass) {
        return errorClass == ErrorClass.CONNECTION_RESET && reusedConnection
                && firstByteNanos == Moments.ABSENT && staleStartNanos == Moments.ABSENT;
    }

    /**
     * Gives up the stale connection and queues this request for a new one, its start moved to now. False when the
     * request ended meanwhile (timeout, cancellation): it is then failed as usual.
     */
    private boolean retryOnNewConnection(long nanos) {
        Channel stale;
        synchronized (this) {
            if (finished) {
                return false;
            }
            stale = channel;
            channel = null; // from here a timeout or cancellation ends the request without a channel
        }
        detach();
        client.pool().closedWhenReused(stale);
        handler = null;
        freshConnection = null;
        reusedConnection = false;
        requestWrittenNanos = Moments.ABSENT;
        writtenNanos = Moments.ABSENT;
        staleStartNanos = startNanos;
        startNanos = nanos;
        client.pool().acquire(this); // first in line (wantsNewConnection), before the stale channel frees its slot
        client.pool().release(stale, false);
        return true;
    }

    private void releaseChannel(boolean reusable) {
        if (spareDue) {
            prepareSpare(); // a reply without tokens, or a failure: the next request still finds a spare
        }
        detach();
        client.pool().release(channelUnsafe(), reusable);
    }

    private void prepareSpare() {
        spareDue = false;
        Channel ch = channelUnsafe();
        if (ch != null) {
            client.pool().prepareSpare(ch.eventLoop());
        }
    }

    private void detach() {
        if (readCheck != null) {
            readCheck.cancel(false);
            readCheck = null;
        }
        if (handler != null) {
            handler.detach(this);
        }
    }

    private void complete(ClientResult result) {
        ScheduledFuture<?> timer = totalTimer;
        if (timer != null) {
            timer.cancel(false);
        }
        client.forget(this);
        future.complete(result);
    }

    private synchronized boolean markFinished() {
        if (finished) {
            return false;
        }
        finished = true;
        return true;
    }

    private synchronized Channel channelUnsafe() {
        return channel;
    }

    private ClientResult result(long endNanos, ErrorClass errorClass, String message) {
        boolean sseReply = mode == Mode.SSE;
        boolean parsed = chunks != null;
        return new ClientResult(
                mode == null ? stream : sseReply,
                startNanos,
                headersNanos,
                parsed ? chunks.firstChunkNanos() : Moments.ABSENT,
                parsed ? chunks.firstTokenNanos() : Moments.ABSENT,
                endNanos,
                parsed ? chunks.tokenChunkNanos() : new long[0],
                status,
                parsed ? chunks.content() : "",
                parsed ? chunks.reasoning() : "",
                parsed ? chunks.usage() : null,
                parsed ? chunks.finishReason() : null,
                errorClass,
                message == null ? null : Secrets.redact(message),
                wireTimes(),
                parsed ? chunks.timings() : null,
                errorClass == null ? null : parsed ? chunks.failureType() : errorBodyType,
                parsed ? chunks.firstContentNanos() : Moments.ABSENT,
                retryAfter);
    }

    private WireTimes wireTimes() {
        ConnectTimer c = freshConnection;
        return new WireTimes(
                c == null ? Moments.ABSENT : c.registeredNanos(),
                c == null ? Moments.ABSENT : c.resolvedNanos(),
                c == null ? Moments.ABSENT : c.connectedNanos(),
                c == null ? Moments.ABSENT : c.tlsNanos(),
                requestWrittenNanos, writtenNanos, firstByteNanos, staleStartNanos);
    }

    /** A failure seen before any byte of the reply could have been read. */
    private ClientResult minimalFailure(ErrorClass errorClass, String message, long nanos) {
        WireTimes wire = staleStartNanos == Moments.ABSENT ? WireTimes.NONE
                : new WireTimes(Moments.ABSENT, Moments.ABSENT, Moments.ABSENT, Moments.ABSENT,
                        Moments.ABSENT, Moments.ABSENT, Moments.ABSENT, staleStartNanos);
        return new ClientResult(stream, startNanos, Moments.ABSENT, Moments.ABSENT, Moments.ABSENT,
                nanos, new long[0], 0, "", "", null, null, errorClass, Secrets.redact(message), wire, null, null,
                Moments.ABSENT, null);
    }
}
