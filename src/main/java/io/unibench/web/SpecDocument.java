package io.unibench.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.Secrets;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.engine.spec.Sla;
import io.unibench.engine.spec.SpecError;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * A run spec posted to the service ({@code perf --dry-run}'s and {@code run FILE}'s document, JSON or YAML, told from
 * a scenario document by its {@code spec_version}), validated before anything is queued by the rules a spec file
 * passes ({@link RunSpecJson#fromTree}: its records and the shared {@code SpecRules}; {@link RunSpec#unrunnable}) and
 * by the service's, the same as a scenario document's: the key by a variable the service may send
 * ({@link KeyAllowList}), no credential header, no password in a URL, the limits of one run ({@link RunLimits}).
 * Every problem is at its JSON pointer. The service writes the run's files under its own outputs folder and records
 * it in its own run history: the spec's {@code outputs.root} and {@code history} are replaced when it runs.
 *
 * @param spec the validated spec
 * @param tree the document as JSON, stored as the run's configuration (it holds no secret)
 */
record SpecDocument(RunSpec spec, ObjectNode tree) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final String FILE_NAME = "spec.json";

    /** The body's tree when it is a run spec (JSON or YAML with {@code spec_version}); null for anything else. */
    static ObjectNode specTree(String contentType, byte[] body) {
        String type = ScenarioDocument.mediaType(contentType);
        boolean yaml = ScenarioDocument.isYaml(contentType);
        if (!yaml && !type.equals("application/json")) return null; // the scenario reader answers 415
        try {
            JsonNode tree = (yaml ? YAML : JSON).readTree(new String(body, StandardCharsets.UTF_8));
            return RunSpecJson.isSpec(tree) ? (ObjectNode) tree : null;
        } catch (JsonProcessingException e) {
            return null; // not a spec: the scenario reader reports the syntax error with its place
        }
    }

    /** The spec in {@code tree}, or {@link ScenarioDocument.Invalid} with every problem at its pointer. */
    static SpecDocument parse(ObjectNode tree, RunService service) {
        List<ScenarioDocument.Problem> problems = serviceRules(tree, service.keys());
        problems.addAll(service.dataDirs().refusals(tree, path -> 0));
        if (!problems.isEmpty()) throw new ScenarioDocument.Invalid(problems, false, "run spec");
        RunSpec spec;
        try {
            spec = RunSpecJson.fromTree(tree, FILE_NAME);
        } catch (RunSpecJson.Invalid e) {
            throw new ScenarioDocument.Invalid(e.errors().stream().map(SpecDocument::problem).toList(), false, "run spec");
        }
        List<ScenarioDocument.Problem> rules = new ArrayList<>(spec.unrunnable().stream().map(SpecDocument::problem).toList());
        rules.addAll(queueRules(spec));
        for (int t = 0; t < spec.targets().size(); t++) {
            String variable = spec.targets().get(t).apiKey().variable();
            String value = variable == null ? null : service.keyEnvironment().get(variable);
            if (variable != null && (value == null || value.isBlank())) {
                rules.add(new ScenarioDocument.Problem("/targets/" + t + "/api_key/variable", 0, "environment variable "
                        + variable + " is not set in the service's environment"));
            }
        }
        rules.addAll(limitRules(spec, service.limits()));
        if (!rules.isEmpty()) throw new ScenarioDocument.Invalid(rules, false, "run spec");
        return new SpecDocument(spec, tree);
    }

    /**
     * What the service does not queue though {@code unibench run FILE} runs it: a shard's spec (its start barrier is
     * its run group's, given by {@code run FILE --run-group G} on each shard's machine). A spec of several targets or
     * workloads is queued: it runs part after part ({@code engine.spec.SpecParts}), each part a run linked to the
     * queued one, every target held to the service's rules above.
     */
    static List<ScenarioDocument.Problem> queueRules(RunSpec spec) {
        List<ScenarioDocument.Problem> out = new ArrayList<>();
        if (!spec.shard().equals(io.unibench.engine.Shard.WHOLE)) {
            out.add(new ScenarioDocument.Problem("/shard", 0, spec.shard() + " is one shard of a run group and is "
                    + "not queued: its start barrier waits for the group's other shards, which this service does not "
                    + "start (it is one client machine running --max-concurrent-runs runs at a time, so a queued shard "
                    + "would hold a slot waiting for shards queued behind it); run each shard on its own machine with "
                    + "`unibench run FILE --run-group G --db URL` (every shard the same G, URL this service's run "
                    + "history), and the merged run group:G is listed here with its Shards tab"));
        }
        return out;
    }

    private static ScenarioDocument.Problem problem(SpecError e) {
        return new ScenarioDocument.Problem(e.path(), 0, e.message());
    }

    /**
     * Checked on the tree before the spec is read, so a refused variable is never looked up and a credential never
     * reaches a record: each target's key variable allowed, no credential header, no user info in its URL.
     */
    private static List<ScenarioDocument.Problem> serviceRules(ObjectNode tree, KeyAllowList keys) {
        List<ScenarioDocument.Problem> out = new ArrayList<>();
        JsonNode targets = tree.path("targets");
        for (int i = 0; i < targets.size(); i++) {
            JsonNode t = targets.get(i);
            String at = "/targets/" + i;
            JsonNode variable = t.path("api_key").path("variable");
            if (variable.isTextual() && !keys.allows(variable.asText())) {
                out.add(new ScenarioDocument.Problem(at + "/api_key/variable", 0, "variable " + variable.asText()
                        + " is not a key this service sends: it sends only " + keys + " (serve --allow-key-env), "
                        + "never its own UNIBENCH_* settings"));
            }
            String url = t.path("url").asText("");
            if (!Secrets.redact(url).equals(url)) {
                out.add(new ScenarioDocument.Problem(at + "/url", 0, "a credential in the URL is refused: the service "
                        + "reads keys from its own environment (api_key.variable), so none travels through a browser"));
            }
            for (Iterator<String> names = t.path("headers").fieldNames(); names.hasNext(); ) {
                String h = names.next();
                if (Secrets.isSecretHeader(h, t.path("headers").path(h).asText(null))) {
                    out.add(new ScenarioDocument.Problem(at + "/headers/" + h.replace("~", "~0").replace("/", "~1"), 0,
                            "header " + h + " looks like a credential and is refused: name the service's environment "
                                    + "variable that holds the key with api_key.variable"));
                }
            }
        }
        return out;
    }

    /** The service's limits of one run, as a scenario document's: requests at once, requests, time held. */
    private static List<ScenarioDocument.Problem> limitRules(RunSpec spec, RunLimits limits) {
        List<ScenarioDocument.Problem> out = new ArrayList<>();
        long requests = 0;
        double seconds = 0;
        for (int i = 0; i < spec.points().size(); i++) {
            LoadPlan plan = spec.points().get(i).plan();
            if (!plan.openLoop() && plan.parallel() > limits.maxConcurrency()) {
                out.add(new ScenarioDocument.Problem("/points/" + i + "/plan/parallel", 0, plan.parallel()
                        + " requests at once is over this service's limit of " + limits.maxConcurrency()
                        + " (serve --max-run-concurrency)"));
            }
            if (plan.number() == Integer.MAX_VALUE) { // held by time
                seconds += plan.duration() == null ? Double.POSITIVE_INFINITY : plan.duration().toNanos() / 1e9;
            } else {
                requests += (long) plan.number() + plan.warmup();
            }
        }
        for (int i = 0; i < spec.sla().size(); i++) {
            Sla sla = spec.sla().get(i);
            String at = "/sla/" + i + "/";
            if (sla.peakConcurrency() > limits.maxConcurrency()) {
                out.add(new ScenarioDocument.Problem(at + (sla.variable() == Sla.Variable.parallel ? "upper"
                        : "fixed_parallel"), 0, sla.peakConcurrency() + " requests at once is over this service's "
                        + "limit of " + limits.maxConcurrency() + " (serve --max-run-concurrency)"));
            }
            long probe = (long) sla.number(sla.upper()) * sla.runs();
            if (probe > limits.maxRequests()) {
                out.add(new ScenarioDocument.Problem(at + "upper", 0, "a probe at the upper bound sends " + probe
                        + " requests, over this service's limit of " + limits.maxRequests()
                        + " per run (serve --max-run-requests)"));
            }
        }
        if (requests > limits.maxRequests()) {
            out.add(new ScenarioDocument.Problem("/points", 0, "the run sends " + requests + " requests (every point's "
                    + "number and warm-up), over this service's limit of " + limits.maxRequests()
                    + " per run (serve --max-run-requests)"));
        }
        if (seconds > limits.maxDurationSec()) {
            out.add(new ScenarioDocument.Problem("/points", 0, String.format(Locale.ROOT, "the run holds its points "
                    + "for %.0f s, over this service's limit of %d s per run (serve --max-run-duration)", seconds,
                    limits.maxDurationSec())));
        }
        return out;
    }
}
