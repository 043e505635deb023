package io.unibench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.sla.SlaMetric;
import io.unibench.engine.sla.SlaParams;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;
import io.unibench.scenario.BenchConfig.Loads;
import io.unibench.scenario.BenchConfig.RequestRate;
import io.unibench.scenario.BenchConfig.SlaTune;
import io.unibench.scenario.BenchConfig.TraceReplay;
import io.unibench.workload.MooncakeTrace;
import io.unibench.workload.MooncakeTraceDataset;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The parts of a scenario file that load the target other than by concurrency, read after the schema has passed (so
 * types and ranges are right): {@code request_rate} (open-loop levels, vLLM's {@code --request-rate},
 * {@code --burstiness}, {@code --max-concurrency}, {@code --ramp-up-*}), {@code sla_auto_tune} (evalscope's
 * {@code --sla-*}) and a {@code mooncake_trace} scenario's replay ({@code trace_speedup}). The cross-field rules are
 * {@code perf}'s for the same flags; each problem names the key it is about.
 */
final class LoadsSection {
    private final JsonNode root;
    private final BiConsumer<String, String> problem;

    /** @param problem (key path, message) of each problem found */
    LoadsSection(JsonNode root, BiConsumer<String, String> problem) {
        this.root = root;
        this.problem = problem;
    }

    Loads read(List<BenchConfig.Scenario> scenarios) {
        RequestRate rate = requestRate(root.get("request_rate"));
        SlaTune sla = sla(root.get("sla_auto_tune"));
        if (rate != null && root.has("concurrency")) {
            problem.accept("request_rate", "give concurrency (closed-loop levels) or request_rate (open-loop levels), "
                    + "not both; request_rate.max_concurrency bounds the requests in flight");
        }
        if (sla != null) {
            for (String other : List.of("concurrency", "request_rate")) {
                if (root.has(other)) {
                    problem.accept("sla_auto_tune", "the search sets every level's load: drop " + other
                            + " (sla_auto_tune.variable parallel|rate is what is tuned)");
                }
            }
        }
        Map<String, TraceReplay> traces = new LinkedHashMap<>();
        JsonNode list = root.get("scenarios");
        for (int i = 0; i < scenarios.size(); i++) {
            BenchConfig.Scenario s = scenarios.get(i);
            String path = "scenarios[" + i + "]";
            JsonNode n = list.get(i);
            boolean trace = MooncakeTraceDataset.NAME.equals(s.dataset());
            if (s.type() == BenchConfig.Type.MULTI_TURN && (rate != null || sla != null)) {
                problem.accept(path + ".type", "multi_turn runs closed-loop conversations: "
                        + (rate != null ? "request_rate" : "sla_auto_tune") + " applies to chat and mixed scenarios");
            }
            if (trace) {
                if (sla != null) {
                    problem.accept(path + ".dataset", "mooncake_trace is sent at its recorded times: sla_auto_tune does "
                            + "not apply to it");
                }
                TraceReplay replay = trace(n, path, s);
                if (replay != null) traces.put(s.name(), replay);
            } else if (n.has("trace_speedup")) {
                problem.accept(path + ".trace_speedup", "applies to dataset: mooncake_trace only");
            }
        }
        return new Loads(rate, sla, traces);
    }

