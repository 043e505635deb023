package io.unibench.sim;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;

import java.nio.charset.StandardCharsets;

/**
 * What the Responses API's and Anthropic's streams share: every event is {@code event: NAME\ndata: {json}\n\n}
 * (the name repeats the JSON's {@code type}), frames of one delivery go out as one HTTP chunk, the stream ends with
 * the API's own last event and no {@code [DONE]}. Token frames are assembled from pre-encoded bytes around the word.
 * The malformed-sse fault drops the {@code data:} field names, malformed-json cuts one event, missing-done leaves out
 * the last event.
 */
abstract class TypedSseResponder implements GenerationSink {
    private final ChannelHandlerContext ctx;
    private final boolean keepAlive;
    protected final FaultSpec fault;
    private final String data;
    protected final int promptTokens;
    protected final boolean reportCached;
    protected int cachedTokens;
    /** The output so far (JSON-safe UTF-8 words), for the final event that repeats it. */
    private byte[] text = new byte[256];
    private int textLength;
    private ByteBuf pending;

    TypedSseResponder(ChannelHandlerContext ctx, boolean keepAlive, FaultSpec fault, int promptTokens, boolean reportCached) {
        this.ctx = ctx;
        this.keepAlive = keepAlive;
        this.fault = fault;
        this.data = fault.is(FaultKind.MALFORMED_SSE) ? "" : "data: ";
        this.promptTokens = promptTokens;
        this.reportCached = reportCached;
    }

    @Override public void cachedTokens(int cached) {
        this.cachedTokens = cached;
    }

    @Override public void admitted() {
        ctx.write(WireFormat.sseHead(keepAlive), ctx.voidPromise());
        started();
        flush();
    }

    /** The events a stream opens with, once the request is admitted. */
    abstract void started();

    @Override public void flush() {
        if (pending != null) {
            ctx.write(new DefaultHttpContent(pending), ctx.voidPromise());
            pending = null;
        }
        ctx.flush();
    }

    @Override public void malformed() {
        event(tokenEventName(), "{\"type\":\"" + tokenEventName() + "\",\"delta\":\" broken\n\n");
    }

    abstract String tokenEventName();

    /**
     * One token frame: {@code head} (event line, data field, the JSON's start), the event's sequence number when
     * {@code sequence >= 0} and then {@code middle}, the word, {@code tail}.
     */
    protected void token(byte[] head, int sequence, byte[] middle, byte[] word, byte[] tail) {
        frame(head, sequence, middle, word, tail);
        if (textLength + word.length > text.length) text = java.util.Arrays.copyOf(text, Math.max(text.length * 2, textLength + word.length));
        System.arraycopy(word, 0, text, textLength, word.length);
        textLength += word.length;
    }

    /** A token frame as {@link #token}, whose word is not part of the output text (a reasoning token). */
    protected void frame(byte[] head, int sequence, byte[] middle, byte[] word, byte[] tail) {
        ByteBuf buf = buffer(head.length + 11 + middle.length + word.length + tail.length).writeBytes(head);
        if (sequence >= 0) buf.writeCharSequence(Integer.toString(sequence), StandardCharsets.US_ASCII);
        buf.writeBytes(middle).writeBytes(word).writeBytes(tail);
    }

    /** The output so far as the inside of a JSON string. */
    protected String text() {
        return new String(text, 0, textLength, StandardCharsets.UTF_8);
    }

    /** The bytes that open a token frame of event {@code name}, up to where its JSON object begins. */
    protected byte[] frameHead(String name, String json) {
        return utf8("event: " + name + "\n" + data + json);
    }

    protected void event(String name, String json) {
        byte[] bytes = utf8("event: " + name + "\n" + data + json + "\n\n");
        buffer(bytes.length).writeBytes(bytes);
    }

    /** The last event (unless the missing-done fault leaves it out), then the end of the response. */
    protected void end(String name, String json) {
        if (!fault.is(FaultKind.MISSING_DONE)) event(name, json);
        flush();
        var future = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        if (!keepAlive) future.addListener(ChannelFutureListener.CLOSE);
    }

    private ByteBuf buffer(int needed) {
        if (pending == null) pending = ctx.alloc().buffer(Math.max(256, needed));
        return pending;
    }

    protected static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
