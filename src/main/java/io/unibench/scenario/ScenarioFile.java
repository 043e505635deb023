package io.unibench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.client.TlsOptions;
import io.unibench.scenario.BenchConfig.Concurrency;
import io.unibench.scenario.BenchConfig.Generation;
import io.unibench.scenario.BenchConfig.Knee;
import io.unibench.scenario.BenchConfig.Price;
import io.unibench.scenario.BenchConfig.PromptClass;
import io.unibench.scenario.BenchConfig.Provider;
import io.unibench.scenario.BenchConfig.Scenario;
import io.unibench.scenario.BenchConfig.SimProfile;
import io.unibench.scenario.BenchConfig.Timeouts;
import io.unibench.scenario.BenchConfig.Type;
import io.unibench.scenario.BenchConfig.Validation;
import io.unibench.workload.Datasets;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads and validates a scenario file: YAML syntax, then the shipped JSON Schema, then the rules a schema cannot say
 * (one of provider/providers, one prompt source per scenario, ramp bounds, the API key's variable being set). Every
 * error is one line {@code FILE:LINE: key.path: problem}, raised before anything is sent; when there are several, the
 * first in file order is shown with the count of the others.
 */
public final class ScenarioFile {
    static final int DEFAULT_ROUNDS = 20;
    static final int DEFAULT_MAX_TOKENS = 256;

    private final LocatedYaml yaml;
    private final Map<String, String> env;
    private final List<SchemaValidator.Problem> problems = new ArrayList<>();

    private ScenarioFile(LocatedYaml yaml, Map<String, String> env) {
        this.yaml = yaml;
        this.env = env;
    }

    /** The dataset names a {@code type: chat} scenario may give. */
    public static List<String> chatDatasets() {
        return Datasets.names();
    }

    public static BenchConfig load(Path file, Map<String, String> env) {
        String text = io.unibench.workload.TextFiles.readUtf8(file.toString(), file.toString());
        return parse(file.getFileName().toString(), text, env);
    }

    public static BenchConfig parse(String fileName, String text, Map<String, String> env) {
        LocatedYaml yaml = LocatedYaml.parse(fileName, text);
        ScenarioFile f = new ScenarioFile(yaml, env);
        f.problems.addAll(SchemaValidator.shipped().validate(yaml.root()));
        f.raiseIfAny();
        BenchConfig config = f.build();
        f.raiseIfAny();
        return config;
    }

    private void raiseIfAny() {
        if (problems.isEmpty()) return;
        List<SchemaValidator.Problem> sorted = new ArrayList<>(problems);
        sorted.sort(Comparator.comparingInt(p -> yaml.line(p.path())));
        SchemaValidator.Problem first = sorted.getFirst();
        String more = sorted.size() > 1 ? " (and " + (sorted.size() - 1) + " more problem"
                + (sorted.size() > 2 ? "s" : "") + ")" : "";
        throw new ScenarioProblems(yaml.error(first.path(), first.message() + more).getMessage(), sorted.stream()
                .map(p -> new ScenarioProblems.Problem(p.path(), yaml.line(p.path()), p.message())).toList());
    }

    private void problem(String path, String message) {
        problems.add(new SchemaValidator.Problem(path, message));
    }

    // ---- building (the schema has passed: types are right) ----

    private BenchConfig build() {
        JsonNode root = yaml.root();
        List<Provider> providers = providers(root);
        Concurrency concurrency = concurrency(root.get("concurrency"));
        int peak = concurrency.peak();
        double rate = 2.0 * peak; // the document's advice: twice the peak concurrency (paces the ramps only)
        double burst = 1;
        JsonNode rl = root.get("rate_limit");
        boolean rampOnly = rl == null;
        if (rl != null && rl.isNumber()) rate = rl.asDouble();
        if (rl != null && rl.isObject()) {
            rate = rl.get("requests_per_sec").asDouble();
            burst = rl.path("burst").asDouble(1);
        }
        JsonNode t = root.path("timeouts");
        Timeouts timeouts = new Timeouts(optDouble(t, "connect_sec"), optDouble(t, "read_sec"), optDouble(t, "total_sec"));
        JsonNode k = root.path("knee");
        Knee knee = new Knee(k.path("min_gain_percent").asDouble(10), optDouble(k, "latency_p95_ms"));
        List<Scenario> scenarios = new ArrayList<>();
        Set<String> names = new HashSet<>();
        JsonNode list = root.get("scenarios");
        for (int i = 0; i < list.size(); i++) {
            String path = "scenarios[" + i + "]";
            Scenario s = scenario(list.get(i), path);
            if (!names.add(s.name())) problem(path + ".name", "duplicate scenario name '" + s.name() + "'");
            scenarios.add(s);
        }
        String name = root.path("name").asText(stripExtension(yaml.fileName()));
        Generation generation = generation(root);
        double sleep = root.path("sleep_between_levels_sec").asDouble(0);
        BenchConfig.Loads loads = new LoadsSection(root, this::problem).read(scenarios);
        int pool = root.path("connection_pool").asInt(2 * Math.max(peak, ScenarioSpec.peakInFlight(concurrency, loads,
                scenarios)));
        int bound = ScenarioSpec.boundInFlight(concurrency, loads);
        if (pool < bound) {
            problem("connection_pool", "must be at least the peak concurrency (" + bound + "), or requests queue in "
                    + "the client and the latencies are the client's");
        }
        ScenarioSpec.check(concurrency, loads, generation, timeouts, scenarios, sleep)
                .forEach(e -> problem(e.path(), e.message()));
        return new BenchConfig(yaml.fileName(), name, root.path("seed").asLong(0), providers, generation,
                concurrency, rate, burst, rampOnly, pool, timeouts, knee, sleep, scenarios, optDouble(root, "max_error_rate"),
                goodput(root.path("goodput")), loads, limits(root, providers));
    }

    /**
     * {@code retry: {on: [429, 503], max_retries: 3}}, {@code budget: {max_total_tokens: N, max_cost: AMOUNT}},
     * {@code target_precision: PCT}: the run's limits, after the shared rules (the schema has checked the shapes).
     */
    private io.unibench.engine.spec.RunSpec.Limits limits(JsonNode root, List<Provider> providers) {
        JsonNode retry = root.path("retry");
        List<Integer> on = null;
        if (retry.has("on")) {
            on = new ArrayList<>();
            for (JsonNode s : retry.get("on")) on.add(s.asInt());
        }
        Integer maxRetries = retry.has("max_retries") ? retry.get("max_retries").asInt() : null;
        JsonNode budget = root.path("budget");
        Long maxTokens = budget.has("max_total_tokens") ? budget.get("max_total_tokens").asLong() : null;
        Double maxCost = optDouble(budget, "max_cost");
        Double precision = optDouble(root, "target_precision");
        boolean priced = !providers.isEmpty() && providers.stream().allMatch(p -> p.price() != null);
        io.unibench.engine.spec.SpecRules rules = new io.unibench.engine.spec.SpecRules((field, i) -> switch (field) {
            case RETRY_ON -> "retry.on";
            case MAX_RETRIES -> "retry.max_retries";
            case MAX_TOTAL_TOKENS -> "budget.max_total_tokens";
            case MAX_COST -> "budget.max_cost";
            default -> "target_precision";
        });
        rules.limits(on, maxRetries, maxTokens, maxCost, priced, precision)
                .errors().forEach(e -> problem(e.path(), e.message()));
        if (!rules.errors().isEmpty()) return null;
        return new io.unibench.engine.spec.RunSpec.Limits(on == null || on.isEmpty() ? null
                : new io.unibench.engine.spec.RunSpec.Retry(on, maxRetries, null, null), maxTokens, maxCost, precision);
    }

    /** {@code goodput}: the schema has checked its keys and values; null when absent. */
    private static io.unibench.metrics.GoodputSlo goodput(JsonNode g) {
        if (g.isMissingNode() || g.isEmpty()) return null;
        return new io.unibench.metrics.GoodputSlo(optDouble(g, "ttft_ms"), optDouble(g, "tpot_ms"), optDouble(g, "e2el_ms"));
    }

    private List<Provider> providers(JsonNode root) {
        List<Provider> out = new ArrayList<>();
        if (root.has("provider") && root.has("providers")) {
            problem("providers", "give either provider or providers, not both");
            return out;
        }
        if (root.has("provider")) {
            out.add(provider(root.get("provider"), "provider"));
        } else if (root.has("providers")) {
            Set<String> names = new HashSet<>();
            JsonNode list = root.get("providers");
            for (int i = 0; i < list.size(); i++) {
                Provider p = provider(list.get(i), "providers[" + i + "]");
                if (!names.add(p.name())) problem("providers[" + i + "].name", "duplicate provider name '" + p.name() + "'");
                out.add(p);
            }
        } else {
            problem("", "missing required key 'provider' (or 'providers')");
        }
        return out;
    }

    private Provider provider(JsonNode n, String path) {
        String base = n.get("base_url").asText();
        if (!base.equals(BenchConfig.SIM) && !base.matches("(?i)https?://[^/\\s]+.*")) {
            problem(path + ".base_url", "must be an http:// or https:// URL, or sim for the embedded simulator");
        }
        String keyEnv = n.has("api_key_env") ? n.get("api_key_env").asText() : null;
        if (keyEnv != null && !base.equals(BenchConfig.SIM)) {
            String key = env.get(keyEnv);
            if (key == null || key.isBlank()) {
                problem(path + ".api_key_env", "environment variable " + keyEnv + " is not set");
            }
        }
        Map<String, String> headers = new LinkedHashMap<>();
        n.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        for (String h : headers.keySet()) {
            // the key goes by reference (a file is shared, committed, stored with each run): never in clear here
            if (h.equalsIgnoreCase("authorization")) {
                problem(path + ".headers." + h, "a literal " + h + " header is refused: keys go by reference, name "
                        + "the environment variable that holds the key with api_key_env (sent as Authorization: Bearer)");
            }
        }
        Price price = null;
        if (n.has("price")) {
            JsonNode p = n.get("price");
            double input = p.get("input").asDouble();
            price = new Price(input, p.path("cached_input").asDouble(input), p.get("output").asDouble());
        }
        SimProfile sim = null;
        if (n.has("simulator")) {
            if (!base.equals(BenchConfig.SIM)) problem(path + ".simulator", "applies only to base_url: sim");
            JsonNode s = n.get("simulator");
            sim = new SimProfile(s.path("ttft_ms").asDouble(20), s.path("itl_ms").asDouble(5),
                    s.path("prefill_ms_per_token").asDouble(0.02));
        } else if (base.equals(BenchConfig.SIM)) {
            sim = new SimProfile(20, 5, 0.02);
        }
        return new Provider(n.get("name").asText(), base, n.get("model").asText(), keyEnv, headers, price, sim,
                tls(n, path));
    }

    /** ca_cert (a PEM file of CAs to trust, read now) or insecure: true (no verification), as perf's flags. */
    private TlsOptions tls(JsonNode n, String path) {
        boolean insecure = n.path("insecure").asBoolean(false);
        if (!n.has("ca_cert")) return insecure ? new TlsOptions(List.of(), true) : TlsOptions.DEFAULT;
        if (insecure) {
            problem(path + ".insecure", "give ca_cert or insecure, not both (insecure checks no certificate at all)");
            return TlsOptions.DEFAULT;
        }
        String file = n.get("ca_cert").asText();
        try {
            return new TlsOptions(TlsOptions.readCertificates(Path.of(file)), false);
        } catch (IllegalArgumentException e) { // an invalid path too (InvalidPathException)
            problem(path + ".ca_cert", file + ": " + e.getMessage());
            return TlsOptions.DEFAULT;
        }
    }

    private Generation generation(JsonNode root) {
        JsonNode g = root.path("generation");
        List<String> stop = new ArrayList<>();
        g.path("stop").forEach(s -> stop.add(s.asText()));
        return new Generation(g.path("temperature").asDouble(0), g.path("max_tokens").asInt(DEFAULT_MAX_TOKENS),
                optInt(g, "min_tokens"), optDouble(g, "top_p"), optInt(g, "top_k"),
                g.has("seed") ? g.get("seed").asLong() : null, stop, g.path("ignore_eos").asBoolean(false),
                g.has("extra_body") ? (ObjectNode) g.get("extra_body") : null);
    }

    private Concurrency concurrency(JsonNode c) {
        if (c == null) return new Concurrency(List.of(1), null, null);
        if (c.isIntegralNumber()) return new Concurrency(List.of(c.asInt()), null, null);
        if (c.isArray()) return new Concurrency(ints(c), null, null);
        Double hold = optDouble(c, "ramp_interval_sec");
        Integer perLevel = optInt(c, "requests_per_level");
        if (hold != null && perLevel != null) {
            problem("concurrency.requests_per_level", "give either ramp_interval_sec or requests_per_level, not both");
        }
        boolean fixed = c.has("fixed");
        boolean ramp = c.has("start") || c.has("peak") || c.has("step");
        boolean levels = c.has("levels");
        int shapes = (fixed ? 1 : 0) + (ramp ? 1 : 0) + (levels ? 1 : 0);
        if (shapes != 1) {
            problem("concurrency", shapes == 0 ? "needs fixed, start/peak/step or levels"
                    : "give only one of fixed, start/peak/step, levels");
            return new Concurrency(List.of(1), hold, perLevel);
        }
        if (fixed) return new Concurrency(List.of(c.get("fixed").asInt()), hold, perLevel);
        if (levels) return new Concurrency(ints(c.get("levels")), hold, perLevel);
        for (String key : List.of("start", "peak", "step")) {
            if (!c.has(key)) {
                problem("concurrency", "a ramp needs start, peak and step; missing '" + key + "'");
                return new Concurrency(List.of(1), hold, perLevel);
            }
        }
        int start = c.get("start").asInt();
        int peak = c.get("peak").asInt();
        if (start > peak) {
            problem("concurrency.peak", "must be >= start (" + start + "), got " + peak);
            return new Concurrency(List.of(1), hold, perLevel);
        }
        return new Concurrency(Concurrency.ramp(start, peak, c.get("step").asInt()), hold, perLevel);
    }

    private Scenario scenario(JsonNode n, String path) {
        String name = n.get("name").asText();
        Type type = Type.valueOf(n.get("type").asText().toUpperCase(Locale.ROOT));
        String prompt = optText(n, "prompt");
        String dataset = optText(n, "dataset");
        String datasetPath = optText(n, "dataset_path");
        Integer history = optInt(n, "conversation_history");
        boolean hasClasses = n.has("classes");
        if (datasetPath != null && dataset == null) problem(path + ".dataset_path", "needs dataset (the format of the file)");
        if (hasClasses && type != Type.MIXED) problem(path + ".classes", "applies only to type: mixed");
        if (history != null && type != Type.MULTI_TURN) {
            problem(path + ".conversation_history", "applies only to type: multi_turn");
        }
        switch (type) {
            case CHAT -> {
                if ((prompt == null) == (dataset == null)) problem(path, "type chat needs exactly one of prompt and dataset");
                if (dataset != null && !Datasets.names().contains(dataset)) {
                    problem(path + ".dataset", "unknown dataset '" + dataset + "' (known: "
                            + String.join(", ", Datasets.names()) + ")");
                }
            }
            case MULTI_TURN -> {
                if (history == null && dataset == null) {
                    problem(path, "type multi_turn needs conversation_history or a dataset");
                }
                if (dataset != null && prompt != null) problem(path + ".prompt", "comes from the dataset (remove one)");
                if (dataset != null && !Datasets.conversationNames().contains(dataset)) {
                    problem(path + ".dataset", "unknown conversation dataset '" + dataset + "' (known: "
                            + String.join(", ", Datasets.conversationNames()) + ")");
                }
            }
            case MIXED -> {
                if (!hasClasses) problem(path, "type mixed needs classes");
                if (prompt != null || dataset != null) problem(path, "type mixed takes its prompts from classes only");
            }
        }
        List<PromptClass> classes = new ArrayList<>();
        JsonNode cl = n.path("classes");
        for (int i = 0; i < cl.size(); i++) {
            JsonNode c = cl.get(i);
            String cp = path + ".classes[" + i + "]";
            if (c.has("prompt") == c.has("prompt_tokens")) problem(cp, "needs exactly one of prompt and prompt_tokens");
            classes.add(new PromptClass(c.path("name").asText("class" + (i + 1)), c.get("weight").asDouble(),
                    optText(c, "prompt"), optInt(c, "prompt_tokens"), optInt(c, "max_tokens")));
        }
        int minLen = n.path("min_prompt_length").asInt(128);
        int maxLen = n.path("max_prompt_length").asInt(Math.max(minLen, 512));
        if (maxLen < minLen) problem(path + ".max_prompt_length", "must be >= min_prompt_length (" + minLen + ")");
        return new Scenario(name, type, n.path("stream").asBoolean(true), n.path("rounds").asInt(DEFAULT_ROUNDS), prompt,
                optText(n, "system"), dataset, datasetPath, minLen, maxLen, history, optInt(n, "max_tokens"), classes,
                n.path("cache_bust").asBoolean(false), validation(n.get("validate"), path + ".validate"));
    }

    private Validation validation(JsonNode v, String path) {
        if (v == null) return Validation.NONE;
        Pattern regex = null;
        if (v.has("content_regex")) {
            try {
                regex = Pattern.compile(v.get("content_regex").asText());
            } catch (PatternSyntaxException e) {
                problem(path + ".content_regex", "not a valid regular expression: " + e.getDescription());
            }
        }
        return new Validation(v.path("choices_non_empty").asBoolean(false), regex, v.path("json_output").asBoolean(false),
                optInt(v, "min_output_tokens"));
    }

    private static List<Integer> ints(JsonNode list) {
        List<Integer> out = new ArrayList<>();
        list.forEach(x -> out.add(x.asInt()));
        return out;
    }

    private static String optText(JsonNode n, String key) {
        return n.has(key) && !n.get(key).isNull() ? n.get(key).asText() : null;
    }

    private static Integer optInt(JsonNode n, String key) {
        return n.has(key) && n.get(key).isNumber() ? n.get(key).asInt() : null;
    }

    private static Double optDouble(JsonNode n, String key) {
        return n.has(key) && n.get(key).isNumber() ? n.get(key).asDouble() : null;
    }

    private static String stripExtension(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }
}
