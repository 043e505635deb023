package io.unibench.scenario;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.Sla;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A scenario file as a {@link RunSpec}: each provider a target (run one after another), each scenario a workload,
 * and for every provider × scenario × level one point, labelled {@code provider/scenario/LEVEL}: {@code parallel_C}
 * (closed loop), {@code rate_R} or {@code ramp_STRATEGY_R0_R1} ({@code request_rate}: open loop) or {@code trace} (a
 * {@code mooncake_trace} scenario, at its recorded times). A level runs {@code rounds} (or {@code requests_per_level})
 * requests, or back-to-back requests for {@code ramp_interval_sec}; {@code sleep_between_levels_sec} pauses between
 * the levels of one series. With {@code sla_auto_tune} there are no fixed points: the spec's search per provider ×
 * scenario chooses each probe.
 */
public final class ScenarioSpec {
    /** Why a file with sla_auto_tune runs in one process: the engine's reason, the same for every front end. */
    public static final String SLA_UNSHARDED = RunSpec.SLA_UNSHARDED;

    private ScenarioSpec() {}

    /** The shared rules of every front end, located by the file's key paths ({@code FILE:LINE:} added by the file). */
    static List<io.unibench.engine.spec.SpecError> check(BenchConfig.Concurrency c, BenchConfig.Loads loads,
                                                         BenchConfig.Generation g, BenchConfig.Timeouts t,
                                                         List<BenchConfig.Scenario> scenarios, double sleepSeconds) {
        BenchConfig.RequestRate rr = loads.requestRate();
        SpecPaths paths = (field, i) -> switch (field) {
            case PARALLEL -> rr != null ? "request_rate.max_concurrency" : "concurrency";
            case RATE -> rr != null && rr.ramp() != null ? "request_rate.ramp_up" : "request_rate";
            case WARMUP -> "concurrency";
            case NUMBER -> rr != null && rr.requestsPerLevel() != null ? "request_rate.requests_per_level"
                    : rr == null && c.requestsPerLevel() != null ? "concurrency.requests_per_level"
                    : "scenarios[" + i + "].rounds";
            case DURATION -> "concurrency.ramp_interval_sec";
            case PAUSE -> "sleep_between_levels_sec";
            case MAX_TOKENS -> "generation.max_tokens";
            case MIN_TOKENS -> "generation.min_tokens";
            case TEMPERATURE -> "generation.temperature";
            case TOP_P -> "generation.top_p";
            case TOP_K -> "generation.top_k";
            case CONNECT_TIMEOUT -> "timeouts.connect_sec";
            case READ_TIMEOUT -> "timeouts.read_sec";
            case TOTAL_TIMEOUT -> "timeouts.total_sec";
            case BURSTINESS -> "request_rate.burstiness";
            case RAMP_START -> "request_rate.ramp_up.start_rps";
            case RAMP_END -> "request_rate.ramp_up.end_rps";
            case TRACE_SPEEDUP -> "scenarios[" + i + "].trace_speedup";
            case SLA_RUNS -> "sla_auto_tune.num_runs";
            case SLA_LOWER -> "sla_auto_tune.lower_bound";
            case SLA_UPPER -> "sla_auto_tune.upper_bound";
            case SLA_FIXED_PARALLEL -> "sla_auto_tune.fixed_parallel";
            case SLA_MULTIPLIER -> "sla_auto_tune.number_multiplier";
            case RETRY_ON -> "retry.on";
            case MAX_RETRIES -> "retry.max_retries";
            case MAX_TOTAL_TOKENS -> "budget.max_total_tokens";
            case MAX_COST -> "budget.max_cost";
            case TARGET_PRECISION -> "target_precision";
            case TOKENIZE_PROMPT, TOKENIZER_PATH -> "scenarios[" + i + "]"; // a scenario file sends text prompts
        };
        SpecRules rules = new SpecRules(paths);
        for (int i = 0; i < scenarios.size(); i++) {
            BenchConfig.Scenario s = scenarios.get(i);
            BenchConfig.TraceReplay trace = loads.traces().get(s.name());
            if (trace != null) rules.arrivals(i, null, null, null, trace.speedup());
            if (loads.sla() != null || trace != null) continue; // their load is not the file's levels
            if (rr != null) {
                int bound = rr.maxConcurrency() != null ? rr.maxConcurrency() : 1;
                for (double rate : rr.levels()) rules.point(i, bound, perLevel(c, loads, s), rate, null, 0);
            } else {
                for (int level : c.levels()) rules.point(i, level, perLevel(c, loads, s), -1, c.holdSeconds(), 0);
            }
        }
        if (rr != null) {
            rules.arrivals(0, rr.burstiness(), null, null, null); // a ramp's rates: checked before it was made
        }
        BenchConfig.SlaTune sla = loads.sla();
        if (sla != null) {
            rules.sla(sla.numRuns(), sla.lowerBound(), sla.upperBound(), sla.fixedParallel(), sla.numberMultiplier());
        }
        rules.pause(0, sleepSeconds)
                .generation(List.of(g.maxTokens()), g.minTokens(), g.temperature(), g.topP(), g.topK())
                // total_sec 0 means none in a scenario file
                .timeouts(0, t.connectSec(), t.readSec(), t.totalSec() == null || t.totalSec() == 0 ? null : t.totalSec());
        return rules.errors();
    }

