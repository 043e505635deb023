package io.unibench.sim;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;

import java.nio.charset.StandardCharsets;

/**
 * Writes a generation as OpenAI SSE frames ({@code data: {json}\n\n}), one frame per token, flushed per tick.
 * Chat: a role-only chunk, content chunks, an empty-delta chunk with finish_reason, the usage chunk
 * ({@code "choices":[]}) only when {@code stream_options.include_usage} is true, then {@code data: [DONE]}.
 * Completions: the same with {@code "text"} in place of {@code "delta"}. Token frames are assembled from
 * pre-encoded bytes (prefix + word + suffix): no JSON tree and no String per token.
 */
final class SseResponder implements GenerationSink {
    private static final byte[] CHAT_SUFFIX = utf8("\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    private static final byte[] TEXT_SUFFIX = utf8("\",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    private static final byte[] DONE = utf8("data: [DONE]\n\n");

    private final ChannelHandlerContext ctx;
    private final boolean chat;
    private final boolean keepAlive;
    private final String head;
    private final byte[][] tokenPrefix;
    private final byte[] tokenSuffix;
    private final boolean includeUsage;
    private final int promptTokens;
    private final int cachedTokens;
    private final boolean reportCached;

    /**
     * @param id        response id; {@code modelJson} the model as a JSON string literal (quoted and escaped)
     * @param choices   number of choices (one per prompt)
     */
    SseResponder(ChannelHandlerContext ctx, boolean chat, boolean keepAlive, String id, long created, String modelJson,
                 int choices, boolean includeUsage, int promptTokens, int cachedTokens, boolean reportCached) {
        this.ctx = ctx;
        this.chat = chat;
        this.keepAlive = keepAlive;
        this.head = "data: {\"id\":\"" + id + "\",\"object\":\"" + (chat ? "chat.completion.chunk" : "text_completion")
                + "\",\"created\":" + created + ",\"model\":" + modelJson + ",";
        this.tokenPrefix = new byte[choices][];
        for (int c = 0; c < choices; c++) {
            tokenPrefix[c] = utf8(head + "\"choices\":[{\"index\":" + c
                    + (chat ? ",\"delta\":{\"content\":\"" : ",\"text\":\""));
        }
        this.tokenSuffix = chat ? CHAT_SUFFIX : TEXT_SUFFIX;
        this.includeUsage = includeUsage;
        this.promptTokens = promptTokens;
        this.cachedTokens = cachedTokens;
        this.reportCached = reportCached;
    }

    @Override public void firstToken() {
        if (chat) {
            write(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                    + "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        }
    }

    @Override public void token(int choice, byte[] word) {
        byte[] prefix = tokenPrefix[choice];
        ByteBuf buf = ctx.alloc().buffer(prefix.length + word.length + tokenSuffix.length);
        buf.writeBytes(prefix).writeBytes(word).writeBytes(tokenSuffix);
        ctx.write(new DefaultHttpContent(buf), ctx.voidPromise());
    }

    @Override public void choiceFinished(int choice, String finishReason) {
        String body = chat ? ",\"delta\":{}" : ",\"text\":\"\"";
        write(head + "\"choices\":[{\"index\":" + choice + body + ",\"logprobs\":null,\"finish_reason\":\""
                + finishReason + "\"}]}\n\n");
    }

    @Override public void flush() {
        ctx.flush();
    }

    @Override public void completed(int completionTokens) {
        if (includeUsage) {
            write(head + "\"choices\":[],\"usage\":"
                    + WireFormat.usageJson(promptTokens, completionTokens, cachedTokens, reportCached) + "}\n\n");
        }
        end(ctx, keepAlive);
    }

    /** Ends a stream whose request failed after the head was sent, as vLLM does: an error frame, then [DONE]. */
    static void fail(ChannelHandlerContext ctx, String errorJson, boolean keepAlive) {
        ctx.write(new DefaultHttpContent(ctx.alloc().buffer().writeBytes(utf8("data: " + errorJson + "\n\n"))),
                ctx.voidPromise());
        end(ctx, keepAlive);
    }

    private static void end(ChannelHandlerContext ctx, boolean keepAlive) {
        ctx.write(new DefaultHttpContent(ctx.alloc().buffer(DONE.length).writeBytes(DONE)), ctx.voidPromise());
        var future = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        if (!keepAlive) future.addListener(ChannelFutureListener.CLOSE);
    }

    private void write(String frame) {
        byte[] bytes = frame.getBytes(StandardCharsets.UTF_8);
        ctx.write(new DefaultHttpContent(ctx.alloc().buffer(bytes.length).writeBytes(bytes)), ctx.voidPromise());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
