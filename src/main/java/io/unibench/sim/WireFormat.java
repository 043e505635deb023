package io.unibench.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/** OpenAI wire-format pieces shared by the responders: usage objects, error bodies, response heads. */
final class WireFormat {
    private WireFormat() {}

    /** {@code {"prompt_tokens":…,"completion_tokens":…,"total_tokens":…[,"prompt_tokens_details":{"cached_tokens":…}]}} */
    static String usageJson(int promptTokens, int completionTokens, int cachedTokens, boolean reportCached) {
        StringBuilder sb = new StringBuilder(128)
                .append("{\"prompt_tokens\":").append(promptTokens)
                .append(",\"completion_tokens\":").append(completionTokens)
                .append(",\"total_tokens\":").append((long) promptTokens + completionTokens);
        if (reportCached) sb.append(",\"prompt_tokens_details\":{\"cached_tokens\":").append(cachedTokens).append('}');
        return sb.append('}').toString();
    }

    /** {@link #usageJson} with {@code completion_tokens_details.reasoning_tokens} when {@code reasoningTokens >= 0}. */
    static String usageJson(int promptTokens, int completionTokens, int cachedTokens, boolean reportCached,
                            int reasoningTokens) {
        String usage = usageJson(promptTokens, completionTokens, cachedTokens, reportCached);
        if (reasoningTokens < 0) return usage;
        return usage.substring(0, usage.length() - 1) + ",\"completion_tokens_details\":{\"reasoning_tokens\":"
                + reasoningTokens + "}}";
    }

    static ObjectNode usageNode(ObjectMapper mapper, int promptTokens, int completionTokens, int cachedTokens,
                                boolean reportCached) {
        ObjectNode usage = mapper.createObjectNode();
        usage.put("prompt_tokens", promptTokens);
        usage.put("completion_tokens", completionTokens);
        usage.put("total_tokens", (long) promptTokens + completionTokens);
        if (reportCached) usage.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);
        return usage;
    }

    /** {@code {"error":{"message","type","param","code"}}} as vLLM sends it. */
    static String errorJson(ObjectMapper mapper, ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", e.getMessage());
        error.put("type", e.type());
        if (e.param() == null) error.putNull("param");
        else error.put("param", e.param());
        if (e.code() != null) error.put("code", e.code());
        else error.put("code", e.status());
        return toJson(mapper, root);
    }

    /** A JSON string literal (with quotes) for {@code text}. */
    static String quote(ObjectMapper mapper, String text) {
        return toJson(mapper, mapper.getNodeFactory().textNode(text));
    }

    static String toJson(ObjectMapper mapper, Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e); // cannot happen for trees
        }
    }

    static void sendJson(ChannelHandlerContext ctx, HttpResponseStatus status, String json, boolean keepAlive) {
        send(ctx, status, Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), "application/json", keepAlive);
    }

    /** The error as its JSON body, with its status and headers. */
    static void sendError(ChannelHandlerContext ctx, ObjectMapper mapper, ApiException e, boolean keepAlive) {
        send(ctx, HttpResponseStatus.valueOf(e.status()), Unpooled.copiedBuffer(errorJson(mapper, e), StandardCharsets.UTF_8),
                "application/json", keepAlive, e.headers());
    }

    static void send(ChannelHandlerContext ctx, HttpResponseStatus status, ByteBuf body, String contentType,
                     boolean keepAlive) {
        send(ctx, status, body, contentType, keepAlive, java.util.Map.of());
    }

    static void send(ChannelHandlerContext ctx, HttpResponseStatus status, ByteBuf body, String contentType,
                     boolean keepAlive, java.util.Map<String, String> headers) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        if (contentType != null) response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        headers.forEach((k, v) -> response.headers().set(k, v));
        HttpUtil.setContentLength(response, body.readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        var future = ctx.writeAndFlush(response);
        if (!keepAlive) future.addListener(ChannelFutureListener.CLOSE);
    }

    /** The head of an SSE response; the body follows as chunks. */
    static HttpResponse sseHead(boolean keepAlive) {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(response, true);
        HttpUtil.setKeepAlive(response, keepAlive);
        return response;
    }
}
