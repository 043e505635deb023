package io.unibench.workload;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads agent trajectories for the swe_smith builder from a local file:
 * <ul>
 *   <li>JSONL (name ending {@code .jsonl}): one trajectory per line, an object with {@code messages} (a JSON string,
 *       as in the SWE-smith-trajectories dataset, or an array) or {@code history} (SWE-agent);</li>
 *   <li>JSON: one such object (a SWE-agent {@code .traj} file) or an array of them.</li>
 * </ul>
 * Messages are OpenAI-style: {@code role} and {@code content} (a string, or a list of parts whose {@code text} are
 * joined with newlines). {@code tool} becomes {@code user}; only user contents are kept, empty ones dropped. A
 * malformed file is a {@link BadInputException} naming the file, the line (JSONL, or the JSON parser's position) and
 * the field.
 */
public final class TrajectoryReader {
    private TrajectoryReader() {}

    public static List<Trajectory> read(String path) {
        if (path.toLowerCase(Locale.ROOT).endsWith(".jsonl")) {
            List<Trajectory> out = new ArrayList<>();
            DatasetFile.forEachNonBlankLine(path, (line, text) -> {
                JsonNode node;
                try {
                    node = Json.MAPPER.readTree(text);
                } catch (JsonProcessingException e) {
                    throw BadInputException.at(path, line, null, "not valid JSON: " + Json.problem(e));
                }
                out.add(trajectory(path + ":" + line, path, line, "", node));
                return true;
            });
            return out;
        }
        String text = DatasetFile.readAll(path);
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            long line = at == null ? 0 : Math.max(0, at.getLineNr());
            throw BadInputException.at(path, line, null, "not valid JSON: " + Json.problem(e));
        }
        if (root == null) throw BadInputException.at(path, 0, null, "empty JSON");
        List<Trajectory> out = new ArrayList<>();
        if (root.isArray()) {
            for (int i = 0; i < root.size(); i++) out.add(trajectory(path + "#" + i, path, 0, "[" + i + "].", root.get(i)));
        } else {
            out.add(trajectory(path, path, 0, "", root));
        }
        if (out.isEmpty()) throw BadInputException.at(path, 0, null, "no trajectory in the file");
        return out;
    }

    private static Trajectory trajectory(String source, String path, long line, String where, JsonNode node) {
        if (!node.isObject()) throw BadInputException.at(path, line, where.isEmpty() ? null : where.substring(0, where.length() - 1), "expected a JSON object, got " + Json.kind(node));
        String field = node.has("messages") ? "messages" : node.has("history") ? "history" : null;
        if (field == null) throw BadInputException.at(path, line, where + "messages", "missing (nor 'history')");
        JsonNode messages = node.get(field);
        long rawLength;
        if (messages.isTextual()) {
            rawLength = messages.asText().length();
            try {
                messages = Json.MAPPER.readTree(messages.asText());
            } catch (JsonProcessingException e) {
                throw BadInputException.at(path, line, where + field, "a string that is not valid JSON ("
                        + Json.problem(e) + ")");
            }
        } else {
            rawLength = messages.toString().length();
        }
        if (messages == null || !messages.isArray()) {
            throw BadInputException.at(path, line, where + field, "expected an array of messages, got "
                    + (messages == null ? "nothing" : Json.kind(messages)));
        }
        List<String> users = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String at = where + field + "[" + i + "]";
            if (!m.isObject()) throw BadInputException.at(path, line, at, "expected an object, got " + Json.kind(m));
            JsonNode role = m.get("role");
            if (role == null || !role.isTextual()) throw BadInputException.at(path, line, at + ".role", "missing or not a string");
            String r = role.asText();
            if (!r.equals("user") && !r.equals("tool")) continue; // system and assistant text is never sent
            String content = content(path, line, at + ".content", m.get("content"));
            if (!content.isEmpty()) users.add(content);
        }
        return new Trajectory(source, rawLength, users);
    }

    private static String content(String path, long line, String at, JsonNode c) {
        if (c == null || c.isNull()) return "";
        if (c.isTextual()) return c.asText();
        if (c.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : c) {
                String text = part.isTextual() ? part.asText() : part.path("text").isTextual() ? part.get("text").asText() : null;
                if (text == null || text.isEmpty()) continue;
                if (!sb.isEmpty()) sb.append('\n');
                sb.append(text);
            }
            return sb.toString();
        }
        throw BadInputException.at(path, line, at, "expected a string or a list of parts, got " + Json.kind(c));
    }
}
