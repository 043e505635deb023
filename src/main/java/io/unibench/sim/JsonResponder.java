package io.unibench.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.nio.charset.StandardCharsets;

/**
 * Collects a non-streamed generation and writes one JSON body: {@code chat.completion} with
 * {@code choices[i].message {role, content}}, or {@code text_completion} with {@code choices[i].text};
 * usage is always present; for the Responses API its response object, for Anthropic's its message. Built once per request, so a Jackson tree is fine here. The malformed faults cut the
 * body in half (still HTTP 200, application/json); fail-midstream answers 500.
 */
final class JsonResponder implements GenerationSink {
    private final ChannelHandlerContext ctx;
    private final ObjectMapper mapper;
    private final WireApi api;
    private final boolean keepAlive;
    private final String id;
    private final long created;
    private final String model;
    private final StringBuilder[] texts;
    private final String[] finishReasons;
    private final int promptTokens;
    private final boolean reportCached;
    private final boolean omitUsage;
    private int cachedTokens;
    private boolean malformed;
    /** chat/completions' {@code system_fingerprint}, or null for none (what vLLM sends). */
    private String fingerprint;

    JsonResponder(ChannelHandlerContext ctx, ObjectMapper mapper, WireApi api, boolean keepAlive, String id,
                  long created, String model, int choices, int promptTokens, boolean reportCached, FaultSpec fault,
                  boolean omitUsage) {
        this.ctx = ctx;
        this.mapper = mapper;
        this.api = api;
        this.keepAlive = keepAlive;
        this.id = id;
        this.created = created;
        this.model = model;
        this.texts = new StringBuilder[choices];
        for (int c = 0; c < choices; c++) texts[c] = new StringBuilder();
        this.finishReasons = new String[choices];
        this.promptTokens = promptTokens;
        this.reportCached = reportCached;
        this.omitUsage = omitUsage;
        this.malformed = fault.is(FaultKind.MALFORMED_SSE);
    }

    /** Replies carry this {@code system_fingerprint} (chat/completions bodies only; null: none). */
    JsonResponder withFingerprint(String systemFingerprint) {
        this.fingerprint = systemFingerprint;
        return this;
    }

    @Override public void cachedTokens(int cached) {
        this.cachedTokens = cached;
    }

    @Override public void admitted() {}

    @Override public void firstToken() {}

    @Override public void token(int choice, byte[] word) {
        texts[choice].append(new String(word, StandardCharsets.UTF_8));
    }

    @Override public void malformed() {
        malformed = true;
    }

    @Override public void choiceFinished(int choice, String finishReason) {
        finishReasons[choice] = finishReason;
    }

    @Override public void flush() {}

    @Override public void completed(int completionTokens, EngineTimings timings) {
        String json = switch (api) {
            case RESPONSES -> responsesJson(completionTokens);
            case MESSAGES -> messagesJson(completionTokens);
            default -> openAiJson(completionTokens, timings);
        };
        if (malformed) json = json.substring(0, json.length() / 2);
        WireFormat.sendJson(ctx, HttpResponseStatus.OK, json, keepAlive);
    }

    /** The Responses API's response object: one message item with one {@code output_text} part. */
    private String responsesJson(int completionTokens) {
        boolean cut = "length".equals(finishReasons[0]);
        String text = WireFormat.quote(mapper, texts[0].toString());
        return "{\"id\":\"" + id + "\",\"object\":\"response\",\"created_at\":" + created + ",\"status\":\""
                + (cut ? "incomplete" : "completed") + "\",\"error\":null,\"incomplete_details\":"
                + (cut ? "{\"reason\":\"max_output_tokens\"}" : "null") + ",\"model\":" + WireFormat.quote(mapper, model)
                + ",\"output\":[{\"id\":\"msg_" + id.substring(id.indexOf('_') + 1) + "\",\"type\":\"message\",\"status\":\"completed\","
                + "\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"annotations\":[],\"text\":" + text + "}]}],"
                + "\"usage\":" + ResponsesSseResponder.usageJson(promptTokens, completionTokens, cachedTokens, reportCached) + "}";
    }

    /** Anthropic's message: one text block, its stop reason and usage. */
    private String messagesJson(int completionTokens) {
        return "{\"id\":\"" + id + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":" + WireFormat.quote(mapper, model)
                + ",\"content\":[{\"type\":\"text\",\"text\":" + WireFormat.quote(mapper, texts[0].toString()) + "}],"
                + "\"stop_reason\":\"" + AnthropicSseResponder.stopReason(finishReasons[0]) + "\",\"stop_sequence\":null,"
                + "\"usage\":" + AnthropicSseResponder.usageJson(promptTokens, cachedTokens, reportCached, completionTokens) + "}";
    }

    private String openAiJson(int completionTokens, EngineTimings timings) {
        boolean chat = api == WireApi.CHAT;
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("object", chat ? "chat.completion" : "text_completion");
        root.put("created", created);
        root.put("model", model);
        if (fingerprint != null) root.put("system_fingerprint", fingerprint);
        ArrayNode choices = root.putArray("choices");
        for (int c = 0; c < texts.length; c++) {
            ObjectNode choice = choices.addObject();
            choice.put("index", c);
            if (chat) {
                ObjectNode message = choice.putObject("message");
                message.put("role", "assistant");
                message.put("content", texts[c].toString());
            } else {
                choice.put("text", texts[c].toString());
            }
            choice.putNull("logprobs");
            choice.put("finish_reason", finishReasons[c]);
        }
        if (!omitUsage) root.set("usage", WireFormat.usageNode(mapper, promptTokens, completionTokens, cachedTokens, reportCached));
        if (timings != null) {
            try {
                root.set("timings", mapper.readTree(timings.json()));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("timings JSON", e); // our own literal: cannot happen
            }
        }
        return WireFormat.toJson(mapper, root);
    }

    @Override public void failed(ApiException error) {
        WireFormat.sendError(ctx, mapper, error, keepAlive);
    }
}
