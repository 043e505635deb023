package io.unibench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks a scenario file against the shipped JSON Schema ({@code bench.schema.json}). It interprets the subset of
 * JSON Schema 2020-12 that file uses — {@code type, properties, additionalProperties, required, enum, minimum,
 * maximum, exclusiveMinimum, minLength, pattern, minItems, items, oneOf, not, $ref} to {@code #/$defs/…} — plus
 * {@code errorMessage} (as ajv-errors) to replace a subschema's messages with one written for people. A hand-rolled
 * interpreter, rather than a library, because every message must carry the YAML line and key path and read the same
 * across versions (the tests pin them). The schema stays the single description of the format: editors and other
 * tools can use the same file.
 */
final class SchemaValidator {
    static final String SCHEMA_RESOURCE = "/io/unibench/scenario/bench.schema.json";

    /** One violation: where and what. */
    record Problem(String path, String message) {}

    private final JsonNode schemaRoot;

    SchemaValidator(JsonNode schemaRoot) {
        this.schemaRoot = schemaRoot;
    }

    static SchemaValidator shipped() {
        try (InputStream in = SchemaValidator.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) throw new IllegalStateException("schema resource missing: " + SCHEMA_RESOURCE);
            return new SchemaValidator(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Problem> validate(JsonNode doc) {
        List<Problem> out = new ArrayList<>();
        check(schemaRoot, doc, "", out);
        return out;
    }

    private void check(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        schema = resolve(schema);
        if (schema.has("errorMessage")) {
            List<Problem> inner = new ArrayList<>();
            checkPlain(schema, node, path, inner);
            // the custom message replaces errors about this value itself; errors deeper inside keep their own
            // a value of the right kind out of its range keeps the range's message ("must be >= 1, got -4")
            boolean own = inner.stream().anyMatch(p -> p.path().equals(path) && !isRange(p.message()));
            if (own) out.add(new Problem(path, schema.get("errorMessage").asText()));
            else out.addAll(inner);
            return;
        }
        checkPlain(schema, node, path, out);
    }

    private void checkPlain(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        if (schema.has("not")) {
            List<Problem> inner = new ArrayList<>();
            check(schema.get("not"), node, path, inner);
            if (inner.isEmpty()) out.add(new Problem(path, "is not allowed"));
            return;
        }
        if (schema.has("oneOf")) {
            oneOf(schema.get("oneOf"), node, path, out);
            return;
        }
        if (schema.has("type") && !typeMatches(schema.get("type").asText(), node)) {
            out.add(new Problem(path, "must be " + article(schema.get("type").asText()) + ", got " + describe(node)));
            return;
        }
        if (schema.has("enum")) {
            List<String> allowed = new ArrayList<>();
            boolean found = false;
            for (JsonNode v : schema.get("enum")) {
                allowed.add(v.asText());
                found |= v.equals(node);
            }
            if (!found) out.add(new Problem(path, "must be one of " + String.join(", ", allowed) + "; got " + describe(node)));
            return;
        }
        if (node.isNumber()) numberBounds(schema, node, path, out);
        if (node.isTextual()) textRules(schema, node, path, out);
        if (node.isObject()) object(schema, node, path, out);
        if (node.isArray()) array(schema, node, path, out);
    }

    private void oneOf(JsonNode branches, JsonNode node, String path, List<Problem> out) {
        // pick the branch by type (the file's oneOfs differ in type), then report that branch's own problems
        List<String> expected = new ArrayList<>();
        for (JsonNode b : branches) {
            JsonNode branch = resolve(b);
            String type = branch.path("type").asText();
            expected.add(article(type));
            if (typeMatches(type, node)) {
                check(branch, node, path, out);
                return;
            }
        }
        out.add(new Problem(path, "must be " + String.join(" or ", expected) + ", got " + describe(node)));
    }

    private static boolean isRange(String message) {
        return message.startsWith("must be >") || message.startsWith("must be <") || message.startsWith("must be in [")
                || message.startsWith("must be finite");
    }

    private static void numberBounds(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        double v = node.asDouble();
        if (node.isIntegralNumber() && "integer".equals(schema.path("type").asText()) && !node.canConvertToInt()) {
            // read as a Java int: a larger value would wrap (99999999999 became 1215752191)
            String min = schema.has("minimum") ? number(schema.get("minimum")) : Long.toString(Integer.MIN_VALUE);
            out.add(new Problem(path, "must be in [" + min + ", " + Integer.MAX_VALUE + "], got " + node.asText()));
            return;
        }
        if (!Double.isFinite(v)) {
            out.add(new Problem(path, "must be finite, got " + node.asText()));
            return;
        }
        if (schema.has("minimum") && v < schema.get("minimum").asDouble()) {
            out.add(new Problem(path, "must be >= " + number(schema.get("minimum")) + ", got " + node.asText()));
        }
        if (schema.has("exclusiveMinimum") && v <= schema.get("exclusiveMinimum").asDouble()) {
            out.add(new Problem(path, "must be > " + number(schema.get("exclusiveMinimum")) + ", got " + node.asText()));
        }
        if (schema.has("maximum") && v > schema.get("maximum").asDouble()) {
            out.add(new Problem(path, "must be <= " + number(schema.get("maximum")) + ", got " + node.asText()));
        }
    }

    private static void textRules(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        String s = node.asText();
        if (schema.has("minLength") && s.length() < schema.get("minLength").asInt()) {
            out.add(new Problem(path, "must not be empty"));
        }
        if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(s).find()) {
            out.add(new Problem(path, "must match " + schema.get("pattern").asText()));
        }
    }

    private void object(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        JsonNode props = schema.path("properties");
        if (schema.has("required")) {
            for (JsonNode r : schema.get("required")) {
                if (!node.has(r.asText())) out.add(new Problem(path, "missing required key '" + r.asText() + "'"));
            }
        }
        JsonNode additional = schema.get("additionalProperties");
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
            if (props.has(e.getKey())) {
                check(props.get(e.getKey()), e.getValue(), child, out);
            } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
                List<String> allowed = new ArrayList<>();
                props.fieldNames().forEachRemaining(allowed::add);
                allowed.removeIf(k -> props.get(k).has("not")); // forbidden keys are not offered
                out.add(new Problem(child, "unknown key (allowed: " + String.join(", ", allowed) + ")"));
            } else if (additional != null && additional.isObject()) {
                check(additional, e.getValue(), child, out);
            }
        }
    }

    private void array(JsonNode schema, JsonNode node, String path, List<Problem> out) {
        if (schema.has("minItems") && node.size() < schema.get("minItems").asInt()) {
            out.add(new Problem(path, "must have at least " + schema.get("minItems").asInt() + " item(s)"));
        }
        if (schema.has("items")) {
            for (int i = 0; i < node.size(); i++) check(schema.get("items"), node.get(i), path + "[" + i + "]", out);
        }
    }

    private JsonNode resolve(JsonNode schema) {
        while (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/")) throw new IllegalStateException("only local $ref supported: " + ref);
            schema = schemaRoot.at(ref.substring(1));
            if (schema.isMissingNode()) throw new IllegalStateException("dangling $ref " + ref);
        }
        return schema;
    }

    private static boolean typeMatches(String type, JsonNode node) {
        return switch (type) {
            case "object" -> node.isObject();
            case "array" -> node.isArray();
            case "string" -> node.isTextual();
            case "boolean" -> node.isBoolean();
            case "integer" -> node.isIntegralNumber();
            case "number" -> node.isNumber();
            case "" -> true;
            default -> throw new IllegalStateException("unknown schema type " + type);
        };
    }

    private static String article(String type) {
        return switch (type) {
            case "object" -> "a mapping";
            case "array" -> "a list";
            case "integer" -> "an integer";
            case "" -> "a value";
            default -> "a " + type;
        };
    }

    static String describe(JsonNode node) {
        if (node.isNull()) return "nothing (null)";
        if (node.isObject()) return "a mapping";
        if (node.isArray()) return "a list";
        if (node.isBoolean()) return "a boolean (" + node.asText() + ")";
        if (node.isIntegralNumber()) return "an integer (" + node.asText() + ")";
        if (node.isNumber()) return "a number (" + node.asText() + ")";
        String s = node.asText();
        return "a string (\"" + (s.length() > 40 ? s.substring(0, 39) + "…" : s) + "\")";
    }

    private static String number(JsonNode n) {
        double d = n.asDouble();
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}