    /** The most requests the file's levels may have in flight at once (the connection pool's default is twice it). */
    static int peakInFlight(BenchConfig.Concurrency c, BenchConfig.Loads loads, List<BenchConfig.Scenario> scenarios) {
        int peak = loads.sla() != null ? loads.sla().peakConcurrency() : 1;
        for (BenchConfig.Scenario s : scenarios) {
            BenchConfig.TraceReplay trace = loads.traces().get(s.name());
            if (trace != null) peak = Math.max(peak, trace.count()); // unbounded: connections open as needed
            else if (loads.requestRate() != null) peak = Math.max(peak, boundOr(loads, perLevel(c, loads, s)));
        }
        return peak;
    }

    /** The bound the connection pool must not be below: the closed loop's peak or request_rate.max_concurrency. */
    static int boundInFlight(BenchConfig.Concurrency c, BenchConfig.Loads loads) {
        if (loads.sla() != null) return 1;
        return loads.requestRate() != null ? boundOr(loads, 1) : c.peak();
    }

    private static int boundOr(BenchConfig.Loads loads, int unbounded) {
        Integer max = loads.requestRate().maxConcurrency();
        return max != null ? max : unbounded;
    }

    /**
     * @param endpoints provider name → full chat-completions URL (embedded simulators already started)
     * @param history   the run history's settings ({@code --db}, {@code --no-db}, {@code --tag})
     */
    public static RunSpec of(BenchConfig config, Map<String, String> endpoints, Path root, RunSpec.History history) {
        return of(config, endpoints, root, history, Shard.WHOLE);
    }

    /**
     * The file as shard {@code shard} of a sharded run ({@code run --shard I/N}) runs it: the whole file's spec sliced
     * by the engine ({@link RunSpec#slice}, as {@code perf --shard} slices its own): every level its share of the
     * level's concurrency and of its requests (a held level keeps its hold time), a request_rate level λ/N, a trace
     * its dealt rows at their recorded times. The engine ({@code SpecPoints}) sends each level's
     * {@link RunSpec.Slice} of its prompts and conversations. Levels named by their concurrency are named by the shard's share; a rate level or
     * a trace keeps the file's name ({@code rate_R} of the whole λ).
     */
    public static RunSpec of(BenchConfig config, Map<String, String> endpoints, Path root, RunSpec.History history,
                             Shard shard) {
        return whole(config, endpoints, root, history).slice(shard); // a search is refused there with its reason
    }

