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
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final String itemId;
    private final long created;
    private final String modelJson;
    private final byte[] tokenHead;
    private final byte[] tokenMiddle;
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

    @Override void started() {
        typed("response.created", "\"response\":" + response("in_progress", "[]", "null", null));
        typed("response.in_progress", "\"response\":" + response("in_progress", "[]", "null", null));
    }

    @Override String tokenEventName() {
        return DELTA;
    }

    @Override public void firstToken() {
        typed("response.output_item.added", "\"output_index\":0,\"item\":{\"id\":\"" + itemId
                + "\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}");
        typed("response.content_part.added", "\"item_id\":\"" + itemId + "\",\"output_index\":0,\"content_index\":0,"
                + "\"part\":{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"\"}");
    }

    @Override public void token(int choice, byte[] word) {
        token(tokenHead, sequence++, tokenMiddle, word, TOKEN_TAIL);
    }

    @Override public void choiceFinished(int choice, String reason) {
        finishReason = reason;
    }

    @Override public void completed(int completionTokens, EngineTimings timings) {
        String text = text();
        String part = "{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"" + text + "\"}";
        String item = "{\"id\":\"" + itemId + "\",\"type\":\"message\",\"status\":\"completed\",\"content\":[" + part
                + "],\"role\":\"assistant\"}";
        typed("response.output_text.done", "\"item_id\":\"" + itemId
                + "\",\"output_index\":0,\"content_index\":0,\"text\":\"" + text + "\",\"logprobs\":[]");
        typed("response.content_part.done", "\"item_id\":\"" + itemId + "\",\"output_index\":0,\"content_index\":0,\"part\":" + part);
        typed("response.output_item.done", "\"output_index\":0,\"item\":" + item);
        boolean cut = "length".equals(finishReason);
        String name = cut ? "response.incomplete" : "response.completed";
        String usage = usageJson(promptTokens, completionTokens, cachedTokens, reportCached);
        end(name, "{\"type\":\"" + name + "\",\"sequence_number\":" + sequence++ + ",\"response\":"
                + response(cut ? "incomplete" : "completed", "[" + item + "]", usage,
                cut ? "{\"reason\":\"max_output_tokens\"}" : null) + "}");
    }

    @Override public void failed(ApiException error) {
        String errorJson = "{\"code\":\"server_error\",\"message\":" + WireFormat.quote(JSON, error.getMessage()) + "}";
        end("response.failed", "{\"type\":\"response.failed\",\"sequence_number\":" + sequence++ + ",\"response\":"
                + response("failed", "[]", "null", null).replace("\"error\":null", "\"error\":" + errorJson) + "}");
    }

    /** The Responses API's usage object. */
    static String usageJson(int prompt, int completion, int cached, boolean reportCached) {
        return "{\"input_tokens\":" + prompt + (reportCached ? ",\"input_tokens_details\":{\"cached_tokens\":" + cached + "}" : "")
                + ",\"output_tokens\":" + completion + ",\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":"
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
