package io.unibench.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.ChannelHandlerContext;

/**
 * A generation as Anthropic's Messages API streams it: {@code message_start} (the usage's input side:
 * {@code input_tokens} without what the prefix cache served, {@code cache_read_input_tokens},
 * {@code cache_creation_input_tokens}) and a {@code ping}; at the first token {@code content_block_start}; one
 * {@code content_block_delta} ({@code text_delta}) per token; then {@code content_block_stop}, {@code message_delta}
 * with {@code stop_reason} ({@code end_turn}, {@code max_tokens}) and the output tokens, and {@code message_stop}. A
 * failure after admission is an {@code error} event ({@code api_error}).
 */
final class AnthropicSseResponder extends TypedSseResponder {
    private static final String DELTA = "content_block_delta";
    private static final byte[] TOKEN_HEAD = utf8("event: " + DELTA + "\ndata: {\"type\":\"" + DELTA
            + "\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"");
    private static final byte[] TOKEN_TAIL = utf8("\"}}\n\n");
    private static final byte[] NONE = new byte[0];
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final String modelJson;
    private byte[] tokenHead;
    private String stopReason = "end_turn";
    /** A reasoning model's reply: a thinking block (index 0) before the text block (index 1); null without. */
    private byte[] thinkingHead;
    private boolean textStarted;

    AnthropicSseResponder(ChannelHandlerContext ctx, boolean keepAlive, String id, String modelJson, int promptTokens,
                          boolean reportCached, FaultSpec fault) {
        super(ctx, keepAlive, fault, promptTokens, reportCached);
        this.id = id;
        this.modelJson = modelJson;
        this.tokenHead = fault.is(FaultKind.MALFORMED_SSE) ? frameHead(DELTA, "{\"type\":\"" + DELTA
                + "\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"") : TOKEN_HEAD;
    }

    /** With reasoning on, reasoning tokens are {@code thinking_delta}s of a thinking block before the text block. */
    AnthropicSseResponder reasoning(boolean on) {
        if (!on) return this;
        thinkingHead = frameHead(DELTA, "{\"type\":\"" + DELTA + "\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
                + "\"thinking\":\"");
        tokenHead = frameHead(DELTA, "{\"type\":\"" + DELTA + "\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
                + "\"text\":\"");
        return this;
    }

    private int textIndex() {
        return thinkingHead == null ? 0 : 1;
    }

    @Override void started() {
        event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"" + id + "\",\"type\":\"message\","
                + "\"role\":\"assistant\",\"model\":" + modelJson + ",\"content\":[],\"stop_reason\":null,"
                + "\"stop_sequence\":null,\"usage\":" + usageJson(promptTokens, cachedTokens, reportCached, 1) + "}}");
        event("ping", "{\"type\":\"ping\"}");
    }

    @Override String tokenEventName() {
        return DELTA;
    }

    @Override public void firstToken() {
        if (thinkingHead != null) {
            event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                    + "{\"type\":\"thinking\",\"thinking\":\"\"}}");
        } else {
            startText();
        }
    }

    private void startText() {
        textStarted = true;
        if (thinkingHead != null) event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
        event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + textIndex()
                + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    }

    @Override public void token(int choice, byte[] word) {
        if (!textStarted) startText();
        token(tokenHead, -1, NONE, word, TOKEN_TAIL);
    }

    @Override public void reasoningToken(int choice, byte[] word) {
        if (thinkingHead == null) {
            token(choice, word);
            return;
        }
        frame(thinkingHead, -1, NONE, word, TOKEN_TAIL);
    }

    @Override public void choiceFinished(int choice, String reason) {
        stopReason = stopReason(reason);
    }

    @Override public void completed(int completionTokens, EngineTimings timings) {
        if (!textStarted) startText();
        event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + textIndex() + "}");
        event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
                + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + completionTokens + "}}");
        end("message_stop", "{\"type\":\"message_stop\"}");
    }

    @Override public void failed(ApiException error) {
        end("error", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":"
                + WireFormat.quote(JSON, error.getMessage()) + "}}");
    }

    /** Anthropic's names for why generation stopped. */
    static String stopReason(String finishReason) {
        return "length".equals(finishReason) ? "max_tokens" : "end_turn";
    }

    /** Anthropic's usage: its {@code input_tokens} leaves out what the cache read (and wrote: nothing here). */
    static String usageJson(int prompt, int cached, boolean reportCached, int output) {
        int read = reportCached ? cached : 0;
        return "{\"input_tokens\":" + (prompt - read) + ",\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":"
                + read + ",\"output_tokens\":" + output + "}";
    }
}
