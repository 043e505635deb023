package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code --dataset custom_multi_turn}: JSONL, one OpenAI messages array per line, e.g.
 * {@code [{"role":"system","content":"S"},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
 * {"role":"user","content":"Poem?"}]}.
 *
 * <p>Every line must be a JSON array whose elements are objects with a string {@code role} (user, assistant, system
 * or tool) and a {@code content} (a string or an array of content parts; {@code null} only for assistant messages,
 * which are dropped anyway), with at least one user message. A line that breaks a rule is an error naming the line
 * and the rule, never a silent skip (evalscope skips it with a warning).
 *
 * <p>The messages are split into turns at assistant messages: each run of non-assistant messages is one turn's
 * delta ({@code [[system, user1], [user2]]} above). Dataset assistant messages are never sent; the model's replies
 * take their place. System and tool messages pass through unchanged. Conversations are cut to {@code --max-turns}
 * and kept iff the first user message of turn 1 passes the {@code --min/--max-prompt-length} filter (when it is a
 * string), as evalscope does.
 */
public final class CustomMultiTurnDataset implements ConversationDataset {
    public static final String NAME = "custom_multi_turn";
    private static final Set<String> ROLES = Set.of("user", "assistant", "system", "tool");

    @Override public String name() { return NAME; }

    @Override public List<Conversation> load(MultiTurnOptions options, int count) {
        String path = options.base().path();
        if (path == null || path.isBlank()) {
            throw new BadInputException("--dataset " + NAME + " needs --dataset-path: a JSONL file with one OpenAI "
                    + "messages array per line, e.g. [{\"role\": \"user\", \"content\": \"Hi\"}, {\"role\": \"assistant\", "
                    + "\"content\": \"Hello\"}, {\"role\": \"user\", \"content\": \"Poem?\"}]");
        }
        return ConversationLines.read(path, options, count, CustomMultiTurnDataset::parse);
    }

    /** The turns of one line; every rule broken is a {@link BadInputException} naming the line. */
    static List<Turn> parse(String path, long lineNumber, String line) {
        JsonNode root = Json.parseLine(path, lineNumber, line);
        if (!root.isArray()) {
            throw BadInputException.at(path, lineNumber, null,
                    "must be a JSON array of messages, got " + Json.kind(root));
        }
        if (root.isEmpty()) throw BadInputException.at(path, lineNumber, null, "empty messages array");
        List<Turn> turns = new ArrayList<>();
        ArrayNode delta = JsonNodeFactory.instance.arrayNode();
        boolean anyUser = false;
        for (int i = 0; i < root.size(); i++) {
            JsonNode m = root.get(i);
            String where = "[" + i + "]";
            if (!m.isObject()) {
                throw BadInputException.at(path, lineNumber, null, "message " + where
                        + " must be an object with 'role' and 'content', got " + Json.kind(m));
            }
            JsonNode role = m.get("role");
            if (role == null) throw BadInputException.at(path, lineNumber, where + ".role", "missing");
            if (!role.isTextual()) {
                throw BadInputException.at(path, lineNumber, where + ".role", "must be a string, got " + Json.kind(role));
            }
            String r = role.textValue();
            if (!ROLES.contains(r)) {
                throw BadInputException.at(path, lineNumber, where + ".role",
                        "'" + r + "' is not one of user, assistant, system, tool");
            }
            if (!m.has("content")) throw BadInputException.at(path, lineNumber, where + ".content", "missing");
            JsonNode content = m.get("content");
            boolean nullAllowed = r.equals("assistant"); // e.g. an assistant message that only carries tool_calls
            if (!(content.isTextual() || content.isArray() || content.isNull() && nullAllowed)) {
                throw BadInputException.at(path, lineNumber, where + ".content",
                        "must be a string or an array of content parts, got " + Json.kind(content));
            }
            if (r.equals("assistant")) {
                if (!delta.isEmpty()) turns.add(new Turn(delta, null, null));
                delta = JsonNodeFactory.instance.arrayNode();
            } else {
                anyUser |= r.equals("user");
                delta.add(m.deepCopy());
            }
        }
        if (!delta.isEmpty()) turns.add(new Turn(delta, null, null));
        if (!anyUser) throw BadInputException.at(path, lineNumber, null, "has no user message (at least one is required)");
        return turns;
    }
}
