package io.unibench.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.TlsOptions;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A validated scenario file ({@code unibench run --config FILE}): what to test, against whom, how hard. See
 * docs/scenarios.md and {@code bench.schema.json} (docs/reference/scenario-schema.md is generated from it).
 *
 * @param file              the file name, for messages and reports
 * @param name              run name (output folder)
 * @param seed              seed of every random choice of the run
 * @param providers         endpoints to compare, in file order
 * @param generation        sampling parameters locked for every request
 * @param concurrency       the levels and how long each is held
 * @param rateLimitPerSec   global cap on request starts per second, per provider run
 * @param rateLimitBurst    bucket size of the limiter
 * @param rateLimitRampOnly no {@code rate_limit} in the file: only each level's ramp (the starts that open the
 *                          connections it adds) is paced, steady state is not limited ({@link StartGate})
 * @param connectionPool    connections per provider
 * @param timeouts          connect/read/total timeouts
 * @param knee              how the knee of the concurrency curve is found
 * @param sleepBetweenLevelsSec pause between two levels (lets a server drain its queue)
 * @param scenarios         what to send
 * @param maxErrorRatePercent {@code max_error_rate}: a level failing more of its requests makes the run exit 3
 *                          (CI gates; {@code --max-error-rate} wins); null = no limit
 * @param goodput           {@code goodput}: the objectives whose met requests per second each level reports; null none
 * @param loads             {@code request_rate}, {@code sla_auto_tune} and the trace scenarios' replay
 *                          ({@link Loads#CLOSED_LOOP}: concurrency levels only)
 * @param limits            {@code retry}, {@code budget} and {@code target_precision} as the run's limits
 *                          ({@link io.unibench.engine.spec.RunSpec.Limits#NONE}: none)
 */
public record BenchConfig(String file, String name, long seed, List<Provider> providers, Generation generation,
                          Concurrency concurrency, double rateLimitPerSec, double rateLimitBurst,
                          boolean rateLimitRampOnly, int connectionPool,
                          Timeouts timeouts, Knee knee, double sleepBetweenLevelsSec, List<Scenario> scenarios,
                          Double maxErrorRatePercent, io.unibench.metrics.GoodputSlo goodput, Loads loads,
                          io.unibench.engine.spec.RunSpec.Limits limits) {

    public BenchConfig {
        providers = List.copyOf(providers);
        scenarios = List.copyOf(scenarios);
        if (loads == null) loads = Loads.CLOSED_LOOP;
        if (limits == null) limits = io.unibench.engine.spec.RunSpec.Limits.NONE;
    }

    /** A configuration without retries, budget or target precision. */
    public BenchConfig(String file, String name, long seed, List<Provider> providers, Generation generation,
                       Concurrency concurrency, double rateLimitPerSec, double rateLimitBurst,
                       boolean rateLimitRampOnly, int connectionPool, Timeouts timeouts, Knee knee,
                       double sleepBetweenLevelsSec, List<Scenario> scenarios, Double maxErrorRatePercent,
                       io.unibench.metrics.GoodputSlo goodput, Loads loads) {
        this(file, name, seed, providers, generation, concurrency, rateLimitPerSec, rateLimitBurst, rateLimitRampOnly,
                connectionPool, timeouts, knee, sleepBetweenLevelsSec, scenarios, maxErrorRatePercent, goodput, loads,
                null);
    }

    /** A configuration whose levels are concurrency levels only. */
    public BenchConfig(String file, String name, long seed, List<Provider> providers, Generation generation,
                       Concurrency concurrency, double rateLimitPerSec, double rateLimitBurst,
                       boolean rateLimitRampOnly, int connectionPool, Timeouts timeouts, Knee knee,
                       double sleepBetweenLevelsSec, List<Scenario> scenarios, Double maxErrorRatePercent,
                       io.unibench.metrics.GoodputSlo goodput) {
        this(file, name, seed, providers, generation, concurrency, rateLimitPerSec, rateLimitBurst, rateLimitRampOnly,
                connectionPool, timeouts, knee, sleepBetweenLevelsSec, scenarios, maxErrorRatePercent, goodput, null);
    }

    /** A configuration without goodput objectives. */
    public BenchConfig(String file, String name, long seed, List<Provider> providers, Generation generation,
                       Concurrency concurrency, double rateLimitPerSec, double rateLimitBurst,
                       boolean rateLimitRampOnly, int connectionPool, Timeouts timeouts, Knee knee,
                       double sleepBetweenLevelsSec, List<Scenario> scenarios, Double maxErrorRatePercent) {
        this(file, name, seed, providers, generation, concurrency, rateLimitPerSec, rateLimitBurst, rateLimitRampOnly,
                connectionPool, timeouts, knee, sleepBetweenLevelsSec, scenarios, maxErrorRatePercent, null);
    }

    /** A configuration without an error-rate limit, whose rate limit caps every start (as {@code rate_limit} set). */
    public BenchConfig(String file, String name, long seed, List<Provider> providers, Generation generation,
                       Concurrency concurrency, double rateLimitPerSec, double rateLimitBurst, int connectionPool,
                       Timeouts timeouts, Knee knee, double sleepBetweenLevelsSec, List<Scenario> scenarios) {
        this(file, name, seed, providers, generation, concurrency, rateLimitPerSec, rateLimitBurst, false,
                connectionPool, timeouts, knee, sleepBetweenLevelsSec, scenarios, null);
    }

    /** base_url value that starts an embedded simulator for the provider. */
    public static final String SIM = "sim";

    /**
     * @param apiKeyEnv environment variable holding the key; {@code null} = no Authorization header
     * @param price     prices per million tokens, or {@code null}
     * @param simulator latency profile when {@code baseUrl} is {@code sim}, else {@code null}
     * @param tls       how an https base_url is verified ({@code ca_cert}, {@code insecure})
     */
    public record Provider(String name, String baseUrl, String model, String apiKeyEnv, Map<String, String> headers,
                           Price price, SimProfile simulator, TlsOptions tls) {
        public Provider {
            headers = Map.copyOf(headers);
            if (tls == null) tls = TlsOptions.DEFAULT;
        }

        public boolean embeddedSimulator() {
            return SIM.equals(baseUrl);
        }

        /** Its target as the run history stores it: the base URL, or the embedded simulator's stable id. */
        public String historyUrl() {
            return embeddedSimulator() ? io.unibench.engine.spec.RunSpec.Target.embeddedSimulatorId(name) : baseUrl;
        }
    }

    /** Prices in currency units per million tokens; cached input defaults to the input price. */
    public record Price(double input, double cachedInput, double output) implements io.unibench.metrics.TokenPrice {
        /** Cost of one request's tokens. */
        @Override
        public double cost(long uncachedInput, long cachedInput, long output) {
            return (uncachedInput * input + cachedInput * this.cachedInput + output * this.output) / 1e6;
        }
    }

    public record SimProfile(double ttftMs, double itlMs, double prefillMsPerToken) {}

    /** Locked sampling parameters; {@code null} fields are not sent (temperature defaults to 0). */
    public record Generation(double temperature, int maxTokens, Integer minTokens, Double topP, Integer topK, Long seed,
                             List<String> stop, boolean ignoreEos, ObjectNode extraBody) {

        /** The parameters of one scenario's requests to one provider. */
        public GenerationParams params(String model, boolean stream, Integer maxTokensOverride) {
            ObjectNode extra = extraBody == null ? null : extraBody.deepCopy();
            if (ignoreEos) {
                if (extra == null) extra = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
                if (!extra.has("ignore_eos")) extra.put("ignore_eos", true);
            }
            int max = maxTokensOverride != null ? maxTokensOverride : maxTokens;
            return new GenerationParams(model, ApiFormat.CHAT, max, max, minTokens, temperature, topP, topK, seed, stop,
                    stream, extra);
        }
    }

    /**
     * @param levels           concurrency levels in the order they are run
     * @param holdSeconds      each level runs this long (closed loop, requests back to back); {@code null} = by count
     * @param requestsPerLevel each level sends this many requests; {@code null} = the scenario's {@code rounds}
     */
    public record Concurrency(List<Integer> levels, Double holdSeconds, Integer requestsPerLevel) {
        public Concurrency {
            levels = List.copyOf(levels);
        }

        public int peak() {
            return levels.stream().mapToInt(Integer::intValue).max().orElse(1);
        }

        /** start, start+step, …, then peak itself when the steps do not land on it. */
        public static List<Integer> ramp(int start, int peak, int step) {
            List<Integer> out = new java.util.ArrayList<>();
            for (long l = start; l < peak; l += step) out.add((int) l);
            out.add(peak);
            return out;
        }
    }

    public record Timeouts(Double connectSec, Double readSec, Double totalSec) {}

    /**
     * What loads the levels beyond the closed loop's concurrency (see {@link LoadsSection}).
     *
     * @param requestRate {@code request_rate}: open-loop levels; null = the concurrency levels
     * @param sla         {@code sla_auto_tune}: a search replaces the levels of every series; null = none
     * @param traces      scenario name → its {@code mooncake_trace} replay (one level, at the trace's times)
     */
    public record Loads(RequestRate requestRate, SlaTune sla, Map<String, TraceReplay> traces) {
        public static final Loads CLOSED_LOOP = new Loads(null, null, Map.of());

        public Loads {
            traces = Map.copyOf(traces);
        }
    }

    /**
     * Open-loop levels: requests are sent on a schedule whatever the replies do (vLLM's {@code --request-rate}).
     *
     * @param levels           requests/s of each level, in order (one level, the ramp's end rate, with a ramp)
     * @param burstiness       vLLM's {@code --burstiness}: gamma gaps of this shape (1 = Poisson); null = Poisson
     * @param maxConcurrency   at most this many in flight (vLLM's {@code --max-concurrency}); null = no bound
     * @param requestsPerLevel each level sends this many; null = the scenario's {@code rounds}
     * @param ramp             {@code ramp_up}: the rate goes from its start to its end over the level's requests
     */
    public record RequestRate(List<Double> levels, Double burstiness, Integer maxConcurrency, Integer requestsPerLevel,
                              io.unibench.engine.ArrivalShape.Ramp ramp) {
        public RequestRate {
            levels = List.copyOf(levels);
        }
    }

    /**
     * evalscope's SLA auto-tune, per provider × scenario: the largest value of {@code variable} meeting every
     * criterion (the same search and rules as {@code perf --sla-auto-tune}).
     *
     * @param variable         {@code parallel} (closed loop at that concurrency) or {@code rate} (req/s)
     * @param params           the criteria ({@code --sla-params}' grammar and units)
     * @param fixedParallel    the concurrency bound of a rate probe (evalscope: the upper bound)
     * @param numberMultiplier requests of a probe run = max(1, round(value × it))
     */
    public record SlaTune(String variable, io.unibench.engine.sla.SlaParams params, int numRuns, int lowerBound,
                          int upperBound, int fixedParallel, double numberMultiplier) {
        public boolean tunesRate() {
            return "rate".equals(variable);
        }

        /** Requests of one run at {@code value}. */
        public int number(int value) {
            return (int) Math.max(1, Math.round(value * numberMultiplier));
        }

        /** The most requests any probe has in flight (the connection pool's size). */
        public int peakConcurrency() {
            return tunesRate() ? fixedParallel : upperBound;
        }
    }

    /**
     * A {@code mooncake_trace} scenario's replay: its requests at their timestamps divided by {@code speedup}.
     *
     * @param offsetsNanos send times of the replayed requests from the first (speed-up applied)
     * @param count        requests replayed (the scenario's {@code rounds} when given, else the whole trace)
     */
    public record TraceReplay(double speedup, long[] offsetsNanos, int count) {
        /** The replay's mean rate, the Rate its level is shown with. */
        public double rate() {
            double span = offsetsNanos[count - 1] / 1e9;
            return count / Math.max(span, 1e-3);
        }
    }

    /**
     * @param minGainPercent throughput growth (%) from a level to the next below which the first is the knee
     * @param latencyP95Ms   a level whose p95 latency passes this bound is the knee; {@code null} = no bound
     */
    public record Knee(double minGainPercent, Double latencyP95Ms) {}

    public enum Type { CHAT, MULTI_TURN, MIXED }

    /**
     * @param rounds              requests (conversations for multi_turn) per level, unless the level is held by time
     *                            or {@code requests_per_level}
     * @param conversationHistory multi_turn: previous turns each conversation carries before its last turn
     * @param maxTokens           overrides {@code generation.max_tokens} for this scenario
     */
    public record Scenario(String name, Type type, boolean stream, int rounds, String prompt, String system,
                           String dataset, String datasetPath, int minPromptLength, int maxPromptLength,
                           Integer conversationHistory, Integer maxTokens, List<PromptClass> classes,
                           boolean cacheBust, Validation validate) {
        public Scenario {
            classes = List.copyOf(classes);
        }
    }

    /** A weighted class of a mixed scenario: a fixed prompt or a synthesized one of {@code promptTokens}. */
    public record PromptClass(String name, double weight, String prompt, Integer promptTokens, Integer maxTokens) {}

    /** Rules a successful reply must also pass; a failure is recorded as {@code validation_error}. */
    public record Validation(boolean choicesNonEmpty, Pattern contentRegex, boolean jsonOutput, Integer minOutputTokens) {
        public static final Validation NONE = new Validation(false, null, false, null);

        public boolean any() {
            return choicesNonEmpty || contentRegex != null || jsonOutput || minOutputTokens != null;
        }
    }
}
