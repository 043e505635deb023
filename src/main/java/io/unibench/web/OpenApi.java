package io.unibench.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code /api/openapi.json} (OpenAPI 3.1), generated from the routes the server registers. */
final class OpenApi {
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