    /** {@code request_rate}: a rate, a list of rates, or the block (the schema has checked the shapes). */
    private RequestRate requestRate(JsonNode r) {
        if (r == null) return null;
        if (r.isNumber()) return new RequestRate(List.of(r.asDouble()), null, null, null, null);
        if (r.isArray()) return new RequestRate(doubles(r), null, null, null, null);
        ArrivalShape.Ramp ramp = null;
        JsonNode up = r.get("ramp_up");
        if (up != null) {
            double start = up.get("start_rps").asDouble(), end = up.get("end_rps").asDouble();
            // the shared rule (finite rates > 0: the schema lets .inf through) before the ramp can be made
            SpecRules rules = new SpecRules((field, i) -> "request_rate.ramp_up."
                    + (field == SpecPaths.Field.RAMP_START ? "start_rps" : "end_rps"));
            rules.arrivals(0, null, start, end, null).errors().forEach(e -> problem.accept(e.path(), e.message()));
            if (rules.errors().isEmpty()) {
                ramp = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.valueOf(up.get("strategy").asText()), start, end);
            }
        }
        List<Double> levels = r.has("levels") ? doubles(r.get("levels")) : List.of();
        if (up != null && r.has("levels")) {
            problem.accept("request_rate.ramp_up", "give levels or ramp_up, not both (the ramp sets the rate, as vLLM)");
        } else if (up == null && !r.has("levels")) {
            problem.accept("request_rate", "needs levels (requests/s of each level) or ramp_up");
        }
        if (ramp != null) levels = List.of(ramp.endRps());
        return new RequestRate(levels, r.has("burstiness") ? r.get("burstiness").asDouble() : null,
                r.has("max_concurrency") ? r.get("max_concurrency").asInt() : null,
                r.has("requests_per_level") ? r.get("requests_per_level").asInt() : null, ramp);
    }

    /** {@code sla_auto_tune}: {@code perf}'s defaults and rules; the criteria in {@code --sla-params}' grammar. */
    private SlaTune sla(JsonNode n) {
        if (n == null) return null;
        String variable = n.path("variable").asText("parallel");
        int lower = n.path("lower_bound").asInt(1);
        int upper = n.path("upper_bound").asInt(65536);
        if (n.has("fixed_parallel") && !variable.equals("rate")) {
            problem.accept("sla_auto_tune.fixed_parallel", "applies to variable: rate (the concurrency bound of its probes)");
        }
        SlaParams params = params(n.get("params"));
        if (params != null && root.path("goodput").isEmpty() && params.groups().stream().flatMap(List::stream)
                .anyMatch(c -> c.metric() == SlaMetric.GOODPUT)) {
            problem.accept("sla_auto_tune.params", "goodput: needs the goodput block (the objectives it counts)");
        }
        return new SlaTune(variable, params, n.path("num_runs").asInt(3), lower, upper,
                n.path("fixed_parallel").asInt(upper), n.path("number_multiplier").asDouble(2));
    }

    /** The criteria through {@code --sla-params}' own parser; its message located at the group and metric. */
    private SlaParams params(JsonNode p) {
        try {
            return SlaParams.parse(p.toString());
        } catch (BadInputException e) {
            String message = e.getMessage().replaceFirst("^--sla-params:? ?", "");
            String path = "sla_auto_tune.params";
            List<JsonNode> groups = new ArrayList<>();
            if (p.isArray()) p.forEach(groups::add);
            else groups.add(p);
            for (int g = 0; g < groups.size(); g++) {
                for (String key : (Iterable<String>) groups.get(g)::fieldNames) {
                    if (message.startsWith(key + " ") || message.startsWith(key + ":")) {
                        path += (p.isArray() ? "[" + g + "]" : "") + "." + key;
                        message = message.substring(key.length()).replaceFirst("^:? ", "");
                        break;
                    }
                }
            }
            problem.accept(path, message);
            return null;
        }
    }

    /** A trace scenario: the file read now (a bad line is the one problem), its times after the speed-up. */
    private TraceReplay trace(JsonNode n, String path, BenchConfig.Scenario s) {
        if (s.type() != BenchConfig.Type.CHAT || s.datasetPath() == null) {
            problem.accept(path + ".dataset", "mooncake_trace needs type: chat and dataset_path (a Mooncake JSONL trace)");
            return null;
        }
        double speedup = n.path("trace_speedup").asDouble(1);
        MooncakeTrace trace;
        try {
            trace = MooncakeTrace.read(s.datasetPath());
        } catch (BadInputException e) {
            problem.accept(path + ".dataset_path", e.getMessage());
            return null;
        }
        int size = trace.requests().size();
        if (size == 0) {
            problem.accept(path + ".dataset_path", s.datasetPath() + " has no requests");
            return null;
        }
        int count = n.has("rounds") ? n.get("rounds").asInt() : size;
        if (count > size) {
            problem.accept(path + ".rounds", count + ": " + s.datasetPath() + " has " + size + " requests");
            return null;
        }
        return new TraceReplay(speedup, trace.offsetsNanos(0, speedup), count);
    }

    private static List<Double> doubles(JsonNode list) {
        List<Double> out = new ArrayList<>();
        list.forEach(x -> out.add(x.asDouble()));
        return out;
    }

    /** A rate as level names show it: 4 → "4", 2.5 → "2.5". */
    static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v).toLowerCase(Locale.ROOT);
    }
}
