package io.unibench.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /api/openapi.json} (OpenAPI 3.1), generated from the routes the server registers, and the page {@code /api}
 * that shows the same document to a reader ({@link #reference}: read back from the document, so the page cannot say
 * what the document does not).
 */
public final class OpenApi {
    private static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    private OpenApi() {}

    static Map<String, Object> document(List<Route> routes, String version, boolean bearer) {
        Map<String, Object> paths = new LinkedHashMap<>();
        for (Route r : routes) {
            if (!r.document()) continue;
            @SuppressWarnings("unchecked")
            Map<String, Object> item = (Map<String, Object>) paths.computeIfAbsent(r.path(), k -> new LinkedHashMap<>());
            Map<String, Object> op = new LinkedHashMap<>();
            op.put("summary", r.summary());
            List<Map<String, Object>> params = new ArrayList<>();
            Matcher m = PATH_PARAM.matcher(r.path());
            while (m.find()) params.add(param(m.group(1), "path", "", true));
            for (Route.Param q : r.query()) params.add(param(q.name(), "query", q.description(), q.required()));
            if (!params.isEmpty()) op.put("parameters", params);
            if (!r.accepts().isEmpty()) {
                Map<String, Object> content = new LinkedHashMap<>();
                for (String t : r.accepts()) content.put(t, Map.of("schema", Map.of("$ref", "#/components/schemas/Scenario")));
                op.put("requestBody", Map.of("required", true, "content", content));
            }
            Map<String, Object> responses = new LinkedHashMap<>();
            responses.put(Integer.toString(r.status()),
                    Map.of("description", "success", "content", Map.of(r.produces(), Map.of())));
            responses.put("default", Map.of("description", "an error: {\"error\": message}",
                    "content", Map.of("application/json", Map.of("schema", Map.of("$ref", "#/components/schemas/Error")))));
            op.put("responses", responses);
            if (bearer && !r.path().equals("/healthz")) op.put("security", List.of(Map.of("bearer", List.of())));
            item.put(r.method().toLowerCase(Locale.ROOT), op);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.1.0");
        doc.put("info", Map.of("title", "Uni LLM Bench", "version", version,
                "description", "unibench's platform: create runs (a queue), watch them live (SSE), the run history: list, "
                        + "detail, exports, comparison."));
        doc.put("paths", paths);
        Map<String, Object> components = new LinkedHashMap<>();
        Map<String, Object> problem = Map.of("type", "object", "properties", Map.of(
                "path", Map.of("type", "string", "description", "JSON pointer"),
                "line", Map.of("type", "integer", "description", "1-based line (YAML documents)"),
                "message", Map.of("type", "string")));
        Map<String, Object> error = Map.of("type", "object", "required", List.of("error"), "properties", Map.of(
                "error", Map.of("type", "string"),
                "problems", Map.of("type", "array", "description", "a refused scenario document: where and what",
                        "items", problem)));
        Map<String, Object> scenario = Map.of("type", "object", "description", "a scenario document: the schema of "
                + "`unibench run --config` (bench.schema.json in the repository), one provider or several: one stored run "
                + "per provider, the first in the created run, each other one linked to it (linked_runs, part_of)");
        components.put("schemas", Map.of("Error", error, "Scenario", scenario));
        components.put("securitySchemes", Map.of("bearer", Map.of("type", "http", "scheme", "bearer")));
        doc.put("components", components);
        return doc;
    }

    /** One parameter as the reference page lists it. */
    public record RefParam(String name, String in, boolean required, String description) {}

    /** One operation as the reference page lists it: method, path, what it does, what it reads and answers. */
    public record Operation(String method, String path, String summary, List<RefParam> params, List<String> accepts,
                            String status, String produces, boolean secured) {
        /** The anchor of its entry: {@code get-api-runs-id}. */
        public String anchor() {
            return (method + path).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("-+$", "");
        }
    }

    /** The reference page's model: the document's title, version and description, its operations in order. */
    public record Reference(String title, String version, String description, List<Operation> operations,
                            boolean bearer, boolean loggedIn) {}

    /** The operations of {@code doc} (what {@link #document} made), in the document's order. */
    @SuppressWarnings("unchecked")
    static Reference reference(Map<String, Object> doc, boolean loggedIn) {
        Map<String, Object> info = (Map<String, Object>) doc.get("info");
        List<Operation> ops = new ArrayList<>();
        boolean bearer = false;
        for (Map.Entry<String, Object> path : ((Map<String, Object>) doc.get("paths")).entrySet()) {
            for (Map.Entry<String, Object> m : ((Map<String, Object>) path.getValue()).entrySet()) {
                Map<String, Object> op = (Map<String, Object>) m.getValue();
                List<RefParam> params = new ArrayList<>();
                for (Map<String, Object> p : (List<Map<String, Object>>) op.getOrDefault("parameters", List.of())) {
                    params.add(new RefParam((String) p.get("name"), (String) p.get("in"),
                            Boolean.TRUE.equals(p.get("required")), (String) p.getOrDefault("description", "")));
                }
                Map<String, Object> body = (Map<String, Object>) op.get("requestBody");
                List<String> accepts = body == null ? List.of()
                        : List.copyOf(((Map<String, Object>) body.get("content")).keySet());
                Map.Entry<String, Object> success = ((Map<String, Object>) op.get("responses")).entrySet().iterator().next();
                Map<String, Object> content = (Map<String, Object>) ((Map<String, Object>) success.getValue()).get("content");
                boolean secured = op.containsKey("security");
                bearer |= secured;
                ops.add(new Operation(m.getKey().toUpperCase(Locale.ROOT), path.getKey(), (String) op.get("summary"),
                        params, accepts, success.getKey(), content == null ? "" : String.join(", ", content.keySet()),
                        secured));
            }
        }
        return new Reference((String) info.get("title"), (String) info.get("version"), (String) info.get("description"),
                ops, bearer, loggedIn);
    }

    private static Map<String, Object> param(String name, String in, String description, boolean required) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", name);
        p.put("in", in);
        if (!description.isEmpty()) p.put("description", description);
        p.put("required", required);
        p.put("schema", Map.of("type", "string"));
        return p;
    }
}
