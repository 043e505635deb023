package io.unibench.engine.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.TlsOptions;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import io.unibench.engine.sla.SlaParams;
import io.unibench.metrics.GoodputSlo;
import io.unibench.net.ServerCertificate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link RunSpec} survives JSON and YAML unchanged, for specs drawn at random (a seeded generator, so a failure
 * names its seed and reproduces), every one of which the published schema accepts.
 */
class RunSpecJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SPECS = 300;
    private static List<java.security.cert.X509Certificate> cas;

    @BeforeAll
    static void certificate() {
        cas = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES).chain();
    }

    @Test
    void randomSpecsRoundTripThroughJsonAndYaml() {
        for (int seed = 0; seed < SPECS; seed++) {
            RunSpec spec = new Gen(new SplittableRandom(seed)).spec();
            String json = RunSpecJson.toJson(spec);
            assertThat(RunSpecJson.read(json, "spec.json")).as("seed %d: JSON\n%s", seed, json).isEqualTo(spec);
            String yaml = RunSpecJson.toYaml(spec);
            assertThat(RunSpecJson.read(yaml, "spec.yaml")).as("seed %d: YAML\n%s", seed, yaml).isEqualTo(spec);
            assertThat(json).startsWith("{\n  \"spec_version\" : 1,");
            if (spec.sla().size() == 1) { // one search as an object: the form before sla was a list
                ObjectNode old = RunSpecJson.toTree(spec);
                old.set("sla", old.get("sla").get(0));
                assertThat(RunSpecJson.fromTree(old, "old.json")).as("seed %d: one search", seed).isEqualTo(spec);
            }
        }
    }

    @Test
    void thePublishedSchemaIsTheOneTheRecordsMake() throws Exception {
        if (Boolean.getBoolean("unibench.writeSchema")) { // regenerate the published copy
            Path f = Path.of("src/main/resources" + RunSpecSchema.RESOURCE);
            java.nio.file.Files.writeString(f, JSON.writerWithDefaultPrettyPrinter()
                    .writeValueAsString(RunSpecSchema.generate()) + "\n");
        }
        try (InputStream in = RunSpecSchema.class.getResourceAsStream(RunSpecSchema.RESOURCE)) {
            assertThat(in).as("published " + RunSpecSchema.RESOURCE).isNotNull();
            assertThat(JSON.readTree(in)).isEqualTo(RunSpecSchema.generate());
        }
    }

    @Test
    void everySerialisedSpecMatchesTheSchema() {
        ObjectNode schema = RunSpecSchema.generate();
        for (int seed = 0; seed < SPECS; seed++) {
            JsonNode doc = RunSpecJson.toTree(new Gen(new SplittableRandom(seed)).spec());
            List<String> problems = new ArrayList<>();
            validate(schema, schema, doc, "", problems);
            assertThat(problems).as("seed %d", seed).isEmpty();
        }
        // and the schema is strict: an unknown key, a missing one and a wrong type are each a problem
        ObjectNode doc = RunSpecJson.toTree(new Gen(new SplittableRandom(1)).spec());
        doc.put("extra", 1);
        ((ObjectNode) doc.get("history")).remove("tags");
        doc.put("seed", "seven");
        List<String> problems = new ArrayList<>();
        validate(schema, schema, doc, "", problems);
        assertThat(problems).anyMatch(p -> p.startsWith("/extra"))
                .anyMatch(p -> p.startsWith("/history: missing tags")).anyMatch(p -> p.startsWith("/seed"));
    }

    @Test
    void theKeyIsHeldByReferenceNeverInClear() {
        RunSpec spec = new Gen(new SplittableRandom(5)).spec();
        RunSpec.Target t = spec.targets().getFirst();
        RunSpec withValue = new RunSpec(spec.name(), List.of(new RunSpec.Target(t.name(), t.url(), t.embeddedSimulator(),
                t.model(), t.api(), t.headers(), RunSpec.ApiKey.of("sk-abcdefghijklmnop1234"), t.timeouts(),
                t.connections(), t.tls(), t.testConnection())), spec.workloads(), List.of(), spec.outputs(),
                spec.history(), spec.seed());
        String json = RunSpecJson.toJson(withValue);
        assertThat(json).doesNotContain("sk-abcdefghijklmnop1234").contains("\"value\" : \"sk-***");
        assertThatThrownBy(() -> RunSpecJson.read(json, "spec.json")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("spec.json: /targets/0/api_key").hasMessageContaining("never the key itself");
    }

    @Test
    void badDocumentsAreOneLineNamingWhere() {
        assertThatThrownBy(() -> RunSpecJson.read("{\"spec_version\": 2}", "s.json"))
                .isInstanceOf(BadInputException.class).hasMessage("s.json: /spec_version: 2 is not a version this "
                        + "unibench reads (1)");
        assertThatThrownBy(() -> RunSpecJson.read("{\"name\": \"x\"}", "s.json"))
                .isInstanceOf(BadInputException.class).hasMessageContaining("not a run spec");
        String json = RunSpecJson.toJson(new Gen(new SplittableRandom(2)).spec()).replace("\"seed\" : ", "\"sead\" : ");
        assertThatThrownBy(() -> RunSpecJson.read(json, "s.json")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("s.json: ").hasMessageContaining("sead").satisfies(e ->
                        assertThat(e.getMessage()).doesNotContain("\n"));
        String layout = RunSpecJson.toJson(new Gen(new SplittableRandom(2)).spec())
                .replaceFirst("\"layout\" : \"[a-z]+\"", "\"layout\" : \"bogus\"");
        assertThat(layout).contains("\"bogus\"");
        assertThatThrownBy(() -> RunSpecJson.read(layout, "s.json")).isInstanceOf(BadInputException.class)
                .hasMessage("s.json: /outputs/layout: \"bogus\" is not one of: points, series");
    }

    @Test
    void aSpecBreakingTheSharedRulesIsRefusedWithEveryProblemAtItsPointer() throws Exception {
        RunSpec spec = new Gen(new SplittableRandom(3)).spec();
        for (int seed = 4; spec.points().isEmpty(); seed++) spec = new Gen(new SplittableRandom(seed)).spec();
        ObjectNode doc = RunSpecJson.toTree(spec);
        ObjectNode point = (ObjectNode) doc.get("points").get(0);
        ((ObjectNode) point.get("plan")).put("number", 0);
        ((ObjectNode) doc.get("workloads").get(0).get("generation")).put("temperature", -1.0);
        assertThatThrownBy(() -> RunSpecJson.fromTree(doc, "s.json")).isInstanceOf(RunSpecJson.Invalid.class)
                .hasMessage("s.json: /points/0/plan/number: 0: must be ≥ 1")
                .satisfies(e -> assertThat(((RunSpecJson.Invalid) e).errors()).extracting(SpecError::path)
                        .contains("/points/0/plan/number", "/workloads/0/generation/temperature"));
        // a document the records refuse is located too
        ((ObjectNode) point.get("plan")).put("number", 1).put("parallel", "many");
        assertThatThrownBy(() -> RunSpecJson.fromTree(doc, "s.json")).isInstanceOf(RunSpecJson.Invalid.class)
                .satisfies(e -> assertThat(((RunSpecJson.Invalid) e).errors().getFirst().path())
                        .isEqualTo("/points/0/plan/parallel"));
    }

    /** A JSON Schema check of what {@link RunSpecSchema} uses: type, properties, required, enum, items, anyOf/oneOf, $ref. */
    @Test
    void aPointRevisitingItsSeriesOrItsLabelIsRefusedAtItsPointer() {
        RunSpec base = new Gen(new SplittableRandom(1)).spec();
        RunSpec.Target t = base.targets().getFirst();
        LoadPlan plan = new LoadPlan(2, 10, 0, null, 0);
        List<RunSpec.Point> revisit = List.of(new RunSpec.Point("a/w/parallel_2", 0, 0, plan, Duration.ZERO),
                new RunSpec.Point("b/w/parallel_2", 1, 0, plan, Duration.ZERO),
                new RunSpec.Point("a/w/parallel_4", 0, 0, plan, Duration.ZERO));
        RunSpec spec = new RunSpec("r", List.of(t, t), List.of(base.workloads().getFirst()), revisit, null,
                io.unibench.engine.Shard.WHOLE, null, null, base.outputs(), base.history(), 1);
        assertThatThrownBy(() -> RunSpecJson.read(RunSpecJson.toJson(spec), "s.json"))
                .isInstanceOf(RunSpecJson.Invalid.class).hasMessageStartingWith("s.json: /points/2: target 0 × workload 0 "
                        + "again after other points (its series ended at /points/0)");
        List<RunSpec.Point> twice = List.of(revisit.get(0), new RunSpec.Point("a/w/parallel_2", 0, 0,
                new LoadPlan(4, 10, 0, null, 0), Duration.ZERO));
        RunSpec same = new RunSpec("r", List.of(t), List.of(base.workloads().getFirst()), twice, null,
                io.unibench.engine.Shard.WHOLE, null, null, base.outputs(), base.history(), 1);
        assertThatThrownBy(() -> RunSpecJson.read(RunSpecJson.toJson(same), "s.json"))
                .isInstanceOf(RunSpecJson.Invalid.class).hasMessage("s.json: /points/1/label: a/w/parallel_2: the "
                        + "label of /points/0 (the same target × workload): its files would be written over; give each "
                        + "point its own");
    }

    private static void validate(ObjectNode root, JsonNode schema, JsonNode node, String path, List<String> out) {
        if (schema.has("$ref")) {
            String name = schema.get("$ref").asText().substring("#/$defs/".length());
            validate(root, root.get("$defs").get(name), node, path, out);
            return;
        }
        for (String any : List.of("anyOf", "oneOf")) {
            if (!schema.has(any)) continue;
            int matched = 0;
            List<String> closest = null; // the problems of the branch that came nearest, when none matched
            for (JsonNode branch : schema.get(any)) {
                List<String> inner = new ArrayList<>();
                validate(root, branch, node, path, inner);
                if (inner.isEmpty()) matched++;
                else if (closest == null || inner.size() < closest.size()
                        || closest.stream().anyMatch(p -> p.contains(" is not ["))) closest = inner;
            }
            if (matched == 0) out.addAll(closest);
            if (any.equals("oneOf") && matched > 1) out.add(path + ": " + matched + " branches of oneOf");
            return;
        }
        if (schema.has("type")) {
            List<String> types = new ArrayList<>();
            if (schema.get("type").isArray()) schema.get("type").forEach(t -> types.add(t.asText()));
            else types.add(schema.get("type").asText());
            if (types.stream().noneMatch(t -> matches(t, node))) {
                out.add(path + ": " + node.getNodeType() + " is not " + types);
                return;
            }
        }
        if (schema.has("enum")) {
            boolean in = false;
            for (JsonNode v : schema.get("enum")) in |= v.equals(node);
            if (!in) out.add(path + ": " + node + " not in " + schema.get("enum"));
        }
        if (node.isObject()) {
            JsonNode props = schema.get("properties");
            if (schema.has("required")) {
                for (JsonNode r : schema.get("required")) {
                    if (!node.has(r.asText())) out.add(path + ": missing " + r.asText());
                }
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode sub = props != null ? props.get(e.getKey()) : null;
                JsonNode extra = schema.get("additionalProperties");
                if (sub == null && extra != null && extra.isBoolean() && !extra.asBoolean()) {
                    out.add(path + "/" + e.getKey() + ": not allowed");
                } else if (sub == null && extra != null && extra.isObject()) {
                    validate(root, extra, e.getValue(), path + "/" + e.getKey(), out);
                } else if (sub != null) {
                    validate(root, sub, e.getValue(), path + "/" + e.getKey(), out);
                }
            }
        }
        if (node.isArray() && schema.has("items")) {
            for (int i = 0; i < node.size(); i++) validate(root, schema.get("items"), node.get(i), path + "/" + i, out);
        }
    }

    private static boolean matches(String type, JsonNode n) {
        return switch (type) {
            case "object" -> n.isObject();
            case "array" -> n.isArray();
            case "string" -> n.isTextual();
            case "integer" -> n.isIntegralNumber();
            case "number" -> n.isNumber();
            case "boolean" -> n.isBoolean();
            case "null" -> n.isNull();
            default -> throw new IllegalStateException(type);
        };
    }

    /** Varied, valid specs: every optional part present or absent, every arrival shape, odd values. */
    private static final class Gen {
        private final SplittableRandom r;

        Gen(SplittableRandom r) {
            this.r = r;
        }

        RunSpec spec() {
            List<RunSpec.Target> targets = new ArrayList<>();
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) targets.add(target(i));
            List<RunSpec.Workload> workloads = new ArrayList<>();
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) workloads.add(workload(i));
            List<RunSpec.Point> points = new ArrayList<>();
            for (int i = 0, n = r.nextInt(5); i < n; i++) {
                LoadPlan plan = plan();
                points.add(new RunSpec.Point(plan.label() + "_" + i, r.nextInt(targets.size()), r.nextInt(workloads.size()), plan,
                        r.nextBoolean() ? Duration.ZERO : Duration.ofMillis(r.nextInt(10_000)),
                        r.nextBoolean() ? null : new RunSpec.Slice(r.nextInt(50), 1 + r.nextInt(3),
                                (long) plan.number() + r.nextInt(50)))); // a shard's slice, or none
            }
            // a target × workload's points in a row (SpecRules refuses a series revisited)
            points.sort(java.util.Comparator.comparingInt(RunSpec.Point::target).thenComparingInt(RunSpec.Point::workload));
            List<Sla> sla = new ArrayList<>(); // a third of the specs search, some of them twice
            for (int i = 0, n = r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0; i < n; i++) sla.add(sla(targets.size(), workloads.size()));
            int shards = 1 + r.nextInt(4);
            GoodputSlo goodput = r.nextBoolean() ? null : new GoodputSlo(r.nextBoolean() ? 500.0 : null,
                    r.nextBoolean() ? 20.5 : null, 9000.0);
            RunSpec.Cancels cancels = r.nextBoolean() ? null
                    : new RunSpec.Cancels(r.nextDouble(), r.nextBoolean() ? null : Duration.ofMillis(r.nextInt(5000)));
            ObjectNode args = r.nextBoolean() ? null : JSON.createObjectNode().put("model", "m").put("rate", 2.5)
                    .put("number", 10).putNull("url").put("logprobs", true);
            RunSpec.Outputs outputs = new RunSpec.Outputs(Path.of("out", "run " + r.nextInt(100)), r.nextBoolean(),
                    1 + r.nextInt(1000), args, RunSpec.Layout.values()[r.nextInt(RunSpec.Layout.values().length)]);
            RunSpec.History history = new RunSpec.History(r.nextBoolean(), r.nextBoolean() ? null : "postgresql://db/x",
                    r.nextBoolean() ? List.of() : List.of("nightly", "a b", "é"));
            return new RunSpec("run-" + r.nextInt(), targets, workloads, points, sla,
                    new Shard(r.nextInt(shards), shards), goodput, cancels, outputs, history, r.nextLong(),
                    r.nextBoolean() ? RunSpec.Limits.NONE : RunSpec.Limits.NONE.withStarts(
                            new RunSpec.Starts(0.5 + r.nextInt(100), 1 + r.nextInt(8), r.nextBoolean())));
        }

        RunSpec.Target target(int i) {
            Map<String, String> headers = new LinkedHashMap<>();
            if (r.nextBoolean()) headers.put("X-Team", "bench");
            if (r.nextBoolean()) headers.put("Authorization", "Basic dTpw");
            RunSpec.ApiKey key = switch (r.nextInt(3)) {
                case 0 -> RunSpec.ApiKey.NONE;
                case 1 -> RunSpec.ApiKey.fromEnv("OPENAI_API_KEY");
                default -> RunSpec.ApiKey.fromEnv("KEY_" + i);
            };
            TlsOptions tls = switch (r.nextInt(3)) {
                case 0 -> TlsOptions.DEFAULT;
                case 1 -> new TlsOptions(List.of(), true);
                default -> new TlsOptions(cas, false);
            };
            boolean sim = r.nextInt(4) == 0;
            return new RunSpec.Target("p" + i, sim && r.nextBoolean() ? null : "http://127.0.0.1:" + (1000 + i)
                    + "/v1/chat/completions", sim, "model/" + i, pick(ApiFormat.values()), headers, key,
                    new RunSpec.Timeouts(r.nextBoolean() ? null : Duration.ofSeconds(10),
                            r.nextBoolean() ? null : Duration.ofMillis(1500), null), 1 + r.nextInt(600), tls,
                    r.nextBoolean(), sim && r.nextBoolean());
        }

        RunSpec.Workload workload(int i) {
            ApiFormat format = pick(new ApiFormat[] {ApiFormat.CHAT, ApiFormat.COMPLETIONS, ApiFormat.ANTHROPIC});
            int min = 1 + r.nextInt(100);
            GenerationParams g = new GenerationParams("m", format, min, min + r.nextInt(3), r.nextBoolean() ? null : 1,
                    r.nextDouble(), r.nextBoolean() ? null : 0.9, r.nextBoolean() ? null : 40,
                    r.nextBoolean() ? null : r.nextLong(), r.nextBoolean() ? null : List.of("</s>", "\n"), r.nextBoolean(),
                    r.nextBoolean() ? null : JSON.createObjectNode().put("ignore_eos", true),
                    r.nextBoolean() ? null : JSON.createObjectNode().put("n", 2),
                    r.nextBoolean() ? null : (ObjectNode) JSON.createObjectNode().set("messages", JSON.createArrayNode()));
            RunSpec.Conversations conv = r.nextBoolean() ? null : new RunSpec.Conversations(r.nextBoolean() ? null : 2,
                    r.nextBoolean() ? null : 8, r.nextBoolean() ? null : "think", null, r.nextBoolean() ? null : 0.5,
                    null, null, r.nextBoolean() ? null : 4);
            String tokenizer = r.nextBoolean() ? null : "tok/tokenizer.json";
            RunSpec.DatasetOptions options = r.nextBoolean() ? RunSpec.DatasetOptions.NONE
                    : new RunSpec.DatasetOptions(r.nextInt(1000), r.nextInt(64), r.nextBoolean() ? null : "{\"k\": 1}",
                    tokenizer, tokenizer != null && r.nextBoolean(), r.nextBoolean() ? null : 3.6, // token ids need it
                    r.nextInt(3), conv);
            boolean prompt = r.nextInt(4) == 0;
            return new RunSpec.Workload("w" + i, conv != null, prompt ? "prompt" : "random", r.nextBoolean() ? null
                    : "data/" + i + ".jsonl", prompt ? "Hello, \"world\" ünïcode" : null, r.nextInt(100),
                    100 + r.nextInt(1000), g, options, composition(), r.nextBoolean() ? null
                    : new RunSpec.Validate(r.nextBoolean(), r.nextBoolean() ? null : "^\\{.*\"ok\"", r.nextBoolean(),
                    r.nextBoolean() ? null : 1 + r.nextInt(64)));
        }

        /** A scenario's composition of prompts, or none. */
        RunSpec.Composition composition() {
            if (r.nextBoolean()) return null;
            List<RunSpec.PromptClass> classes = new ArrayList<>();
            for (int c = 0, n = r.nextInt(3); c < n; c++) {
                classes.add(new RunSpec.PromptClass("c" + c, 0.5 + r.nextInt(5), r.nextBoolean() ? "Q " + c : null,
                        r.nextBoolean() ? null : 16 + r.nextInt(512), r.nextBoolean() ? null : 1 + r.nextInt(64)));
            }
            return new RunSpec.Composition(r.nextBoolean() ? null : "You are terse.", classes, r.nextBoolean(),
                    r.nextBoolean() ? null : r.nextInt(6), 1 + r.nextInt(200));
        }

        LoadPlan plan() {
            int n = 1 + r.nextInt(500); // a point sends at least one request (SpecRules)
            Duration duration = r.nextBoolean() ? null : Duration.ofMillis(1 + r.nextInt(100_000));
            int warmup = r.nextInt(3);
            LoadPlan plan = switch (r.nextInt(3)) {
                case 0 -> new LoadPlan(1 + r.nextInt(256), n, -1, duration, warmup);
                case 1 -> LoadPlan.openLoop(n, 0.5 + r.nextInt(100), duration, warmup);
                default -> new LoadPlan(1 + r.nextInt(256), n, 0.25 + r.nextInt(100), duration, warmup);
            };
            return plan.paced() ? plan.withArrivals(shape()) : plan;
        }

        ArrivalShape shape() {
            return switch (r.nextInt(6)) {
                case 0 -> ArrivalShape.POISSON;
                case 1 -> ArrivalShape.gamma(r.nextBoolean() ? 0.25 + r.nextDouble() : Double.POSITIVE_INFINITY);
                case 2 -> ArrivalShape.ramp(new ArrivalShape.Ramp(pick(ArrivalShape.Ramp.Strategy.values()),
                        1 + r.nextInt(10), 10 + r.nextInt(100)), 1);
                case 3 -> ArrivalShape.recorded(times(), 2);
                case 4 -> ArrivalShape.recordedFromStart(times());
                default -> ArrivalShape.recorded(times());
            };
        }

        long[] times() {
            long[] t = new long[r.nextInt(20)];
            for (int i = 1; i < t.length; i++) t[i] = t[i - 1] + r.nextInt(1_000_000_000);
            return t;
        }

        Sla sla(int targets, int workloads) {
            SlaParams params = SlaParams.parse(r.nextBoolean() ? "{\"p99_latency\": \"<=2\", \"avg_ttft\": \"<=500ms\"}"
                    : "[{\"rps\": \"max\"}]");
            Sla.Variable v = pick(Sla.Variable.values());
            return new Sla(v, params, 1 + r.nextInt(8), 1, 64 + r.nextInt(100), 1 + r.nextInt(3), 1 + r.nextInt(64),
                    0.5 + r.nextInt(4), r.nextBoolean() ? 0 : 0.1, r.nextBoolean() ? null : Duration.ofSeconds(30),
                    r.nextBoolean(), r.nextBoolean() ? ArrivalShape.POISSON : ArrivalShape.gamma(0.5),
                    Duration.ofSeconds(r.nextInt(5)), r.nextInt(targets), r.nextInt(workloads));
        }

        private <T> T pick(T[] values) {
            return values[r.nextInt(values.length)];
        }
    }
}