    private static RunSpec whole(BenchConfig config, Map<String, String> endpoints, Path root, RunSpec.History history) {
        List<RunSpec.Target> targets = new ArrayList<>();
        for (BenchConfig.Provider p : config.providers()) targets.add(target(config, p, endpoints.get(p.name())));
        List<RunSpec.Workload> workloads = new ArrayList<>();
        String firstModel = config.providers().getFirst().model();
        for (BenchConfig.Scenario s : config.scenarios()) {
            BenchConfig.TraceReplay trace = config.loads().traces().get(s.name());
            workloads.add(new RunSpec.Workload(s.name(), s.type() == BenchConfig.Type.MULTI_TURN,
                    s.dataset() != null ? s.dataset() : s.prompt() != null ? "prompt" : "random", s.datasetPath(),
                    s.prompt(), s.minPromptLength(), s.maxPromptLength(),
                    config.generation().params(firstModel, s.stream(), s.maxTokens()), RunSpec.DatasetOptions.NONE,
                    new RunSpec.Composition(s.system(), s.classes().stream().map(c -> new RunSpec.PromptClass(c.name(),
                            c.weight(), c.prompt(), c.promptTokens(), c.maxTokens())).toList(), s.cacheBust(),
                            s.conversationHistory(), Math.max(1, trace != null ? trace.count()
                            : perLevel(config.concurrency(), config.loads(), s))),
                    validate(s.validate())));
        }
        List<RunSpec.Point> points = new ArrayList<>();
        List<Sla> searches = new ArrayList<>(); // sla_auto_tune: a search per provider × scenario chooses its probes
        for (int p = 0; p < config.providers().size(); p++) {
            for (int s = 0; s < config.scenarios().size(); s++) {
                if (config.loads().sla() == null) points.addAll(levels(config, p, s));
                else searches.add(sla(config, p, s));
            }
        }
        return new RunSpec(config.name(), targets, workloads, points, searches, Shard.WHOLE, config.goodput(), null,
                new RunSpec.Outputs(root).with(RunSpec.Layout.series),
                history, config.seed(), config.limits().withStarts(new RunSpec.Starts(config.rateLimitPerSec(),
                config.rateLimitBurst(), config.rateLimitRampOnly())));
    }

    /**
     * The file's {@code sla_auto_tune} over provider {@code p} × scenario {@code s}: the engine's search (the one
     * {@code perf --sla-auto-tune} runs: the same defaults, request counts and plans), each probe a level of the series
     * ({@code provider/scenario/sla_tuning/sla_VAR_VAL_run_I}), its {@code sla_summary.json} beside the levels, the
     * file's {@code sleep_between_levels_sec} before each probe but the run's first.
     */
    private static Sla sla(BenchConfig config, int p, int s) {
        BenchConfig.SlaTune t = config.loads().sla();
        return new Sla(t.tunesRate() ? Sla.Variable.rate : Sla.Variable.parallel, t.params(), t.lowerBound(),
                t.lowerBound(), t.upperBound(), t.numRuns(), t.fixedParallel(), t.numberMultiplier(), 0, null, false,
                ArrivalShape.POISSON, Duration.ofNanos((long) (config.sleepBetweenLevelsSec() * 1e9)), p, s);
    }

    /** A scenario's {@code validate} as the spec's; null when it has no rule. */
    private static RunSpec.Validate validate(BenchConfig.Validation v) {
        return v == null || !v.any() ? null : new RunSpec.Validate(v.choicesNonEmpty(),
                v.contentRegex() == null ? null : v.contentRegex().pattern(), v.jsonOutput(), v.minOutputTokens());
    }

    private static RunSpec.Target target(BenchConfig config, BenchConfig.Provider p, String url) {
        BenchConfig.Timeouts t = config.timeouts();
        RunSpec.ApiKey key = p.apiKeyEnv() != null && !p.embeddedSimulator() ? RunSpec.ApiKey.fromEnv(p.apiKeyEnv())
                : RunSpec.ApiKey.NONE;
        // a one-token probe first: a dead endpoint or bad key stops the run before the levels start, and the first
        // measured request does not pay for connection setup and class loading
        return new RunSpec.Target(p.name(), url, p.embeddedSimulator(), p.model(), ApiFormat.CHAT, p.headers(), key,
                new RunSpec.Timeouts(duration(t.connectSec(), 10), duration(t.readSec(), 120), duration(t.totalSec(), 0)),
                config.connectionPool(), p.tls(), true, false, p.price() == null ? null
                        : new RunSpec.Price(p.price().input(), p.price().cachedInput(), p.price().output()));
    }

