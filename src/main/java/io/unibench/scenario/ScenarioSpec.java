package io.unibench.scenario;

import io.unibench.client.ApiFormat;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A scenario file as a {@link RunSpec}: each provider a target (run one after another), each scenario a workload,
 * and for every provider × scenario × concurrency level one point, labelled {@code provider/scenario/parallel_C}.
 * A level runs {@code rounds} (or {@code requests_per_level}) requests, or back-to-back requests for
 * {@code ramp_interval_sec}; {@code sleep_between_levels_sec} pauses between the levels of one series.
 */
public final class ScenarioSpec {
    private ScenarioSpec() {}

    /** The shared rules of every front end, located by the file's key paths ({@code FILE:LINE:} added by the file). */
    static List<io.unibench.engine.spec.SpecError> check(BenchConfig.Concurrency c, BenchConfig.Generation g,
                                                         BenchConfig.Timeouts t, List<BenchConfig.Scenario> scenarios,
                                                         double sleepSeconds) {
        SpecPaths paths = (field, i) -> switch (field) {
            case PARALLEL, RATE, WARMUP -> "concurrency";
            case NUMBER -> c.requestsPerLevel() != null ? "concurrency.requests_per_level" : "scenarios[" + i + "].rounds";
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
        };
        SpecRules rules = new SpecRules(paths);
        for (int i = 0; i < scenarios.size(); i++) {
            for (int level : c.levels()) rules.point(i, level, perLevel(c, scenarios.get(i)), -1, c.holdSeconds(), 0);
        }
        rules.pause(0, sleepSeconds)
                .generation(List.of(g.maxTokens()), g.minTokens(), g.temperature(), g.topP(), g.topK())
                // total_sec 0 means none in a scenario file
                .timeouts(0, t.connectSec(), t.readSec(), t.totalSec() == null || t.totalSec() == 0 ? null : t.totalSec());
        return rules.errors();
    }

    /**
     * @param endpoints provider name → full chat-completions URL (embedded simulators already started)
     * @param history   the run history's settings ({@code --db}, {@code --no-db}, {@code --tag})
     */
    public static RunSpec of(BenchConfig config, Map<String, String> endpoints, Path root, RunSpec.History history) {
        return of(config, endpoints, root, history, Shard.WHOLE);
    }

    /**
     * The file as shard {@code shard} of a sharded run ({@code run --shard I/N}) runs it: every level its share of
     * the level's concurrency and of its requests (a held level keeps its hold time); {@link ScenarioRunner} gives
     * it its block of each level's prompts and conversations and its share of {@code rate_limit}.
     */
    public static RunSpec of(BenchConfig config, Map<String, String> endpoints, Path root, RunSpec.History history,
                             Shard shard) {
        List<RunSpec.Target> targets = new ArrayList<>();
        for (BenchConfig.Provider p : config.providers()) targets.add(target(config, p, endpoints.get(p.name())));
        List<RunSpec.Workload> workloads = new ArrayList<>();
        String firstModel = config.providers().getFirst().model();
        for (BenchConfig.Scenario s : config.scenarios()) {
            workloads.add(new RunSpec.Workload(s.name(), s.type() == BenchConfig.Type.MULTI_TURN,
                    s.dataset() != null ? s.dataset() : s.prompt() != null ? "prompt" : "random", s.datasetPath(),
                    s.prompt(), s.minPromptLength(), s.maxPromptLength(),
                    config.generation().params(firstModel, s.stream(), s.maxTokens())));
        }
        List<RunSpec.Point> points = new ArrayList<>();
        List<Integer> levels = config.concurrency().levels();
        Duration hold = config.concurrency().holdSeconds() == null ? null
                : Duration.ofNanos((long) (config.concurrency().holdSeconds() * 1e9));
        Duration pause = Duration.ofNanos((long) (config.sleepBetweenLevelsSec() * 1e9));
        for (int p = 0; p < config.providers().size(); p++) {
            for (int s = 0; s < config.scenarios().size(); s++) {
                BenchConfig.Scenario scenario = config.scenarios().get(s);
                int number = hold != null ? Integer.MAX_VALUE : (int) shard.share(perLevel(config.concurrency(), scenario));
                for (int li = 0; li < levels.size(); li++) {
                    int level = (int) shard.share(levels.get(li));
                    points.add(new RunSpec.Point(label(config.providers().get(p), scenario, level), p, s,
                            new LoadPlan(level, number, 0, hold, 0), li + 1 < levels.size() ? pause : Duration.ZERO));
                }
            }
        }
        return new RunSpec(config.name(), targets, workloads, points, new RunSpec.Outputs(root), history, config.seed());
    }

    private static RunSpec.Target target(BenchConfig config, BenchConfig.Provider p, String url) {
        BenchConfig.Timeouts t = config.timeouts();
        RunSpec.ApiKey key = p.apiKeyEnv() != null && !p.embeddedSimulator() ? RunSpec.ApiKey.fromEnv(p.apiKeyEnv())
                : RunSpec.ApiKey.NONE;
        // a one-token probe first: a dead endpoint or bad key stops the run before the levels start, and the first
        // measured request does not pay for connection setup and class loading
        return new RunSpec.Target(p.name(), url, p.embeddedSimulator(), p.model(), ApiFormat.CHAT, p.headers(), key,
                new RunSpec.Timeouts(duration(t.connectSec(), 10), duration(t.readSec(), 120), duration(t.totalSec(), 0)),
                config.connectionPool(), p.tls(), true);
    }

    /** The label of one level, as reports and the run history name it. */
    static String label(BenchConfig.Provider p, BenchConfig.Scenario s, int level) {
        return p.name() + "/" + s.name() + "/parallel_" + level;
    }

    /** Requests (conversations) each level of scenario {@code scenario} sends; for levels held by count. */
    public static int perLevel(BenchConfig config, int scenario) {
        return perLevel(config.concurrency(), config.scenarios().get(scenario));
    }

    static int perLevel(BenchConfig.Concurrency c, BenchConfig.Scenario s) {
        return c.requestsPerLevel() != null ? c.requestsPerLevel() : s.rounds();
    }

    private static Duration duration(Double seconds, double fallback) {
        double s = seconds != null ? seconds : fallback;
        return s <= 0 ? null : Duration.ofNanos((long) (s * 1e9));
    }
}
