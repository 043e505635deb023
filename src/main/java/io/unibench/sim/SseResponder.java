package io.unibench.sim;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;

import java.nio.charset.StandardCharsets;

/**
 * Writes a generation as OpenAI SSE frames ({@code data: {json}\n\n}), one frame per token, flushed per delivery.
 * Chat: a role-only chunk, content chunks, an empty-delta chunk with finish_reason, the usage chunk
 * ({@code "choices":[]}) only when {@code stream_options.include_usage} is true, then {@code data: [DONE]}.
 * Completions: the same with {@code "text"} in place of {@code "delta"}. Token frames are assembled from
 * pre-encoded bytes (prefix + word + suffix): no JSON tree and no String per token.
 *
 * <p>Faults it carries out: malformed-sse (every frame without its {@code data:} field name), malformed-json (one
 * event cut in the middle of its JSON), missing-done (no {@code [DONE]}, optionally no finish_reason either),
 * fail-midstream (an error event, then {@code [DONE]}, as vLLM ends a failed stream).
 *
 * <p>With {@code debug-send-times} every JSON chunk starts with {@code "unibench_sent_ns":N}: {@link System#nanoTime()}
 * when the frame was put into this delivery's buffer, which the same event-loop task then flushes to the socket
 * (so the stamp precedes the write by microseconds). Errors and {@code [DONE]} carry none. With
 * {@code debug-send-times-in-text} the same stamp is the token's text instead ({@code " 123456789"}).
 */
final class SseResponder implements GenerationSink {
    private static final byte[] CHAT_SUFFIX = utf8("\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    private static final byte[] TEXT_SUFFIX = utf8("\",\"logprobs\":null,\"finish_reason\":null}]}\n\n");

    private static final String STAMP_FIELD = "\"unibench_sent_ns\":";
    /** Room for the stamp field: name, up to 20 digits and a comma. */
    private static final int STAMP_BYTES = 40;

    private final ChannelHandlerContext ctx;
    private final boolean chat;
    private final boolean keepAlive;
    private final String data;
    /** {@code data: {} — every JSON chunk starts with it; the send stamp, when on, follows. */
    private final byte[] open;
    /** The rest of every chunk's head: {@code "id":…,"object":…,"created":…,"model":…,}. */
    private final String head;
    private final boolean stampSends;
    /** {@code debug-send-times-in-text}: each token's text is {@code " " + System.nanoTime()}. */
    private final boolean stampInText;
    private final byte[][] tokenPrefix;
    private final byte[] tokenSuffix;
    private final boolean includeUsage;
    /** Misbehaviour buffer-stream: nothing is written before the end, as behind a buffering proxy. */
    private final boolean hold;
    private final int promptTokens;
    private final boolean reportCached;
    private final FaultSpec fault;
    private final com.fasterxml.jackson.databind.ObjectMapper mapper;
    private int cachedTokens;
    /** A reasoning model's: the chat delta's opening with the reasoning member, per choice; null until set. */
    private byte[][] reasoningPrefix;
    /** Reasoning tokens of the reply, reported in the usage when the reply reasons (-1: not reported). */
    private int reasoningTokens = -1;
    /** Frames written since the last flush: one HTTP chunk per delivery, not one per frame. */
    private ByteBuf pending;

    /**
     * @param id        response id; {@code modelJson} the model as a JSON string literal (quoted and escaped)
     * @param choices   number of choices (one per prompt)
     * @param fingerprint the {@code system_fingerprint} every chunk carries, or null for none
     */
    SseResponder(ChannelHandlerContext ctx, boolean chat, boolean keepAlive, String id, long created, String modelJson,
                 int choices, boolean includeUsage, int promptTokens, boolean reportCached, FaultSpec fault,
                 com.fasterxml.jackson.databind.ObjectMapper mapper, boolean stampSends, boolean stampInText,
                 boolean hold, String fingerprint) {
        this.ctx = ctx;
        this.mapper = mapper;
        this.chat = chat;
        this.keepAlive = keepAlive;
        this.fault = fault;
        this.data = fault.is(FaultKind.MALFORMED_SSE) ? "" : "data: ";
        this.stampSends = stampSends;
        this.stampInText = stampInText;
        this.open = utf8(data + "{");
        this.head = "\"id\":\"" + id + "\",\"object\":\"" + (chat ? "chat.completion.chunk" : "text_completion")
                + "\",\"created\":" + created + ",\"model\":" + modelJson + ","
                + (fingerprint == null ? "" : "\"system_fingerprint\":\"" + fingerprint + "\",");
        this.tokenPrefix = new byte[choices][];
        for (int c = 0; c < choices; c++) {
            tokenPrefix[c] = utf8(head + "\"choices\":[{\"index\":" + c
                    + (chat ? ",\"delta\":{\"content\":\"" : ",\"text\":\""));
        }
        this.tokenSuffix = chat ? CHAT_SUFFIX : TEXT_SUFFIX;
        this.includeUsage = includeUsage;
        this.hold = hold;
        this.promptTokens = promptTokens;
        this.reportCached = reportCached;
    }