    /**
     * The levels of one provider × scenario, in order: a trace's replay, the request rates (open loop, their
     * arrivals shaped by burstiness or the ramp), or the concurrency levels (closed loop).
     */
    private static List<RunSpec.Point> levels(BenchConfig config, int p, int s) {
        BenchConfig.Provider provider = config.providers().get(p);
        BenchConfig.Scenario scenario = config.scenarios().get(s);
        BenchConfig.Loads loads = config.loads();
        List<RunSpec.Point> points = new ArrayList<>();
        BenchConfig.TraceReplay trace = loads.traces().get(scenario.name());
        if (trace != null) {
            points.add(new RunSpec.Point(label(provider, scenario, "trace"), p, s, replay(trace), Duration.ZERO));
            return points;
        }
        Duration pause = Duration.ofNanos((long) (config.sleepBetweenLevelsSec() * 1e9));
        BenchConfig.RequestRate rr = loads.requestRate();
        int number = perLevel(config.concurrency(), loads, scenario);
        if (rr != null) {
            double b = rr.burstiness() == null ? 1 : rr.burstiness();
            ArrivalShape.Ramp ramp = rr.ramp() == null ? null : new ArrivalShape.Ramp(rr.ramp().strategy(),
                    rr.ramp().startRps(), rr.ramp().endRps());
            for (int li = 0; li < rr.levels().size(); li++) {
                double rate = rr.levels().get(li);
                LoadPlan plan = rr.maxConcurrency() == null ? LoadPlan.openLoop(number, rate, null, 0)
                        : new LoadPlan(rr.maxConcurrency(), number, rate, null, 0);
                plan = ramp != null ? plan.withArrivals(ArrivalShape.ramp(ramp, b))
                        : rr.burstiness() != null ? plan.withArrivals(ArrivalShape.gamma(b)) : plan;
                String name = rr.ramp() != null ? "ramp_" + rr.ramp().strategy() + "_" + LoadsSection.plain(
                        rr.ramp().startRps()) + "_" + LoadsSection.plain(rr.ramp().endRps())
                        : "rate_" + LoadsSection.plain(rr.levels().get(li));
                points.add(new RunSpec.Point(label(provider, scenario, name), p, s, plan,
                        li + 1 < rr.levels().size() ? pause : Duration.ZERO));
            }
            return points;
        }
        List<Integer> levels = config.concurrency().levels();
        Duration hold = config.concurrency().holdSeconds() == null ? null
                : Duration.ofNanos((long) (config.concurrency().holdSeconds() * 1e9));
        for (int li = 0; li < levels.size(); li++) {
            int level = levels.get(li);
            points.add(new RunSpec.Point(label(provider, scenario, level), p, s,
                    new LoadPlan(level, hold != null ? Integer.MAX_VALUE : number, 0, hold, 0),
                    li + 1 < levels.size() ? pause : Duration.ZERO));
        }
        return points;
    }

    /** A trace's replay: all of its rows at their recorded times (a shard's slice deals them: {@link RunSpec#slice}). */
    private static LoadPlan replay(BenchConfig.TraceReplay trace) {
        return LoadPlan.openLoop(trace.count(), trace.rate(), null, 0)
                .withArrivals(ArrivalShape.recorded(trace.offsetsNanos(), trace.speedup()));
    }

    /** The label of one concurrency level, as reports and the run history name it. */
    static String label(BenchConfig.Provider p, BenchConfig.Scenario s, int level) {
        return label(p, s, "parallel_" + level);
    }

    /** {@code provider/scenario/LEVEL}: LEVEL is the level's folder under {@code PROVIDER/SCENARIO/}. */
    static String label(BenchConfig.Provider p, BenchConfig.Scenario s, String level) {
        return p.name() + "/" + s.name() + "/" + level;
    }

    /** Requests (conversations) each level of scenario {@code scenario} sends; for levels held by count. */
    public static int perLevel(BenchConfig config, int scenario) {
        return perLevel(config.concurrency(), config.loads(), config.scenarios().get(scenario));
    }

    static int perLevel(BenchConfig.Concurrency c, BenchConfig.Scenario s) {
        return c.requestsPerLevel() != null ? c.requestsPerLevel() : s.rounds();
    }

    /** Requests of one level: request_rate's or concurrency's requests_per_level, else the scenario's rounds. */
    static int perLevel(BenchConfig.Concurrency c, BenchConfig.Loads loads, BenchConfig.Scenario s) {
        BenchConfig.RequestRate rr = loads.requestRate();
        if (rr != null) return rr.requestsPerLevel() != null ? rr.requestsPerLevel() : s.rounds();
        return perLevel(c, s);
    }

    private static Duration duration(Double seconds, double fallback) {
        double s = seconds != null ? seconds : fallback;
        return s <= 0 ? null : Duration.ofNanos((long) (s * 1e9));
    }
}
