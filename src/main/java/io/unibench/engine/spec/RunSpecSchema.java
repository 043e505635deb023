package io.unibench.engine.spec;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.GenerationParams;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON Schema (2020-12) of a {@link RunSpec} document as {@link RunSpecJson} writes it, made from the records
 * themselves, so it cannot drift from them: one {@code $defs} entry per record, its components as snake_case
 * properties (all present, none other), reference types nullable. The published copy is
 * {@code src/main/resources/io/unibench/engine/spec/run-spec.schema.json} ({@code RunSpecSchemaTest} holds it equal).
 */
public final class RunSpecSchema {
    public static final String RESOURCE = "/io/unibench/engine/spec/run-spec.schema.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PropertyNamingStrategies.NamingBase SNAKE =
            (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;
    /** Components the document leaves out (code, not data). */
    private static final Set<String> SKIPPED = Set.of(GenerationParams.class.getName() + ".promptEncoder");

    private final ObjectNode defs = JSON.createObjectNode();

    private RunSpecSchema() {}

    /** The schema. */
    public static ObjectNode generate() {
        RunSpecSchema s = new RunSpecSchema();
        ObjectNode root = JSON.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("$id", "https://unibench.io/schemas/run-spec.schema.json");
        root.put("title", "unibench run spec");
        root.put("description", "One run of unibench: targets, workloads, load points, outputs, history "
                + "(`unibench perf --dry-run` prints one; `unibench run FILE` runs one).");
        ObjectNode body = s.record(RunSpec.class);
        root.put("type", "object");
        ObjectNode props = root.putObject("properties");
        props.putObject(RunSpecJson.VERSION_KEY).put("type", "integer").putArray("enum").add(RunSpecJson.VERSION);
        props.setAll((ObjectNode) body.get("properties"));
        ArrayNode required = root.putArray("required").add(RunSpecJson.VERSION_KEY);
        required.addAll((ArrayNode) body.get("required"));
        root.put("additionalProperties", false);
        root.set("$defs", s.defs);
        return root;
    }

    private ObjectNode record(Class<?> type) {
        ObjectNode o = JSON.createObjectNode().put("type", "object");
        ObjectNode props = o.putObject("properties");
        ArrayNode required = o.putArray("required");
        for (RecordComponent c : type.getRecordComponents()) {
            if (SKIPPED.contains(type.getName() + "." + c.getName())) continue;
            String name = SNAKE.translate(c.getName());
            props.set(name, schema(c.getGenericType()));
            if (type != RunSpec.ApiKey.class) required.add(name); // a key writes only what it has
        }
        o.put("additionalProperties", false);
        return o;
    }

    private ObjectNode schema(Type t) {
        if (t instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            if (List.class.isAssignableFrom(raw)) {
                ObjectNode a = nullable("array");
                a.set("items", schema(p.getActualTypeArguments()[0]));
                return a;
            }
            if (Map.class.isAssignableFrom(raw)) {
                ObjectNode m = nullable("object");
                m.set("additionalProperties", schema(p.getActualTypeArguments()[1]));
                return m;
            }
            throw new IllegalStateException("no schema for " + t);
        }
        Class<?> c = (Class<?>) t;
        if (c == int.class || c == long.class) return type("integer");
        if (c == Integer.class || c == Long.class) return nullable("integer");
        if (c == double.class) return number(false);
        if (c == Double.class) return number(true);
        if (c == boolean.class) return type("boolean");
        if (c == Boolean.class) return nullable("boolean");
        if (c == String.class || c == Path.class || c == X509Certificate.class) return nullable("string");
        if (c == Duration.class) {
            ObjectNode d = nullable("string");
            d.put("description", "ISO-8601 duration, e.g. PT1.5S");
            return d;
        }
        if (c == long[].class) {
            ObjectNode a = nullable("array");
            a.set("items", type("integer"));
            return a;
        }
        if (JsonNode.class.isAssignableFrom(c)) return nullable("object");
        if (c.isEnum()) {
            ObjectNode e = nullable("string");
            ArrayNode values = e.putArray("enum");
            for (Object v : c.getEnumConstants()) values.add(((Enum<?>) v).name());
            values.addNull();
            if (c == RunSpec.Layout.class) {
                e.put("description", "points (null; perf's): each point's files in ROOT/LABEL, requests.jsonl timed "
                        + "from the point's start; series (a scenario file's): the points of one target x workload are "
                        + "a series in ROOT/TARGET/WORKLOAD/LEVEL (LEVEL: the label after TARGET/WORKLOAD/), "
                        + "requests.jsonl timed from the series' start, one progress line per point");
            }
            return e;
        }
        if (c.isRecord() || c.isSealed()) return ref(c);
        throw new IllegalStateException("no schema for " + c);
    }

    /** A record or a sealed interface of records (tagged by its {@code kind}), as a {@code $defs} entry. */
    private ObjectNode ref(Class<?> c) {
        String name = defName(c);
        if (!defs.has(name)) {
            defs.putObject(name); // a placeholder first: a record may refer to itself
            if (c.isRecord()) {
                defs.set(name, record(c));
            } else {
                JsonTypeInfo info = c.getAnnotation(JsonTypeInfo.class);
                JsonSubTypes subs = c.getAnnotation(JsonSubTypes.class);
                if (info == null || subs == null) throw new IllegalStateException("untagged " + c);
                ObjectNode one = JSON.createObjectNode();
                ArrayNode branches = one.putArray("oneOf");
                for (JsonSubTypes.Type sub : subs.value()) {
                    ObjectNode r = record(sub.value());
                    ObjectNode props = JSON.createObjectNode();
                    props.putObject(info.property()).put("type", "string").putArray("enum").add(sub.name());
                    props.setAll((ObjectNode) r.get("properties"));
                    r.set("properties", props);
                    ((ArrayNode) r.get("required")).insert(0, info.property());
                    branches.add(r);
                }
                defs.set(name, one);
            }
        }
        ObjectNode ref = JSON.createObjectNode();
        ref.putArray("oneOf").add(JSON.createObjectNode().put("$ref", "#/$defs/" + name))
                .add(JSON.createObjectNode().put("type", "null"));
        return ref;
    }

    private static String defName(Class<?> c) {
        return c.getEnclosingClass() != null ? c.getEnclosingClass().getSimpleName() + "." + c.getSimpleName()
                : c.getSimpleName();
    }

    private static ObjectNode type(String type) {
        return JSON.createObjectNode().put("type", type);
    }

    private static ObjectNode nullable(String type) {
        ObjectNode o = JSON.createObjectNode();
        o.putArray("type").add(type).add("null");
        return o;
    }

    /** A number; NaN and the infinities are written as text (Jackson's way). */
    private static ObjectNode number(boolean nullable) {
        ObjectNode o = JSON.createObjectNode();
        ArrayNode any = o.putArray("anyOf");
        any.add(type("number"));
        ObjectNode text = type("string");
        text.putArray("enum").add("NaN").add("Infinity").add("-Infinity");
        any.add(text);
        if (nullable) any.add(type("null"));
        return o;
    }
}