    /**
     * A reasoning model's replies: reasoning tokens go in {@code delta.<field>} (chat; completions have no place for
     * them and write them as text), and the usage reports {@code completion_tokens_details.reasoning_tokens}.
     */
    SseResponder reasoning(SimConfig.Reasoning reasoning) {
        if (!chat || reasoning.share() <= 0) return this;
        String field = reasoning.field();
        reasoningPrefix = new byte[tokenPrefix.length][];
        for (int c = 0; c < tokenPrefix.length; c++) {
            reasoningPrefix[c] = utf8(head + "\"choices\":[{\"index\":" + c + ",\"delta\":{\"" + field + "\":\"");
        }
        reasoningTokens = 0;
        return this;
    }

    @Override public void reasoningToken(int choice, byte[] word) {
        if (reasoningPrefix == null) {
            token(choice, word);
            return;
        }
        byte[] prefix = reasoningPrefix[choice];
        ByteBuf buf = buffer(open.length + STAMP_BYTES + prefix.length + word.length + tokenSuffix.length);
        openChunk(buf).writeBytes(prefix).writeBytes(word).writeBytes(tokenSuffix);
    }

    @Override public void reasoningTokens(int count) {
        if (reasoningTokens >= 0) reasoningTokens = count;
    }

    /** Cached tokens are known at admission, after this responder exists. */
    @Override public void cachedTokens(int cached) {
        this.cachedTokens = cached;
    }

    @Override public void admitted() {
        ctx.writeAndFlush(WireFormat.sseHead(keepAlive), ctx.voidPromise());
    }

    @Override public void firstToken() {
        if (chat) {
            writeChunk("\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                    + "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        }
    }

    @Override public void token(int choice, byte[] word) {
        if (stampInText) word = (" " + System.nanoTime()).getBytes(StandardCharsets.US_ASCII); // debug only
        byte[] prefix = tokenPrefix[choice];
        ByteBuf buf = buffer(open.length + STAMP_BYTES + prefix.length + word.length + tokenSuffix.length);
        openChunk(buf).writeBytes(prefix).writeBytes(word).writeBytes(tokenSuffix);
    }

    @Override public void malformed() {
        writeChunk("\"choices\":[{\"index\":0,\"delta\":{\"content\":\" broken\n\n");
    }

    @Override public void choiceFinished(int choice, String finishReason) {
        if (fault.is(FaultKind.MISSING_DONE) && !fault.finishReason()) return;
        String body = chat ? ",\"delta\":{}" : ",\"text\":\"\"";
        writeChunk("\"choices\":[{\"index\":" + choice + body + ",\"logprobs\":null,\"finish_reason\":\""
                + finishReason + "\"}]}\n\n");
    }

    @Override public void flush() {
        if (hold) return;
        writePending();
        ctx.flush();
    }

    /** The usage chunk when asked for; llama.cpp's timings on the last chunk (that one, or one of their own). */
    @Override public void completed(int completionTokens, EngineTimings timings) {
        String timingsMember = timings == null ? "" : ",\"timings\":" + timings.json();
        if (includeUsage) {
            writeChunk("\"choices\":[],\"usage\":"
                    + WireFormat.usageJson(promptTokens, completionTokens, cachedTokens, reportCached, reasoningTokens)
                    + timingsMember + "}\n\n");
        } else if (timings != null) {
            writeChunk("\"choices\":[]" + timingsMember + "}\n\n");
        }
        end();
    }

    @Override public void failed(ApiException error) {
        write(data + WireFormat.errorJson(mapper, error) + "\n\n");
        end();
    }

    private void end() {
        if (!fault.is(FaultKind.MISSING_DONE)) write(data + "[DONE]\n\n");
        writePending();
        var future = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        if (!keepAlive) future.addListener(ChannelFutureListener.CLOSE);
    }

    private void write(String frame) {
        byte[] bytes = frame.getBytes(StandardCharsets.UTF_8);
        buffer(bytes.length).writeBytes(bytes);
    }

    /** One JSON chunk: {@code data: {}, the send stamp when on, the head, then {@code rest}. */
    private void writeChunk(String rest) {
        byte[] bytes = (head + rest).getBytes(StandardCharsets.UTF_8);
        openChunk(buffer(open.length + STAMP_BYTES + bytes.length)).writeBytes(bytes);
    }

    private ByteBuf openChunk(ByteBuf buf) {
        buf.writeBytes(open);
        if (stampSends) {
            buf.writeCharSequence(STAMP_FIELD, StandardCharsets.US_ASCII);
            buf.writeCharSequence(Long.toString(System.nanoTime()), StandardCharsets.US_ASCII);
            buf.writeByte(',');
        }
        return buf;
    }

    private ByteBuf buffer(int needed) {
        if (pending == null) pending = ctx.alloc().buffer(Math.max(256, needed));
        return pending;
    }

    private void writePending() {
        if (pending == null) return;
        ctx.write(new DefaultHttpContent(pending), ctx.voidPromise());
        pending = null;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
