package io.unibench.sim;

import io.netty.channel.ChannelHandlerContext;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A generation as the Responses API streams it: {@code response.created}, {@code response.in_progress}; at the
 * first token {@code response.output_item.added} and {@code response.content_part.added}; one
 * {@code response.output_text.delta} per token (its {@code sequence_number} counting every event, as OpenAI's does);
 * then {@code response.output_text.done}, {@code response.content_part.done}, {@code response.output_item.done}
 * and {@code response.completed} with the usage ({@code input_tokens}, {@code input_tokens_details.cached_tokens},
 * {@code output_tokens}) — {@code response.incomplete} when {@code max_output_tokens} cut the output. A failure
 * after admission is {@code response.failed} with its error.
 */
final class ResponsesSseResponder extends TypedSseResponder {
    private static final byte[] TOKEN_TAIL = utf8("\",\"logprobs\":[]}\n\n");
    private static final String DELTA = "response.output_text.delta";
    private static final String REASONING_DELTA = "response.reasoning_text.delta";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final String itemId;
    private final long created;
    private final String modelJson;
    private final byte[] tokenHead;
    private byte[] tokenMiddle;
    /** A reasoning model's reply: a reasoning item (output 0) before the message (output 1); null without. */
    private String reasoningItemId;
    private byte[] reasoningHead;
    private byte[] reasoningMiddle;
    private boolean messageStarted;
    private int reasoningTokens;
    private int sequence;
    private String finishReason = "stop";

    ResponsesSseResponder(ChannelHandlerContext ctx, boolean keepAlive, String id, long created, String modelJson,
                          int promptTokens, boolean reportCached, FaultSpec fault) {
        super(ctx, keepAlive, fault, promptTokens, reportCached);
        this.id = id;
        this.itemId = "msg_" + id.substring(id.indexOf('_') + 1);
        this.created = created;
        this.modelJson = modelJson;
        this.tokenHead = frameHead(DELTA, "{\"type\":\"" + DELTA + "\",\"sequence_number\":");
        this.tokenMiddle = utf8(",\"item_id\":\"" + itemId + "\",\"output_index\":0,\"content_index\":0,\"delta\":\"");
    }

    /**
     * With reasoning on, reasoning tokens are {@code response.reasoning_text.delta} events of a reasoning item
     * (output 0) before the message item (output 1), and the usage reports
     * {@code output_tokens_details.reasoning_tokens}.
     */
    ResponsesSseResponder reasoning(boolean on) {
        if (!on) return this;
        reasoningItemId = "rs_" + id.substring(id.indexOf('_') + 1);
        reasoningHead = frameHead(REASONING_DELTA, "{\"type\":\"" + REASONING_DELTA + "\",\"sequence_number\":");
        reasoningMiddle = utf8(",\"item_id\":\"" + reasoningItemId + "\",\"output_index\":0,\"content_index\":0,\"delta\":\"");
        tokenMiddle = utf8(",\"item_id\":\"" + itemId + "\",\"output_index\":1,\"content_index\":0,\"delta\":\"");
        return this;
    }

    /** The message item's place in the output: after the reasoning item when there is one. */
    private int messageIndex() {
        return reasoningItemId == null ? 0 : 1;
    }

    @Override void started() {
        typed("response.created", "\"response\":" + response("in_progress", "[]", "null", null));
        typed("response.in_progress", "\"response\":" + response("in_progress", "[]", "null", null));
    }

    @Override String tokenEventName() {
        return DELTA;
    }

    @Override public void firstToken() {
        if (reasoningItemId != null) {
            typed("response.output_item.added", "\"output_index\":0,\"item\":{\"id\":\"" + reasoningItemId
                    + "\",\"type\":\"reasoning\",\"summary\":[]}");
        } else {
            startMessage();
        }
    }

    private void startMessage() {
        messageStarted = true;
        int index = messageIndex();
        typed("response.output_item.added", "\"output_index\":" + index + ",\"item\":{\"id\":\"" + itemId
                + "\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}");
        typed("response.content_part.added", "\"item_id\":\"" + itemId + "\",\"output_index\":" + index
                + ",\"content_index\":0,"
                + "\"part\":{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"\"}");
    }

    @Override public void token(int choice, byte[] word) {
        if (!messageStarted) startMessage();
        token(tokenHead, sequence++, tokenMiddle, word, TOKEN_TAIL);
    }

    @Override public void reasoningToken(int choice, byte[] word) {
        if (reasoningItemId == null) {
            token(choice, word);
            return;
        }
        frame(reasoningHead, sequence++, reasoningMiddle, word, TOKEN_TAIL);
    }

    @Override public void reasoningTokens(int count) {
        reasoningTokens = count;
    }

    @Override public void choiceFinished(int choice, String reason) {
        finishReason = reason;
    }

    @Override public void completed(int completionTokens, EngineTimings timings) {
        if (!messageStarted) startMessage();
        String text = text();
        String part = "{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"" + text + "\"}";
        String item = "{\"id\":\"" + itemId + "\",\"type\":\"message\",\"status\":\"completed\",\"content\":[" + part
                + "],\"role\":\"assistant\"}";
        int index = messageIndex();
        String reasoningItem = reasoningItemId == null ? ""
                : "{\"id\":\"" + reasoningItemId + "\",\"type\":\"reasoning\",\"summary\":[]},";
        typed("response.output_text.done", "\"item_id\":\"" + itemId
                + "\",\"output_index\":" + index + ",\"content_index\":0,\"text\":\"" + text + "\",\"logprobs\":[]");
        typed("response.content_part.done", "\"item_id\":\"" + itemId + "\",\"output_index\":" + index
                + ",\"content_index\":0,\"part\":" + part);
        typed("response.output_item.done", "\"output_index\":" + index + ",\"item\":" + item);
        boolean cut = "length".equals(finishReason);
        String name = cut ? "response.incomplete" : "response.completed";
        String usage = usageJson(promptTokens, completionTokens, cachedTokens, reportCached, reasoningTokens);
        end(name, "{\"type\":\"" + name + "\",\"sequence_number\":" + sequence++ + ",\"response\":"
                + response(cut ? "incomplete" : "completed", "[" + reasoningItem + item + "]", usage,
                cut ? "{\"reason\":\"max_output_tokens\"}" : null) + "}");
    }

    @Override public void failed(ApiException error) {
        String errorJson = "{\"code\":\"server_error\",\"message\":" + WireFormat.quote(JSON, error.getMessage()) + "}";
        end("response.failed", "{\"type\":\"response.failed\",\"sequence_number\":" + sequence++ + ",\"response\":"
                + response("failed", "[]", "null", null).replace("\"error\":null", "\"error\":" + errorJson) + "}");
    }

    /** The Responses API's usage object. */
    static String usageJson(int prompt, int completion, int cached, boolean reportCached) {
        return usageJson(prompt, completion, cached, reportCached, 0);
    }

    /** The Responses API's usage object, with {@code reasoning} of the output tokens spent on reasoning. */
    static String usageJson(int prompt, int completion, int cached, boolean reportCached, int reasoning) {
        return "{\"input_tokens\":" + prompt + (reportCached ? ",\"input_tokens_details\":{\"cached_tokens\":" + cached + "}" : "")
                + ",\"output_tokens\":" + completion + ",\"output_tokens_details\":{\"reasoning_tokens\":" + reasoning
                + "},\"total_tokens\":"
                + ((long) prompt + completion) + "}";
    }

    private String response(String status, String output, String usage, String incomplete) {
        return "{\"id\":\"" + id + "\",\"object\":\"response\",\"created_at\":" + created + ",\"status\":\"" + status
                + "\",\"error\":null,\"incomplete_details\":" + (incomplete == null ? "null" : incomplete)
                + ",\"model\":" + modelJson + ",\"output\":" + output + ",\"usage\":" + usage + "}";
    }

    private void typed(String name, String members) {
        event(name, "{\"type\":\"" + name + "\",\"sequence_number\":" + sequence++ + "," + members + "}");
    }
}
