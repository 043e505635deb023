package io.unibench.scenario;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.BadInputException;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A YAML document as a JSON tree plus the line of every key and list item, so errors can say
 * {@code bench.yaml:12: providers[1].price.output: ...}. Paths: {@code a.b}, {@code a[0].b}; the root is {@code ""}.
 * Built with Jackson's streaming YAML parser, which knows each token's location. Public for the schedule package,
 * whose {@code alerts:}/{@code notify:} sections of the same document report their errors the same way.
 */
public final class LocatedYaml {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String fileName;
    private final JsonNode root;
    private final Map<String, Integer> lines;

    private LocatedYaml(String fileName, JsonNode root, Map<String, Integer> lines) {
        this.fileName = fileName;
        this.root = root;
        this.lines = lines;
    }

    public static LocatedYaml parse(String fileName, String text) {
        YAMLFactory factory = YAMLFactory.builder().build();
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser p = factory.createParser(text)) {
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            JsonToken t = p.nextToken();
            if (t == null) throw problem(fileName, 0, "the file is empty");
            JsonNode root = read(p, "", lines);
            if (p.nextToken() != null) {
                throw problem(fileName, p.currentLocation().getLineNr(), "only one YAML document is allowed");
            }
            return new LocatedYaml(fileName, root, lines);
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw problem(fileName, line, "YAML syntax error: "
                    + e.getOriginalMessage().lines().findFirst().orElse("").trim());
        } catch (IOException e) {
            throw new BadInputException(fileName + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** A document that is not one YAML value: {@code file:line: problem}, located for the web's editor. */
    private static ScenarioProblems problem(String fileName, int line, String message) {
        return new ScenarioProblems(fileName + (line > 0 ? ":" + line : "") + ": " + message,
                java.util.List.of(new ScenarioProblems.Problem("", line, message)));
    }

    private static JsonNode read(JsonParser p, String path, Map<String, Integer> lines) throws IOException {
        lines.putIfAbsent(path, p.currentTokenLocation().getLineNr());
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    String child = path.isEmpty() ? key : path + "." + key;
                    lines.put(child, p.currentTokenLocation().getLineNr());
                    p.nextToken();
                    o.set(key, read(p, child, lines));
                }
                return o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    a.add(read(p, path + "[" + i++ + "]", lines));
                }
                return a;
            }
            case VALUE_STRING -> {
                return NODES.textNode(p.getText());
            }
            case VALUE_NUMBER_INT -> {
                return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? NODES.numberNode(p.getBigIntegerValue()) : NODES.numberNode(p.getLongValue());
            }
            case VALUE_NUMBER_FLOAT -> {
                return NODES.numberNode(p.getDoubleValue());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return NODES.booleanNode(p.getBooleanValue());
            }
            case VALUE_NULL -> {
                return NODES.nullNode();
            }
            default -> throw new BadInputException("unexpected YAML token " + t);
        }
    }

    public JsonNode root() {
        return root;
    }

    public String fileName() {
        return fileName;
    }

    /** The line of a path, or of its nearest ancestor that has one; 0 when unknown. */
    int line(String path) {
        String p = path;
        while (true) {
            Integer l = lines.get(p);
            if (l != null) return l;
            if (p.isEmpty()) return 0;
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
    }

    /** {@code file:line: path: problem}, the shape of every scenario-file error. */
    public BadInputException error(String path, String problem) {
        int line = line(path);
        return new BadInputException(fileName + (line > 0 ? ":" + line : "") + ": "
                + (path.isEmpty() ? "" : path + ": ") + problem);
    }
}
