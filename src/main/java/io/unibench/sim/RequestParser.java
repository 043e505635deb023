package io.unibench.sim;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a request body into a {@link SimRequest}, or an {@link ApiException} (400) naming the offending field.
 * Unknown fields are accepted and ignored, as current vLLM does.
 */
final class RequestParser {
    private final ObjectMapper mapper;
    private final String defaultModel;

    RequestParser(ObjectMapper mapper, String defaultModel) {
        this.mapper = mapper;
        this.defaultModel = defaultModel;
    }

    /** A request body of {@code api}. */
    SimRequest parse(WireApi api, byte[] body) {
        return switch (api) {
            case CHAT -> parseChat(body);
            case COMPLETIONS -> parseCompletion(body);
            case RESPONSES -> parseResponses(body);
            case MESSAGES -> parseMessages(body);
            case EMBEDDINGS -> parseEmbeddings(body);
            case RERANK -> parseRerank(body);
        };
    }

    /**
     * OpenAI's Responses API: {@code input} (a string, or message items with string or part contents),
     * {@code instructions} as a leading system message, {@code max_output_tokens}; the usage always arrives.
     */
    private SimRequest parseResponses(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) throw ApiException.badRequest("input", "Field 'input' is required");
        List<ChatTemplate.Message> parsed = new ArrayList<>();
        JsonNode instructions = root.get("instructions");
        if (instructions != null && instructions.isTextual()) parsed.add(new ChatTemplate.Message("system", instructions.asText()));
        if (input.isTextual()) {
            parsed.add(new ChatTemplate.Message("user", input.asText()));
        } else if (input.isArray() && !input.isEmpty()) {
            for (int i = 0; i < input.size(); i++) parsed.add(message(input.get(i), "input[" + i + "]"));
        } else {
            throw ApiException.badRequest("input", "Field 'input' must be a string or a non-empty list of items");
        }
        return typed(root, WireApi.RESPONSES, ChatTemplate.render(parsed), "max_output_tokens", null, false);
    }

    /**
     * Anthropic's Messages API: {@code messages} (string or text-block contents), {@code system} (string or text
     * blocks), {@code max_tokens} (required, as Anthropic's is), {@code stop_sequences}.
     */
    private SimRequest parseMessages(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode messages = root.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ApiException.badRequest("messages", "messages: Field required (a non-empty list)");
        }
        List<ChatTemplate.Message> parsed = new ArrayList<>(messages.size() + 1);
        JsonNode system = root.get("system");
        if (system != null && !system.isNull()) parsed.add(new ChatTemplate.Message("system", content(system, "system")));
        for (int i = 0; i < messages.size(); i++) {
            ChatTemplate.Message m = message(messages.get(i), "messages[" + i + "]");
            if (!m.role().equals("user") && !m.role().equals("assistant")) {
                throw ApiException.badRequest("messages[" + i + "].role", "messages." + i + ".role: Input should be 'user' or 'assistant'");
            }
            parsed.add(m);
        }
        return typed(root, WireApi.MESSAGES, ChatTemplate.render(parsed), "max_tokens", "stop_sequences", true);
    }

    /** {@code input}: a string, strings, token ids or lists of token ids, one embedding each. */
    private SimRequest parseEmbeddings(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) throw ApiException.badRequest("input", "Field 'input' is required");
        return inputOnly(root, WireApi.EMBEDDINGS, prompts(input, "input"));
    }

    /** {@code query} and {@code documents} (strings or objects with {@code text}): one query-document pair each. */
    private SimRequest parseRerank(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode query = root.get("query");
        if (query == null || !query.isTextual()) throw ApiException.badRequest("query", "Field 'query' is required and must be a string");
        JsonNode documents = root.get("documents");
        if (documents == null || !documents.isArray() || documents.isEmpty()) {
            throw ApiException.badRequest("documents", "Field 'documents' must be a non-empty list");
        }
        List<SimRequest.PromptInput> pairs = new ArrayList<>(documents.size());
        for (int i = 0; i < documents.size(); i++) {
            JsonNode d = documents.get(i);
            JsonNode text = d.isObject() ? d.get("text") : d;
            if (text == null || !text.isTextual()) {
                throw ApiException.badRequest("documents", "Field 'documents[" + i + "]' must be a string or an object with 'text'");
            }
            pairs.add(SimRequest.PromptInput.ofText(query.asText() + "\n" + text.asText()));
        }
        return inputOnly(root, WireApi.RERANK, pairs);
    }

    private SimRequest typed(JsonNode root, WireApi api, String text, String maxField, String stopField, boolean maxRequired) {
        Integer maxTokens = optionalInt(root, maxField);
        if (maxTokens == null && maxRequired) throw ApiException.badRequest(maxField, maxField + ": Field required");
        if (maxTokens != null && maxTokens < 1) {
            throw ApiException.badRequest(maxField, "Field '" + maxField + "' must be at least 1, got " + maxTokens);
        }
        List<String> stop = stopField == null ? List.of() : stops(root.get(stopField));
        return new SimRequest(true, model(root), List.of(SimRequest.PromptInput.ofText(text)), bool(root, "stream"),
                true, maxTokens, 0, false, null, stop, api);
    }

    /** One prefill step per input and a single output token nobody sees: what an embedding model's pass costs. */
    private SimRequest inputOnly(JsonNode root, WireApi api, List<SimRequest.PromptInput> inputs) {
        return new SimRequest(false, model(root), inputs, false, true, 1, 0, true, null, List.of(), api);
    }

    private String model(JsonNode root) {
        JsonNode m = root.get("model");
        if (m == null || m.isNull()) return defaultModel;
        if (!m.isTextual()) throw ApiException.badRequest("model", "Field 'model' must be a string");
        return m.asText();
    }

    SimRequest parseChat(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode messages = root.get("messages");
        if (messages == null || messages.isNull()) throw ApiException.badRequest("messages", "Field 'messages' is required");
        if (!messages.isArray() || messages.isEmpty()) {
            throw ApiException.badRequest("messages", "Field 'messages' must be a non-empty array");
        }
        List<ChatTemplate.Message> parsed = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            parsed.add(message(messages.get(i), "messages[" + i + "]"));
        }
        String text = ChatTemplate.render(parsed);
        return common(root, true, List.of(SimRequest.PromptInput.ofText(text)));
    }

    /**
     * The text of a {@code /tokenize} body: vLLM's {@code messages} (rendered with the chat template, as a chat
     * request's prompt is) or {@code prompt}, or llama.cpp's {@code content}.
     */
    String tokenizeText(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode messages = root.get("messages");
        if (messages != null && messages.isArray() && !messages.isEmpty()) {
            List<ChatTemplate.Message> parsed = new ArrayList<>(messages.size());
            for (int i = 0; i < messages.size(); i++) parsed.add(message(messages.get(i), "messages[" + i + "]"));
            return ChatTemplate.render(parsed);
        }
        for (String field : List.of("prompt", "content")) {
            JsonNode text = root.get(field);
            if (text != null && text.isTextual()) return text.asText();
        }
        throw ApiException.badRequest("prompt", "Field 'prompt' (vLLM), 'content' (llama.cpp) or 'messages' is required");
    }

    SimRequest parseCompletion(byte[] body) {
        JsonNode root = readObject(body);
        JsonNode prompt = root.get("prompt");
        if (prompt == null || prompt.isNull()) throw ApiException.badRequest("prompt", "Field 'prompt' is required");
        return common(root, false, prompts(prompt, "prompt"));
    }

    private JsonNode readObject(byte[] body) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.badRequest(null, "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw ApiException.badRequest(null, "Request body could not be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) throw ApiException.badRequest(null, "Request body must be a JSON object");
        return root;
    }

    private static ChatTemplate.Message message(JsonNode m, String path) {
        if (!m.isObject()) throw ApiException.badRequest(path, "Field '" + path + "' must be an object");
        JsonNode role = m.get("role");
        if (role == null || !role.isTextual()) {
            throw ApiException.badRequest(path + ".role", "Field '" + path + ".role' is required and must be a string");
        }
        return new ChatTemplate.Message(role.asText(), content(m.get("content"), path + ".content"));
    }

    /** String content, or the text parts of a list of parts joined by newlines; null content (tool calls) is empty. */
    private static String content(JsonNode c, String path) {
        if (c == null || c.isNull()) return "";
        if (c.isTextual()) return c.asText();
        if (!c.isArray()) throw ApiException.badRequest(path, "Field '" + path + "' must be a string or a list of parts");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < c.size(); i++) {
            JsonNode part = c.get(i);
            if (!part.isObject()) throw ApiException.badRequest(path + "[" + i + "]", "Field '" + path + "[" + i + "]' must be an object");
            JsonNode text = part.get("text");
            if (text != null && text.isTextual()) {
                if (!sb.isEmpty()) sb.append('\n');
                sb.append(text.asText());
            }
        }
        return sb.toString();
    }

    /** string | string[] | int[] | int[][], as the legacy completions API accepts. */
    private static List<SimRequest.PromptInput> prompts(JsonNode prompt, String field) {
        if (prompt.isTextual()) return List.of(SimRequest.PromptInput.ofText(prompt.asText()));
        if (!prompt.isArray() || prompt.isEmpty()) {
            throw ApiException.badRequest(field, "Field '" + field + "' must be a string or a non-empty list of strings or token ids");
        }
        if (prompt.get(0).isIntegralNumber()) return List.of(SimRequest.PromptInput.ofTokens(tokenIds(prompt, field, field)));
        List<SimRequest.PromptInput> out = new ArrayList<>(prompt.size());
        for (int i = 0; i < prompt.size(); i++) {
            JsonNode p = prompt.get(i);
            if (p.isTextual()) out.add(SimRequest.PromptInput.ofText(p.asText()));
            else if (p.isArray()) out.add(SimRequest.PromptInput.ofTokens(tokenIds(p, field, field + "[" + i + "]")));
            else throw ApiException.badRequest(field, "Field '" + field + "[" + i + "]' must be a string or a list of token ids");
        }
        return out;
    }

    private static int[] tokenIds(JsonNode array, String field, String path) {
        int[] ids = new int[array.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode id = array.get(i);
            if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
                throw ApiException.badRequest(field, "Field '" + path + "[" + i + "]' must be a non-negative token id");
            }
            ids[i] = id.intValue();
        }
        return ids;
    }

    private SimRequest common(JsonNode root, boolean chat, List<SimRequest.PromptInput> prompts) {
        String model = defaultModel;
        JsonNode m = root.get("model");
        if (m != null && !m.isNull()) {
            if (!m.isTextual()) throw ApiException.badRequest("model", "Field 'model' must be a string");
            model = m.asText();
        }
        boolean stream = bool(root, "stream");
        boolean includeUsage = false;
        JsonNode options = root.get("stream_options");
        if (options != null && !options.isNull()) {
            if (!options.isObject()) throw ApiException.badRequest("stream_options", "Field 'stream_options' must be an object");
            includeUsage = bool(options, "include_usage");
        }
        Integer maxTokens = optionalInt(root, "max_completion_tokens");
        if (maxTokens == null) maxTokens = optionalInt(root, "max_tokens");
        String maxField = root.hasNonNull("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
        if (maxTokens != null && maxTokens < 1) {
            throw ApiException.badRequest(maxField, "Field '" + maxField + "' must be at least 1, got " + maxTokens);
        }
        Integer min = optionalInt(root, "min_tokens");
        int minTokens = min == null ? 0 : min;
        if (minTokens < 0) throw ApiException.badRequest("min_tokens", "Field 'min_tokens' must be >= 0, got " + minTokens);
        if (maxTokens != null && minTokens > maxTokens) {
            throw ApiException.badRequest("min_tokens", "Field 'min_tokens' (" + minTokens + ") must be <= '" + maxField
                    + "' (" + maxTokens + ")");
        }
        Long seed = null;
        JsonNode s = root.get("seed");
        if (s != null && !s.isNull()) {
            if (!s.isIntegralNumber() || !s.canConvertToLong()) throw ApiException.badRequest("seed", "Field 'seed' must be an integer");
            seed = s.longValue();
        }
        return new SimRequest(chat, model, prompts, stream, includeUsage, maxTokens, minTokens, bool(root, "ignore_eos"), seed,
                stops(root.get("stop")));
    }

    /** {@code stop}: a string or a list of non-empty strings. */
    private static List<String> stops(JsonNode stop) {
        if (stop == null || stop.isNull()) return List.of();
        if (stop.isTextual()) {
            if (stop.asText().isEmpty()) throw ApiException.badRequest("stop", "Field 'stop' must not be empty");
            return List.of(stop.asText());
        }
        if (!stop.isArray()) throw ApiException.badRequest("stop", "Field 'stop' must be a string or a list of strings");
        List<String> out = new ArrayList<>(stop.size());
        for (int i = 0; i < stop.size(); i++) {
            JsonNode s = stop.get(i);
            if (!s.isTextual() || s.asText().isEmpty()) {
                throw ApiException.badRequest("stop", "Field 'stop[" + i + "]' must be a non-empty string");
            }
            out.add(s.asText());
        }
        return List.copyOf(out);
    }

    private static boolean bool(JsonNode obj, String field) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) return false;
        if (!v.isBoolean()) throw ApiException.badRequest(field, "Field '" + field + "' must be a boolean");
        return v.booleanValue();
    }

    private static Integer optionalInt(JsonNode obj, String field) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isIntegralNumber() || !v.canConvertToInt()) throw ApiException.badRequest(field, "Field '" + field + "' must be an integer");
        return v.intValue();
    }
}
