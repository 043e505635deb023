package io.unibench.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.unibench.BadInputException;

/** JSON parsing for dataset lines. */
public final class Json {
    /** Configured once, never changed: a line with text after its JSON value is an error, not silently cut. */
    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private Json() {}

    /** One line of a JSONL file, or a {@link BadInputException} naming the file and line. */
    static JsonNode parseLine(String path, long lineNumber, String line) {
        try {
            return MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw BadInputException.at(path, lineNumber, null, "not valid JSON: " + problem(e));
        }
    }

    /**
     * A flag's JSON object ({@code --extra-args}, {@code --dataset-args}); an empty one for null. Anything else (not
     * JSON, text after the object, another kind of value) is a {@link BadInputException} naming the flag.
     */
    public static com.fasterxml.jackson.databind.node.ObjectNode object(String flag, String text) {
        if (text == null) return MAPPER.createObjectNode();
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadInputException(flag + ": invalid JSON (" + problem(e) + ")");
        }
        if (node == null || !node.isObject()) throw new BadInputException(flag + ": expected a JSON object");
        return (com.fasterxml.jackson.databind.node.ObjectNode) node;
    }

    private static final java.util.regex.Pattern TOKEN = java.util.regex.Pattern.compile("Unrecognized token '(.*?)'");
    private static final java.util.regex.Pattern CHARACTER =
            java.util.regex.Pattern.compile("Unexpected character \\('(.*?)' \\(code (\\d+)");

    /**
     * What is wrong with a JSON text, in our words and without the parser's internals (class names, feature flags,
     * the token types it expected): "unexpected text 'garbage' at column 1", "more than one JSON value (…)".
     */
    public static String problem(JsonProcessingException e) {
        String m = String.valueOf(e.getOriginalMessage());
        String column = e.getLocation() == null || e.getLocation().getColumnNr() < 1 ? ""
                : " at column " + e.getLocation().getColumnNr();
        java.util.regex.Matcher t = TOKEN.matcher(m);
        if (t.find()) return "unexpected text '" + t.group(1) + "'" + column;
        java.util.regex.Matcher c = CHARACTER.matcher(m);
        if (c.find()) return "unexpected character '" + c.group(1) + "'" + column;
        if (m.startsWith("Trailing token")) return "more than one JSON value (another starts" + column + ")";
        if (m.startsWith("Unexpected end-of-input")) return "the text ends inside a JSON value (unclosed object, list or string)";
        if (m.contains("Illegal unquoted character")) return "a control character inside a string" + column;
        if (m.startsWith("Unexpected close marker")) return "a closing bracket that closes nothing" + column;
        // anything else: its first sentence, without a parser's class or feature names
        String first = m.lines().findFirst().orElse("").replaceAll("\\s*\\(.*?`.*?`.*?\\)", "").replaceAll(":?\\s*not allowed as per .*", "");
        return first.strip() + column;
    }

    /** "an object", "a number", … for error messages. */
    static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case OBJECT, POJO -> "an object";
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL, MISSING -> "null";
            case BINARY -> "binary data";
        };
    }
}
