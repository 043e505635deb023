package io.unibench.engine.spec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.unibench.BadInputException;
import io.unibench.client.GenerationParams;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link RunSpec} as a document, JSON or YAML, and back: snake_case keys from the records' components, durations as
 * ISO-8601 ({@code PT1.5S}), paths as text, trusted CAs as base64 DER, arrival shapes tagged by {@code kind}. The
 * document starts with {@code "spec_version": 1}, which tells a spec file from a scenario document. API keys are held
 * by reference ({@code api_key.variable}); a key given as a value is written masked and cannot be read back as one.
 */
public final class RunSpecJson {
    /** The key that marks a document as a run spec, and the version this code reads and writes. */
    public static final String VERSION_KEY = "spec_version";
    public static final int VERSION = 1;

    private static final ObjectMapper JSON = configure(JsonMapper.builder().build());
    private static final ObjectMapper YAML = configure(new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)));

    private RunSpecJson() {}

    private static ObjectMapper configure(ObjectMapper m) {
        SimpleModule module = new SimpleModule("run-spec");
        module.addSerializer(Duration.class, new ToString<>());
        module.addDeserializer(Duration.class, new FromString<>(Duration.class, Duration::parse));
        module.addSerializer(Path.class, new ToString<>());
        module.addDeserializer(Path.class, new FromString<>(Path.class, Path::of));
        module.addSerializer(RunSpec.ApiKey.class, new ApiKeyOut());
        module.addDeserializer(RunSpec.ApiKey.class, new ApiKeyIn());
        module.addSerializer(X509Certificate.class, new CertificateOut());
        module.addDeserializer(X509Certificate.class, new FromString<>(X509Certificate.class, RunSpecJson::certificate));
        m.registerModule(module);
        m.addMixIn(GenerationParams.class, GenerationParamsMixin.class);
        m.setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        m.setDefaultPropertyInclusion(JsonInclude.Include.ALWAYS);
        m.configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, false);
        m.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        m.configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);
        m.configure(SerializationFeature.INDENT_OUTPUT, true);
        return m;
    }

    /** The spec as a JSON document (indented). */
    public static String toJson(RunSpec spec) {
        return write(JSON, spec);
    }

    /** The spec as a YAML document. */
    public static String toYaml(RunSpec spec) {
        return write(YAML, spec);
    }

    /** The spec as a JSON tree, {@code spec_version} first. */
    public static ObjectNode toTree(RunSpec spec) {
        ObjectNode out = JSON.createObjectNode().put(VERSION_KEY, VERSION);
        out.setAll((ObjectNode) JSON.valueToTree(spec));
        return out;
    }

    private static String write(ObjectMapper m, RunSpec spec) {
        try {
            return m.writeValueAsString(toTree(spec));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a spec that cannot be written: " + e.getOriginalMessage(), e);
        }
    }

    /** Whether {@code doc} (a parsed JSON or YAML document) is a run spec rather than a scenario document. */
    public static boolean isSpec(JsonNode doc) {
        return doc != null && doc.isObject() && doc.has(VERSION_KEY);
    }

    /** A spec read from JSON or YAML text ({@code where} names it in errors). */
    public static RunSpec read(String text, String where) {
        JsonNode doc;
        try {
            doc = YAML.readTree(text); // YAML is a superset of JSON
        } catch (IOException e) {
            throw new BadInputException(where + ": not JSON or YAML (" + oneLine(e) + ")");
        }
        return fromTree(doc, where);
    }

    /**
     * A spec from its tree, checked by the shared rules ({@link SpecRules#spec}). Every problem is an {@link Invalid}
     * carrying the JSON pointer of each ({@code /points/1/plan/parallel}); its message is the first one's line.
     */
    public static RunSpec fromTree(JsonNode doc, String where) {
        if (!isSpec(doc)) throw new BadInputException(where + ": not a run spec (no \"" + VERSION_KEY + "\" key)");
        if (doc.get(VERSION_KEY).asInt(-1) != VERSION || !doc.get(VERSION_KEY).isIntegralNumber()) {
            throw new Invalid(where, List.of(new SpecError("/" + VERSION_KEY, doc.get(VERSION_KEY)
                    + " is not a version this unibench reads (" + VERSION + ")")));
        }
        ObjectNode body = ((ObjectNode) doc).deepCopy();
        body.remove(VERSION_KEY);
        if (body.get("sla") instanceof ObjectNode one) body.putArray("sla").add(one); // one search: the form before
        RunSpec spec;
        try {
            spec = JSON.treeToValue(body, RunSpec.class);
        } catch (JsonProcessingException e) {
            throw new Invalid(where, List.of(located(e)));
        } catch (IllegalArgumentException e) {
            throw new Invalid(where, List.of(new SpecError("", e.getMessage())));
        }
        List<SpecError> errors = new SpecRules(SpecPaths.JSON_POINTERS).spec(spec).errors();
        if (!errors.isEmpty()) throw new Invalid(where, errors);
        return spec;
    }

    /** A spec that breaks its schema or the shared rules: each problem at its JSON pointer. */
    public static final class Invalid extends BadInputException {
        private final transient List<SpecError> errors;

        Invalid(String where, List<SpecError> errors) {
            super(where + ": " + (errors.getFirst().path().isEmpty() ? errors.getFirst().message()
                    : errors.getFirst().line()));
            this.errors = List.copyOf(errors);
        }

        /** Every problem, each at its JSON pointer ("" for the document as a whole). */
        public List<SpecError> errors() {
            return errors;
        }
    }

    private static SpecError located(JsonProcessingException e) {
        String path = e instanceof com.fasterxml.jackson.databind.JsonMappingException jm ? pointer(jm.getPath()) : "";
        String line = oneLine(e);
        return new SpecError(path, path.isEmpty() ? line : line.substring(path.length() + 2));
    }

    private static String oneLine(Exception e) {
        String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        String path = e instanceof com.fasterxml.jackson.databind.JsonMappingException jm ? pointer(jm.getPath()) : "";
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        if (root instanceof IllegalArgumentException && root != e) m = root.getMessage();
        if (e instanceof com.fasterxml.jackson.databind.exc.InvalidFormatException f && f.getTargetType() != null
                && f.getTargetType().isEnum()) { // the user's words, not Jackson's class names
            m = "\"" + f.getValue() + "\" is not one of: " + java.util.Arrays.stream(f.getTargetType().getEnumConstants())
                    .map(Object::toString).collect(java.util.stream.Collectors.joining(", "));
        }
        return (path.isEmpty() ? "" : path + ": ") + (m == null ? e.toString() : m.lines().findFirst().orElse(m));
    }

    private static String pointer(List<com.fasterxml.jackson.databind.JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (var r : refs) {
            sb.append('/').append(r.getFieldName() != null ? r.getFieldName() : Integer.toString(r.getIndex()));
        }
        return sb.toString();
    }

    private static X509Certificate certificate(String base64) {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(base64)));
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not a certificate: " + e.getMessage());
        }
    }

    /** The encoder of --tokenize-prompt is code, not data: the workload's options say to make it. */
    private abstract static class GenerationParamsMixin {
        @JsonIgnore
        abstract Function<String, int[]> promptEncoder();
    }

    /** A key given as a value is written masked; a key is read back only by reference. */
    private static final class ApiKeyOut extends JsonSerializer<RunSpec.ApiKey> {
        @Override
        public void serialize(RunSpec.ApiKey key, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeStartObject();
            if (key.variable() != null) g.writeStringField("variable", key.variable());
            if (key.value() != null) g.writeStringField("value", io.unibench.Secrets.mask(key.value()));
            g.writeEndObject();
        }
    }

    private static final class ApiKeyIn extends JsonDeserializer<RunSpec.ApiKey> {
        @Override
        public RunSpec.ApiKey deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            JsonNode n = p.readValueAsTree();
            if (n == null || n.isNull()) return RunSpec.ApiKey.NONE;
            if (!n.isObject()) return ctx.reportInputMismatch(RunSpec.ApiKey.class, "expected {\"variable\": \"NAME\"}");
            for (var it = n.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (f.equals("value")) {
                    return ctx.reportInputMismatch(RunSpec.ApiKey.class, "a spec holds the key by reference "
                            + "({\"variable\": \"NAME\"}, read from the environment), never the key itself");
                }
                if (!f.equals("variable")) return ctx.reportInputMismatch(RunSpec.ApiKey.class, "unknown key '%s'", f);
            }
            JsonNode v = n.get("variable");
            if (v == null || v.isNull()) return RunSpec.ApiKey.NONE;
            if (!v.isTextual() || v.asText().isBlank()) {
                return ctx.reportInputMismatch(RunSpec.ApiKey.class, "variable: expected a variable name");
            }
            return RunSpec.ApiKey.fromEnv(v.asText());
        }
    }

    private static final class ToString<T> extends JsonSerializer<T> {
        @Override
        public void serialize(T value, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeString(value.toString());
        }
    }

    private static final class CertificateOut extends JsonSerializer<X509Certificate> {
        @Override
        public void serialize(X509Certificate value, JsonGenerator g, SerializerProvider p) throws IOException {
            try {
                g.writeString(Base64.getEncoder().encodeToString(value.getEncoded()));
            } catch (CertificateEncodingException e) {
                throw new IOException(e);
            }
        }
    }

    private static final class FromString<T> extends JsonDeserializer<T> {
        private final Class<T> type;
        private final Function<String, T> parse;

        FromString(Class<T> type, Function<String, T> parse) {
            this.type = type;
            this.parse = parse;
        }

        @Override
        public T deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            String text = p.getValueAsString();
            try {
                return parse.apply(text);
            } catch (DateTimeParseException | IllegalArgumentException e) {
                return ctx.reportInputMismatch(type, "'%s' is not a %s (%s)", text, type.getSimpleName(), e.getMessage());
            }
        }
    }
}
