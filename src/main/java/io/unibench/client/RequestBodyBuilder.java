package io.unibench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Builds request bodies the way evalscope's openai plugin does ({@code __compose_query_from_parameter}), so the
 * same flags put the same JSON on the wire: the query template's keys if any, the input ({@code messages} or
 * {@code prompt}), then model, max_tokens, min_tokens, the optional sampling fields (frequency_penalty,
 * repetition_penalty, logprobs, n, stop_token_ids), seed, stop, stream (+ stream_options), temperature, top_p,
 * top_k, then the extra arguments merged last. A complete body supplied by a dataset is only filled where keys
 * are missing (the template does not apply to it).
 *
 * <p>The other APIs ({@link ApiFormat}) get the same flags under their own field names: the Responses API
 * {@code input} and {@code max_output_tokens}, Anthropic's Messages API a top-level {@code system} and
 * {@code max_tokens}/{@code stop_sequences}; embeddings and rerank only the input, the model and the extra arguments.
 *
 * <p>Stateless; safe to share between threads (the {@link RandomGenerator} passed in is the caller's).
 */
public final class RequestBodyBuilder {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * The body for one request. Exactly one of {@code messages}, {@code prompt} and {@code fullBody} is non-null.
     *
     * @param rng draws {@code max_tokens} uniformly from {@code [maxTokensMin, maxTokensMax]} (inclusive) on every
     *            call when the bounds differ; not used otherwise
     */
    public ObjectNode build(GenerationParams p, ArrayNode messages, String prompt, ObjectNode fullBody,
                            RandomGenerator rng) {
        int inputs = (messages != null ? 1 : 0) + (prompt != null ? 1 : 0) + (fullBody != null ? 1 : 0);
        if (inputs != 1) {
            throw new IllegalArgumentException("exactly one of messages, prompt and fullBody must be given");
        }
        if (fullBody != null) {
            return p.format().generates() ? fill(fullBody.deepCopy(), p, rng) : fillInputOnly(fullBody.deepCopy(), p);
        }
        ObjectNode template = p.template();
        ObjectNode body = template != null ? template : NODES.objectNode();
        switch (p.format()) {
            case CHAT -> body.set("messages", messages != null ? messages.deepCopy() : userMessage(prompt));
            case COMPLETIONS -> {
                String text = messages != null ? joinContents(messages) : prompt;
                if (p.promptEncoder() != null) body.set("prompt", ids(p.promptEncoder().apply(text)));
                else body.put("prompt", text);
            }
            case RESPONSES -> {
                if (messages != null) body.set("input", messages.deepCopy());
                else body.put("input", prompt);
            }
            case ANTHROPIC -> anthropicMessages(body, messages != null ? messages : userMessage(prompt));
            case EMBEDDING -> body.put("input", messages != null ? joinContents(messages) : prompt);
            case RERANK -> throw new IllegalArgumentException("a rerank request needs a query and documents (a body)");
        }
        return switch (p.format()) {
            case CHAT, COMPLETIONS -> compose(body, p, rng);
            case RESPONSES, ANTHROPIC -> composeTyped(body, p, rng);
            case EMBEDDING, RERANK -> inputOnly(body, p);
        };
    }

    /**
     * The Responses and Messages APIs: their own name for the output bound ({@code max_output_tokens},
     * {@code max_tokens}; Anthropic also {@code stop_sequences} and {@code top_k}), {@code stream} without
     * {@code stream_options} (their usage always arrives), temperature, top_p, then the extra arguments. The CLI
     * refuses the flags these APIs have no field for.
     */
    private static ObjectNode composeTyped(ObjectNode body, GenerationParams p, RandomGenerator rng) {
        boolean anthropic = p.format() == ApiFormat.ANTHROPIC;
        if (p.model() != null) body.put("model", p.model());
        body.put(anthropic ? "max_tokens" : "max_output_tokens", maxTokens(p, rng));
        if (anthropic && !p.stop().isEmpty()) body.set("stop_sequences", stopArray(p));
        body.put("stream", p.stream());
        body.put("temperature", p.temperature());
        if (p.topP() != null) body.put("top_p", p.topP());
        if (anthropic && p.topK() != null) body.put("top_k", p.topK());
        ObjectNode extra = p.extraArgs();
        if (extra != null) body.setAll(extra);
        return body;
    }

    /** Embeddings and rerank: the input, the model and the extra arguments; nothing about generation. */
    private static ObjectNode inputOnly(ObjectNode body, GenerationParams p) {
        if (p.model() != null) body.put("model", p.model());
        ObjectNode extra = p.extraArgs();
        if (extra != null) body.setAll(extra);
        return body;
    }

    private static ObjectNode fillInputOnly(ObjectNode body, GenerationParams p) {
        if (p.model() != null) body.putIfAbsent("model", NODES.textNode(p.model()));
        ObjectNode extra = p.extraArgs();
        if (extra != null) {
            for (Map.Entry<String, JsonNode> e : extra.properties()) body.putIfAbsent(e.getKey(), e.getValue());
        }
        return body;
    }

    /**
     * Anthropic's shape of a conversation: system messages go to the top-level {@code system} (joined), the others
     * stay in order; a {@code tool} message (an agent trace's tool output) is the user's turn, as Anthropic has no
     * tool role without tool-use ids.
     */
    private static void anthropicMessages(ObjectNode body, ArrayNode messages) {
        StringBuilder system = new StringBuilder();
        ArrayNode out = NODES.arrayNode();
        for (JsonNode m : messages) {
            String role = m.path("role").asText("");
            if (role.equals("system") || role.equals("developer")) {
                if (!system.isEmpty()) system.append('\n');
                system.append(contentText(m.get("content")));
                continue;
            }
            ObjectNode copy = out.addObject();
            copy.put("role", role.equals("assistant") ? "assistant" : "user");
            JsonNode content = m.get("content");
            if (content != null && content.isTextual()) copy.set("content", content);
            else copy.put("content", contentText(content));
        }
        if (!system.isEmpty()) body.put("system", system.toString());
        body.set("messages", out);
    }

    private static String contentText(JsonNode content) {
        if (content == null || content.isNull()) return "";
        if (!content.isArray()) return content.asText();
        StringBuilder sb = new StringBuilder();
        appendTextParts(sb, content);
        return sb.toString();
    }

    private static ArrayNode ids(int[] tokenIds) {
        ArrayNode ids = NODES.arrayNode(tokenIds.length);
        for (int id : tokenIds) ids.add(id);
        return ids;
    }

    private static ObjectNode compose(ObjectNode body, GenerationParams p, RandomGenerator rng) {
        if (p.model() != null) {
            body.put("model", p.model());
        }
        body.put("max_tokens", maxTokens(p, rng));
        if (p.minTokens() != null) {
            body.put("min_tokens", p.minTokens());
        }
        ObjectNode optional = p.optional();
        if (optional != null) {
            body.setAll(optional);
        }
        if (p.seed() != null) {
            body.put("seed", p.seed());
        }
        if (!p.stop().isEmpty()) {
            body.set("stop", stopArray(p));
        }
        body.put("stream", p.stream());
        if (p.stream()) {
            body.set("stream_options", includeUsage());
        } else {
            body.remove("stream_options");
        }
        body.put("temperature", p.temperature());
        if (p.topP() != null) {
            body.put("top_p", p.topP());
        }
        if (p.topK() != null) {
            body.put("top_k", p.topK());
        }
        ObjectNode extra = p.extraArgs();
        if (extra != null) {
            body.setAll(extra);
        }
        return body;
    }

    /** setdefault semantics: a dataset's own values win over every flag, extra arguments included. */
    private static ObjectNode fill(ObjectNode body, GenerationParams p, RandomGenerator rng) {
        if (p.model() != null) {
            body.putIfAbsent("model", NODES.textNode(p.model()));
        }
        String maxField = switch (p.format()) {
            case RESPONSES -> "max_output_tokens";
            default -> "max_tokens";
        };
        if (!body.has(maxField)) {
            body.put(maxField, maxTokens(p, rng));
        }
        boolean openAi = p.format() == ApiFormat.CHAT || p.format() == ApiFormat.COMPLETIONS;
        if (openAi && p.minTokens() != null) {
            body.putIfAbsent("min_tokens", NODES.numberNode(p.minTokens()));
        }
        ObjectNode optional = p.optional();
        if (openAi && optional != null) {
            for (Map.Entry<String, JsonNode> e : optional.properties()) {
                body.putIfAbsent(e.getKey(), e.getValue());
            }
        }
        if (openAi && p.seed() != null) {
            body.putIfAbsent("seed", NODES.numberNode(p.seed()));
        }
        if (!p.stop().isEmpty() && p.format() != ApiFormat.RESPONSES) {
            body.putIfAbsent(p.format() == ApiFormat.ANTHROPIC ? "stop_sequences" : "stop", stopArray(p));
        }
        body.putIfAbsent("stream", NODES.booleanNode(p.stream()));
        // the body's own stream flag decides whether usage is requested (the typed APIs always send it)
        if (openAi && body.path("stream").asBoolean(false)) {
            body.putIfAbsent("stream_options", includeUsage());
        }
        body.putIfAbsent("temperature", NODES.numberNode(p.temperature()));
        if (p.topP() != null) {
            body.putIfAbsent("top_p", NODES.numberNode(p.topP()));
        }
        if (p.topK() != null && p.format() != ApiFormat.RESPONSES) {
            body.putIfAbsent("top_k", NODES.numberNode(p.topK()));
        }
        ObjectNode extra = p.extraArgs();
        if (extra != null) {
            for (Map.Entry<String, JsonNode> e : extra.properties()) {
                body.putIfAbsent(e.getKey(), e.getValue());
            }
        }
        return body;
    }

    private static int maxTokens(GenerationParams p, RandomGenerator rng) {
        if (p.maxTokensMin() == p.maxTokensMax()) {
            return p.maxTokensMin();
        }
        return rng.nextInt(p.maxTokensMin(), p.maxTokensMax() + 1);
    }

    private static ArrayNode stopArray(GenerationParams p) {
        ArrayNode stop = NODES.arrayNode();
        p.stop().forEach(stop::add);
        return stop;
    }

    private static ObjectNode includeUsage() {
        return NODES.objectNode().put("include_usage", true);
    }

    private static ArrayNode userMessage(String prompt) {
        ArrayNode messages = NODES.arrayNode();
        messages.addObject().put("role", "user").put("content", prompt);
        return messages;
    }

    /** Legacy completions take one string: message contents joined with "\n" (text parts of multi-part contents). */
    private static String joinContents(ArrayNode messages) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode message : messages) {
            JsonNode content = message.get("content");
            if (content == null || content.isNull()) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            if (content.isArray()) {
                appendTextParts(sb, content);
            } else {
                sb.append(content.asText());
            }
        }
        return sb.toString();
    }

    private static void appendTextParts(StringBuilder sb, JsonNode parts) {
        boolean first = true;
        for (JsonNode part : parts) {
            JsonNode text = part.get("text");
            if (text != null && text.isTextual()) {
                if (!first) {
                    sb.append('\n');
                }
                sb.append(text.textValue());
                first = false;
            }
        }
    }
}
