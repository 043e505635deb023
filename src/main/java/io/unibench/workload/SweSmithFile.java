package io.unibench.workload;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code agentic_dataset.json}, the format of evalscope's swe_smith builder: {@code {"metadata": {…},
 * "conversations": [[{"messages": [{"role": "user", "content": …}, …], "prompt_tokens": N}, …], …]}}. Each turn's
 * {@code messages} is the delta appended before it is sent. {@code prompt_tokens} is informational: evalscope writes
 * the chat-template count of the accumulated deltas, we write the bare token count (no template) and add
 * {@code target_tokens} and {@code new_tokens} per turn.
 */
public final class SweSmithFile {
    private SweSmithFile() {}

    /** Writes the file: the same conversations and metadata give the same bytes. */
    public static void write(Path file, Map<String, Object> metadata, List<SweSmithBuilder.Built> conversations)
            throws IOException {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode meta = root.putObject("metadata");
        metadata.forEach((k, v) -> meta.set(k, Json.MAPPER.valueToTree(v)));
        meta.put("num_conversations", conversations.size());
        ArrayNode list = root.putArray("conversations");
        for (SweSmithBuilder.Built b : conversations) {
            ArrayNode turns = list.addArray();
            for (SweSmithBuilder.BuiltTurn t : b.turns()) {
                ObjectNode turn = turns.addObject();
                ArrayNode messages = turn.putArray("messages");
                for (String m : t.userMessages()) messages.addObject().put("role", "user").put("content", m);
                turn.put("prompt_tokens", t.promptTokens());
                turn.put("target_tokens", t.targetTokens());
                turn.put("new_tokens", t.newTokens());
            }
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.write(file, Json.MAPPER.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(root));
    }

    /** The conversations of a prebuilt file, checked: a broken one names the conversation, turn and field. */
    public static List<Conversation> read(String path) {
        String text = DatasetFile.readAll(path);
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String hint = String.valueOf(e.getOriginalMessage()).startsWith("Trailing token")
                    ? " (trajectories, one per line? --dataset-path takes a built agentic_dataset.json; give those "
                    + "to --swe-smith-input or `unibench dataset build-swe-smith`)" : "";
            throw BadInputException.at(path, at == null ? 0 : Math.max(0, at.getLineNr()), null,
                    "not valid JSON: " + Json.problem(e) + hint);
        }
        if (root == null || !root.isObject()) {
            throw BadInputException.at(path, 0, null, "expected a JSON object {\"conversations\": [...]} (an "
                    + "agentic_dataset.json), got " + (root == null ? "nothing" : Json.kind(root)));
        }
        JsonNode list = root.get("conversations");
        if (list == null || !list.isArray()) throw BadInputException.at(path, 0, "conversations", "missing or not a list");
        List<Conversation> out = new ArrayList<>(list.size());
        for (int c = 0; c < list.size(); c++) {
            JsonNode conv = list.get(c);
            String at = "conversations[" + c + "]";
            if (!conv.isArray() || conv.isEmpty()) throw BadInputException.at(path, 0, at, "expected a non-empty list of turns");
            List<Turn> turns = new ArrayList<>(conv.size());
            for (int t = 0; t < conv.size(); t++) {
                String tat = at + "[" + t + "]";
                JsonNode turn = conv.get(t);
                JsonNode messages = turn.path("messages");
                if (!messages.isArray() || messages.isEmpty()) {
                    throw BadInputException.at(path, 0, tat + ".messages", "missing or empty");
                }
                for (int m = 0; m < messages.size(); m++) {
                    JsonNode msg = messages.get(m);
                    if (!msg.path("role").isTextual() || !msg.path("content").isTextual()) {
                        throw BadInputException.at(path, 0, tat + ".messages[" + m + "]",
                                "needs a string 'role' and a string 'content'");
                    }
                }
                turns.add(new Turn((ArrayNode) messages, null, null, turn.path("target_tokens").asInt(-1),
                        turn.path("new_tokens").asInt(-1)));
            }
            out.add(new Conversation(path + "#" + c, turns));
        }
        if (out.isEmpty()) throw BadInputException.at(path, 0, "conversations", "empty");
        return out;
    }
}
