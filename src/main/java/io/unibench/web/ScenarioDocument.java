package io.unibench.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.schedule.AlertsDocument;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.LocatedYaml;
import io.unibench.scenario.ScenarioFile;
import io.unibench.scenario.ScenarioProblems;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario document posted to the service ({@code unibench run --config}'s schema, as JSON or YAML), validated
 * before anything is queued: by the scenario file's own rules (schema, cross-field rules, the api_key_env variable
 * set in the service's environment) and by the service's: no credential in the document —
 * keys stay in the service's environment, so they never travel through a browser. Every problem is reported with
 * its place: a JSON pointer, and for YAML also its line.
 *
 * @param config the validated configuration
 * @param tree   the document as JSON, stored as the run's configuration (it holds no secret)
 */
record ScenarioDocument(BenchConfig config, ObjectNode tree) {
    static final String FILE_NAME = "scenario.yaml";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** One problem: where (JSON pointer; 1-based YAML line, 0 for JSON or when unknown) and what. */
    record Problem(String path, int line, String message) {
        Map<String, Object> toMap(boolean yaml) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("path", path);
            if (yaml) m.put("line", line);
            m.put("message", message);
            return m;
        }
    }

    /** The document cannot run: 400 with every problem. */
    static final class Invalid extends RuntimeException {
        final List<Problem> problems;
        final boolean yaml;
        final String what; // "scenario document", "run spec"

        Invalid(List<Problem> problems, boolean yaml) {
            this(problems, yaml, "scenario document");
        }

        Invalid(List<Problem> problems, boolean yaml, String what) {
            super(problems.getFirst().path() + ": " + problems.getFirst().message(), null, false, false);
            this.problems = List.copyOf(problems);
            this.yaml = yaml;
            this.what = what;
        }

        Map<String, Object> body() {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("error", problems.size() == 1 ? "the " + what + " has a problem"
                    : "the " + what + " has " + problems.size() + " problems");
            m.put("problems", problems.stream().map(p -> p.toMap(yaml)).toList());
            return m;
        }
    }

    /** True for the media types read as YAML; JSON otherwise; anything else is refused by {@link #parse}. */
    static boolean isYaml(String contentType) {
        String t = mediaType(contentType);
        return t.equals("application/yaml") || t.equals("application/x-yaml") || t.equals("text/yaml")
                || t.equals("text/x-yaml");
    }

    static String mediaType(String contentType) {
        return contentType == null ? "" : contentType.split(";")[0].strip().toLowerCase(Locale.ROOT);
    }

    static ScenarioDocument parse(String contentType, byte[] body, RunService service) {
        return parse(FILE_NAME, contentType, body, service);
    }

    /**
     * @param fileName where the document came from (a schedule's file): a run's default name is derived from it
     * @param service  the keys a run may send and the limits of one run
     */
    static ScenarioDocument parse(String fileName, String contentType, byte[] body, RunService service) {
        boolean yaml = isYaml(contentType);
        if (!yaml && !mediaType(contentType).equals("application/json")) {
            throw new ApiError(415, "Content-Type '" + contentType + "': send the scenario document as application/json "
                    + "or application/yaml");
        }
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.isBlank()) throw new Invalid(List.of(new Problem("", 0, "the document is empty")), yaml);
        if (!yaml) text = jsonAsYaml(text);
        List<Problem> keys = keyRules(text, yaml, service.keys());
        if (!keys.isEmpty()) throw new Invalid(keys, yaml);
        List<Problem> files = fileRules(fileName, text, yaml, service.dataDirs());
        if (!files.isEmpty()) throw new Invalid(files, yaml);
        BenchConfig config;
        try {
            config = ScenarioFile.parse(fileName, text, service.keyEnvironment());
        } catch (ScenarioProblems e) {
            List<Problem> out = new ArrayList<>();
            for (ScenarioProblems.Problem p : e.problems()) out.add(new Problem(pointer(p.path()), yaml ? p.line() : 0, p.message()));
            throw new Invalid(out, yaml);
        }
        // read as the scenario parser read it (aliases resolved): the one YAML reader of scenario documents
        ObjectNode tree = (ObjectNode) LocatedYaml.parse(fileName, text).root();
        List<Problem> rules = serviceRules(tree, yaml ? text : null);
        rules.addAll(limitRules(config, tree, service.limits(), yaml ? text : null));
        Problem alerts = alertRules(fileName, text, yaml);
        if (alerts != null) rules.add(alerts);
        if (!rules.isEmpty()) throw new Invalid(rules, yaml);
        return new ScenarioDocument(config, tree);
    }

    /**
     * Refuses (every problem, by JSON pointer) a YAML or JSON document naming an {@code api_key_env} the service does
     * not send: for a schedule's document, checked before any of its variables is looked up.
     */
    static void requireAllowedKeys(String text, KeyAllowList keys) {
        List<Problem> keysRefused = keyRules(text, true, keys);
        if (!keysRefused.isEmpty()) throw new Invalid(keysRefused, true);
    }

    /**
     * Refuses (every problem, by JSON pointer and line) a schedule's YAML document naming a file outside the service's
     * data folders ({@link DataDirs}): checked before anything reads the document's files.
     */
    static void requireAllowedFiles(String fileName, String text, DataDirs dirs) {
        List<Problem> refused = fileRules(fileName, text, true, dirs);
        if (!refused.isEmpty()) throw new Invalid(refused, true);
    }

    /**
     * Each field naming a server-side file must name one inside the service's data folders ({@link DataDirs}), checked
     * before the scenario reader, which reads some (a CA certificate, a trace), so that nothing outside is read and
     * its existence is not told. A document that does not parse is left to the scenario reader.
     */
    private static List<Problem> fileRules(String fileName, String text, boolean yaml, DataDirs dirs) {
        LocatedYaml located;
        try {
            located = LocatedYaml.parse(fileName, text);
        } catch (BadInputException e) {
            return new ArrayList<>();
        }
        return dirs.refusals(located.root(), path -> yaml ? located.line(path) : 0);
    }

    /** Providers of a document tree and the JSON pointer of each. */
    private static Map<String, JsonNode> providers(JsonNode tree) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        if (tree.has("provider")) out.put("/provider", tree.get("provider"));
        JsonNode list = tree.path("providers");
        for (int i = 0; i < list.size(); i++) out.put("/providers/" + i, list.get(i));
        return out;
    }

    /**
     * Each provider's {@code api_key_env} must be a variable the service may send ({@link KeyAllowList}); checked
     * first, so a refused name is never looked up. A document that does not parse is left to the scenario reader.
     */
    private static List<Problem> keyRules(String text, boolean yaml, KeyAllowList keys) {
        List<Problem> out = new ArrayList<>();
        JsonNode tree;
        try {
            tree = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            return out;
        }
        if (tree == null || !tree.isObject()) return out;
        providers(tree).forEach((at, p) -> {
            JsonNode env = p.path("api_key_env");
            if (env.isTextual() && !keys.allows(env.asText())) {
                out.add(problem(at + "/api_key_env", "variable " + env.asText() + " is not a key this service sends: "
                        + "it sends only " + keys + " (serve --allow-key-env), never its own UNIBENCH_* settings",
                        yaml ? text : null));
            }
        });
        return out;
    }

    /** The service's limits of one run ({@link RunLimits}), each over-limit field by its pointer. */
    private static List<Problem> limitRules(BenchConfig c, ObjectNode tree, RunLimits limits, String yamlText) {
        List<Problem> out = new ArrayList<>();
        var rr = c.loads().requestRate();
        var sla = c.loads().sla();
        int levels;
        if (sla != null) {
            levels = 1;
            int peak = sla.tunesRate() ? sla.fixedParallel() : sla.upperBound();
            if (peak > limits.maxConcurrency()) {
                out.add(problem("/sla_auto_tune/" + (sla.tunesRate() ? "fixed_parallel" : "upper_bound"), peak
                        + " requests at once is over this service's limit of " + limits.maxConcurrency()
                        + " (serve --max-run-concurrency)", yamlText));
            }
            long n = (long) sla.number(sla.upperBound()) * sla.numRuns();
            if (n > limits.maxRequests()) {
                out.add(problem("/sla_auto_tune/upper_bound", "a probe at the upper bound sends " + n
                        + " requests, over this service's limit of " + limits.maxRequests()
                        + " per run (serve --max-run-requests)", yamlText));
            }
        } else if (rr != null) {
            levels = rr.levels().size();
            if (rr.maxConcurrency() != null && rr.maxConcurrency() > limits.maxConcurrency()) {
                out.add(problem("/request_rate/max_concurrency", rr.maxConcurrency() + " requests at once is over "
                        + "this service's limit of " + limits.maxConcurrency() + " (serve --max-run-concurrency)",
                        yamlText));
            }
        } else {
            levels = c.concurrency().levels().size();
            List<Integer> l = c.concurrency().levels();
            for (int i = 0; i < l.size(); i++) {
                if (l.get(i) > limits.maxConcurrency()) {
                    String at = tree.path("concurrency").path("levels").isArray() ? "/concurrency/levels/" + i
                            : "/concurrency";
                    out.add(problem(at, "concurrency " + l.get(i) + " is over this service's limit of "
                            + limits.maxConcurrency() + " requests at once (serve --max-run-concurrency)", yamlText));
                    break;
                }
            }
        }
        int targets = c.providers().size();
        long requests = 0;
        for (int s = 0; s < c.scenarios().size(); s++) {
            requests += (long) io.unibench.scenario.ScenarioSpec.perLevel(c, s) * levels;
        }
        requests *= targets;
        if (sla == null && c.concurrency().holdSeconds() == null && requests > limits.maxRequests()) {
            String at = rr != null && rr.requestsPerLevel() != null ? "/request_rate/requests_per_level"
                    : c.concurrency().requestsPerLevel() != null ? "/concurrency/requests_per_level" : "/scenarios";
            out.add(problem(at, "the run sends " + requests + " requests (levels × requests per level × scenarios "
                    + "× providers), over this service's limit of " + limits.maxRequests()
                    + " per run (serve --max-run-requests)", yamlText));
        }
        Double hold = c.concurrency().holdSeconds();
        if (hold != null && sla == null) {
            double seconds = hold * levels * c.scenarios().size() * targets;
            if (seconds > limits.maxDurationSec()) {
                String at = tree.path("concurrency").has("ramp_interval_sec") ? "/concurrency/ramp_interval_sec"
                        : "/concurrency";
                out.add(problem(at, String.format(Locale.ROOT, "the run holds its levels for %.0f s "
                        + "(levels × hold × scenarios × providers), over this service's limit of %d s per run "
                        + "(serve --max-run-duration)", seconds, limits.maxDurationSec()), yamlText));
            }
        }
        return out;
    }

    /** {@code FILE:LINE: alerts[0].threshold: problem}, the alerts validator's one line. */
    private static final java.util.regex.Pattern ALERT_LINE =
            java.util.regex.Pattern.compile("^.*?(?::(\\d+))?: ((?:alerts|notify)[^:\\s]*): (.*)$");

    /**
     * The {@code alerts:} and {@code notify:} sections by the validator {@code run --config} and {@code schedule add}
     * use ({@link AlertsDocument#parse}: the rules a schema cannot say); its first problem at its pointer, or null.
     */
    private static Problem alertRules(String fileName, String text, boolean yaml) {
        try {
            AlertsDocument.parse(fileName, text);
            return null;
        } catch (BadInputException e) {
            java.util.regex.Matcher m = ALERT_LINE.matcher(e.getMessage());
            if (!m.matches()) return new Problem("/alerts", 0, e.getMessage());
            int line = yaml && m.group(1) != null ? Integer.parseInt(m.group(1)) : 0;
            return new Problem(pointer(m.group(2)), line, m.group(3));
        }
    }

    /** JSON syntax is checked as JSON (its own messages and places); the scenario reader then reads it as YAML. */
    private static String jsonAsYaml(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            return YAML.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")";
            throw new Invalid(List.of(new Problem("", 0, "JSON syntax error" + where + ": "
                    + e.getOriginalMessage().lines().findFirst().orElse("").strip())), false);
        }
    }

    /** The service's own rules: no credential header, no user info in a URL. */
    private static List<Problem> serviceRules(ObjectNode tree, String yamlText) {
        List<Problem> out = new ArrayList<>();
        List<JsonNode> providers = new ArrayList<>();
        String base = tree.has("provider") ? "/provider" : "/providers";
        if (tree.has("provider")) providers.add(tree.get("provider"));
        tree.path("providers").forEach(providers::add);
        for (int i = 0; i < providers.size(); i++) {
            String at = base.equals("/provider") ? base : base + "/" + i;
            JsonNode p = providers.get(i);
            String url = p.path("base_url").asText("");
            if (!Secrets.redact(url).equals(url)) {
                out.add(problem(at + "/base_url", "a credential in the URL is refused: the service reads keys from its "
                        + "own environment (api_key_env), so none travels through a browser", yamlText));
            }
            for (Iterator<String> names = p.path("headers").fieldNames(); names.hasNext(); ) {
                String h = names.next();
                if (Secrets.isSecretHeader(h, p.path("headers").path(h).asText(null))) {
                    out.add(problem(at + "/headers/" + escape(h), "header " + h + " looks like a credential and is "
                            + "refused: name the service's environment variable that holds the key with api_key_env",
                            yamlText));
                }
            }
        }
        return out;
    }

    private static Problem problem(String pointer, String message, String yamlText) {
        return new Problem(pointer, yamlText == null ? 0 : lineOf(yamlText, pointer), message);
    }

    /**
     * The line of a pointer's last key in YAML text: the first line, after the line of its parent key, that starts
     * (after indentation or {@code - }) with {@code key:}. Good enough for the service's own rules, whose keys are
     * named ones (base_url, headers' names) under provider(s).
     */
    static int lineOf(String yamlText, String pointer) {
        String[] lines = yamlText.split("\n", -1);
        int from = 0;
        int found = 0;
        for (String part : pointer.substring(1).split("/")) {
            String key = part.replace("~1", "/").replace("~0", "~");
            if (key.chars().allMatch(Character::isDigit)) continue;
            for (int i = from; i < lines.length; i++) {
                String l = lines[i].stripLeading();
                if (l.startsWith("- ")) l = l.substring(2).stripLeading();
                if (l.startsWith(key + ":") || l.startsWith("\"" + key + "\":")) {
                    found = i + 1;
                    from = i + 1;
                    break;
                }
            }
        }
        return found;
    }

    /** {@code providers[0].base_url} → {@code /providers/0/base_url} (RFC 6901). */
    static String pointer(String path) {
        if (path.isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        for (String part : path.replace("[", ".").replace("]", "").split("\\.")) {
            if (!part.isEmpty()) sb.append('/').append(escape(part));
        }
        return sb.toString();
    }

    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
