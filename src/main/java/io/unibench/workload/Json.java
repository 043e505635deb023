package io.unibench.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.unibench.BadInputException;

/** JSON parsing for dataset lines. */
final class Json {
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
            throw BadInputException.at(path, lineNumber, null, "not valid JSON: " + e.getOriginalMessage());
        }
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
