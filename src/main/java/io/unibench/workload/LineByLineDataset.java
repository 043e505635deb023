package io.unibench.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;

import java.util.List;

/**
 * {@code --dataset line_by_line}: a text file whose non-blank lines are each one of
 * <ol>
 *   <li>a JSON object: a complete request body, sent as given (generation flags fill only its missing keys);</li>
 *   <li>a JSON array: the chat messages, sent as given (each needs {@code role} and {@code content});</li>
 *   <li>anything else: a plain-text prompt, stripped and length-filtered (the only kind that is filtered).</li>
 * </ol>
 * A line that starts with '{' and ends with '}' but does not parse is an error: it is surely a broken body, and
 * sending it as text would benchmark the wrong request. A line starting with '[' that does not parse is text
 * ("[INST] …", "[1] …" are common prompts).
 */
public final class LineByLineDataset implements Dataset {
    public static final String NAME = "line_by_line";

    @Override public String name() { return NAME; }

    @Override public List<Prompt> load(DatasetOptions options, int count) {
        String path = CustomDataset.requirePath(NAME, options,
                "a text file with one prompt, JSON message array or JSON request body per line");
        LengthFilter filter = LengthFilter.of(options);
        return PromptFileReader.read(path, count, filter, (lineNumber, line, keep) -> {
            String text = line.strip();
            if (text.startsWith("{")) {
                JsonNode node = parseOrNull(text, path, lineNumber, text.endsWith("}"));
                if (node != null && node.isObject()) return Prompt.ofBody((ObjectNode) node);
            } else if (text.startsWith("[")) {
                JsonNode node = parseOrNull(text, path, lineNumber, false);
                if (node != null && node.isArray()) {
                    return Prompt.ofMessages(validMessages((ArrayNode) node, path, lineNumber), -1, -1);
                }
            }
            return PromptFileReader.filteredText(text, filter, options.chat(), keep);
        });
    }

    private static JsonNode parseOrNull(String text, String path, long lineNumber, boolean mustParse) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            if (mustParse) {
                throw BadInputException.at(path, lineNumber, null,
                        "looks like a JSON request body but is not valid JSON: " + e.getOriginalMessage());
            }
            return null;
        }
    }

    /** The array itself, once every element is checked to be an OpenAI chat message. */
    static ArrayNode validMessages(ArrayNode messages, String path, long lineNumber) {
        if (messages.isEmpty()) throw BadInputException.at(path, lineNumber, null, "empty message list");
        for (int i = 0; i < messages.size(); i++) {
            String where = " in message " + (i + 1) + " of " + messages.size();
            JsonNode message = messages.get(i);
            if (!message.isObject()) {
                throw BadInputException.at(path, lineNumber, null,
                        "message " + (i + 1) + " of " + messages.size() + " must be a JSON object, got "
                                + Json.kind(message));
            }
            JsonNode role = message.get("role");
            if (role == null) throw BadInputException.at(path, lineNumber, "role", "missing" + where);
            if (!role.isTextual() || role.textValue().isBlank()) {
                throw BadInputException.at(path, lineNumber, "role", "must be a non-empty string" + where);
            }
            JsonNode content = message.get("content");
            if (content == null) throw BadInputException.at(path, lineNumber, "content", "missing" + where);
            // null content is valid OpenAI only for an assistant message that carries tool calls.
            boolean nullWithToolCalls = content.isNull() && message.has("tool_calls");
            if (!content.isTextual() && !content.isArray() && !nullWithToolCalls) {
                throw BadInputException.at(path, lineNumber, "content",
                        "must be a string or an array of content parts, got " + Json.kind(content) + where);
            }
        }
        return messages;
    }
}
