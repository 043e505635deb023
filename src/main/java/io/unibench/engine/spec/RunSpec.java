package io.unibench.engine.spec;

import io.unibench.Secrets;
import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.GenerationParams;
import io.unibench.client.TlsOptions;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import io.unibench.metrics.GoodputSlo;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run, described once, whatever front end asked for it: {@code perf}'s flags, a scenario file, the web API's
 * JSON. Immutable; made only from values that passed {@link SpecRules}, so the session runner never meets a bad
 * one. The engine executes it point by point ({@code engine.SessionRunner}).
 *
 * @param name      the run's name (its output folder and the run history's name)
 * @param targets   the endpoints, run one after another (a scenario's providers; {@code perf} has one)
 * @param workloads what is sent: each point names one
 * @param points    the load points in the order they run, over every target (none when {@code sla} chooses them)
 * @param sla       the SLA auto-tune's searches, each a generator of points chosen from the results so far, over its
 *                  target × workload, run one after another in one session (a scenario file's: one per provider ×
 *                  scenario); empty (or null) = none. A document may give one search as an object (the form before)
 * @param shard     the slice of the run this process sends ({@link Shard#WHOLE} unsharded)
 * @param goodput   the objectives a request must meet to count as goodput; null = not counted
 * @param cancels   the share of requests cancelled mid-stream, and when; null = none
 * @param outputs   where the files go, and which
 * @param history   whether and where the run history records the run, and its tags
 * @param seed      the seed of every random choice
 * @param limits    retries of refused requests, the run's token and cost budget, the points' target precision;
 *                  {@link Limits#NONE} = none of them
 *
 * <p>Serialised as JSON or YAML by {@link RunSpecJson} (the schema: {@code run-spec.schema.json}).
 */
public record RunSpec(String name, List<Target> targets, List<Workload> workloads, List<Point> points, List<Sla> sla,
                      Shard shard, GoodputSlo goodput, Cancels cancels, Outputs outputs, History history, long seed,
                      Limits limits) {

    /** A run without retries, budget or target precision. */
    public RunSpec(String name, List<Target> targets, List<Workload> workloads, List<Point> points, List<Sla> sla,
                   Shard shard, GoodputSlo goodput, Cancels cancels, Outputs outputs, History history, long seed) {
        this(name, targets, workloads, points, sla, shard, goodput, cancels, outputs, history, seed, Limits.NONE);
    }

    /** A run of fixed points, whole, with no goodput, no cancels. */
    public RunSpec(String name, List<Target> targets, List<Workload> workloads, List<Point> points,
                   Outputs outputs, History history, long seed) {
        this(name, targets, workloads, points, null, Shard.WHOLE, null, null, outputs, history, seed);
    }

    public RunSpec {
        targets = List.copyOf(targets);
        workloads = List.copyOf(workloads);
        points = List.copyOf(points);
        sla = sla == null ? List.of() : List.copyOf(sla);
        if (shard == null) shard = Shard.WHOLE;
        if (limits == null) limits = Limits.NONE;
        for (Sla s : sla) {
            if (s.target() < 0 || s.target() >= targets.size() || s.workload() < 0 || s.workload() >= workloads.size()) {
                throw new IllegalArgumentException("a search names a target or workload the run lacks");
            }
        }
        for (Point p : points) {
            if (p.target() < 0 || p.target() >= targets.size() || p.workload() < 0 || p.workload() >= workloads.size()) {
                throw new IllegalArgumentException("point " + p.label() + " names a target or workload the run lacks");
            }
        }
    }

    public Target target(Point p) {
        return targets.get(p.target());
    }

    public Workload workload(Point p) {
        return workloads.get(p.workload());
    }

    /** This spec against {@code url} for target {@code t} (the embedded simulator's, once it runs). */
    public RunSpec withUrl(int t, String url) {
        return withTarget(t, targets.get(t).withUrl(url));
    }

    /** This spec with target {@code t} replaced. */
    public RunSpec withTarget(int t, Target target) {
        List<Target> ts = new java.util.ArrayList<>(targets);
        ts.set(t, target);
        return new RunSpec(name, ts, workloads, points, sla, shard, goodput, cancels, outputs, history, seed, limits);
    }

    /** This spec with workload {@code w} replaced (a {@code --tokenize-prompt} encoder made from its options). */
    public RunSpec withWorkload(int w, Workload workload) {
        List<Workload> ws = new java.util.ArrayList<>(workloads);
        ws.set(w, workload);
        return new RunSpec(name, targets, ws, points, sla, shard, goodput, cancels, outputs, history, seed, limits);
    }

    /** This spec with {@code limits} (retries, budget, target precision). */
    public RunSpec withLimits(Limits limits) {
        return new RunSpec(name, targets, workloads, points, sla, shard, goodput, cancels, outputs, history, seed, limits);
    }

    /** This spec with its files under {@code root} (the service's folder of the run), the rest of its outputs kept. */
    public RunSpec withRoot(Path root) {
        Outputs o = new Outputs(root, outputs.progressTracker(), outputs.logEvery(), outputs.arguments(), outputs.layout());
        return new RunSpec(name, targets, workloads, points, sla, shard, goodput, cancels, o, history, seed, limits);
    }

    /**
     * What keeps this spec from running, each at its JSON pointer; empty when it can run. A spec of several targets
     * or workloads runs each target × workload (or search) after the other ({@code unibench run FILE}); a shard's spec
     * runs in its run group ({@code run FILE --run-group G}). What cannot: no point and no search; points and searches
     * in one spec; two searches of one target × workload (the second's files over the first's); a shard's spec of more
     * than one target or workload (a shard registers and ends once). {@code unibench run FILE} and the web API refuse
     * the same things (the service adds its own rules).
     */
    public List<SpecError> unrunnable() {
        List<SpecError> out = new java.util.ArrayList<>();
        if (points.isEmpty() && sla.isEmpty()) out.add(new SpecError("/points", "no point to run (and no sla search)"));
        boolean parts = targets.size() != 1 || workloads.size() != 1;
        if (!points.isEmpty() && !sla.isEmpty()) {
            out.add(new SpecError("/sla", "a spec runs its points or its SLA searches, not both"));
        }
        for (int i = 0; i < sla.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (sla.get(j).target() == sla.get(i).target() && sla.get(j).workload() == sla.get(i).workload()) {
                    out.add(new SpecError("/sla/" + i, "searches target " + sla.get(i).target() + " × workload "
                            + sla.get(i).workload() + " as /sla/" + j + " does: its files would be written over"));
                }
            }
        }
        for (int i = 0; i < points.size(); i++) {
            boolean sliced = points.get(i).slice() != null;
            if (sliced == shard.equals(Shard.WHOLE)) {
                out.add(new SpecError("/points/" + i + "/slice", sliced ? "a whole run's point has no slice (/shard "
                        + "is the whole run's)" : "shard " + shard + "'s point needs its slice: make a shard's spec with "
                        + "perf --shard I/N --dry-run, or run the whole spec with --shard I/N"));
            }
        }
        if (parts && !shard.equals(Shard.WHOLE)) {
            out.add(new SpecError("/shard", shard + ": a shard's spec runs one target and one workload (its shard "
                    + "registers and ends once); this spec has " + targets.size() + " target(s) and "
                    + workloads.size() + " workload(s)"));
        }
        return out;
    }

    /**
     * Shard {@code shard}'s slice of this whole run ({@code --shard I/N}, whichever front end): every point its share
     * of the whole point's requests, concurrency and rate, a trace's rows dealt ({@link ShardSlice}); this spec when
     * {@code shard} is the whole. Bad input (one line naming {@code --shard}) for what cannot be sliced.
     */
    public RunSpec slice(Shard shard) {
        return ShardSlice.of(this, shard);
    }

    /** Why an SLA search is not sharded (the refusal's reason, after {@code --shard I/N: }). */
    public static final String SLA_UNSHARDED = ShardSlice.SLA_UNSHARDED;

    /** This spec recorded as {@code history} says. */
    public RunSpec withHistory(History history) {
        return new RunSpec(name, targets, workloads, points, sla, shard, goodput, cancels, outputs, history, seed, limits);
    }

    /**
     * An endpoint. The key is held by reference (the variable to read, or the flag's value masked in every
     * rendering); headers are sent as given and masked wherever they are shown. A URL's user info
     * ({@code http://user:pw@host/v1}, from {@code --url}, a scenario file's or the web API's {@code base_url}) is
     * taken out here, for every front end: it goes on the wire as Basic authorization (as evalscope's HTTP client,
     * aiohttp, sends it) unless an Authorization header is given, and the URL keeps it masked
     * ({@code http://***@host/v1}), so no URL a run shows, writes or stores holds the password.
     *
     * @param url            the full endpoint URL (an embedded simulator's once it runs; null before)
     * @param embeddedSimulator the URL is the embedded simulator's (started by the front end)
     * @param connections    the client's connection pool size
     * @param testConnection send a one-token probe before the target's first point
     * @param simulatorTls   the embedded simulator serves https with a certificate made at its start, which the
     *                       client trusts unless {@code tls.insecure} ({@code --sim-tls}); false for other targets
     * @param price          what its tokens cost (the run's cost budget); null = unpriced
     */
    public record Target(String name, String url, boolean embeddedSimulator, String model, ApiFormat api,
                         Map<String, String> headers, ApiKey apiKey, Timeouts timeouts, int connections,
                         TlsOptions tls, boolean testConnection, boolean simulatorTls, Price price) {
        public Target(String name, String url, boolean embeddedSimulator, String model, ApiFormat api,
                      Map<String, String> headers, ApiKey apiKey, Timeouts timeouts, int connections,
                      TlsOptions tls, boolean testConnection, boolean simulatorTls) {
            this(name, url, embeddedSimulator, model, api, headers, apiKey, timeouts, connections, tls, testConnection,
                    simulatorTls, null);
        }

        public Target(String name, String url, boolean embeddedSimulator, String model, ApiFormat api,
                      Map<String, String> headers, ApiKey apiKey, Timeouts timeouts, int connections,
                      TlsOptions tls, boolean testConnection) {
            this(name, url, embeddedSimulator, model, api, headers, apiKey, timeouts, connections, tls, testConnection,
                    false);
        }

        public Target {
            if (simulatorTls && !embeddedSimulator) {
                throw new IllegalArgumentException("simulator_tls applies to the embedded simulator only");
            }
            // in the order given: headers go on the wire as the user wrote them
            Map<String, String> h = new LinkedHashMap<>(headers);
            String masked = Secrets.maskUserInfo(url);
            if (masked != null && !masked.equals(url)) {
                String userInfo = userInfo(url);
                if (userInfo != null && h.keySet().stream().noneMatch(k -> k.equalsIgnoreCase("Authorization"))) {
                    h.put("Authorization", "Basic " + java.util.Base64.getEncoder()
                            .encodeToString(userInfo.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                }
                url = masked;
            }
            headers = java.util.Collections.unmodifiableMap(h);
            if (apiKey == null) apiKey = ApiKey.NONE;
            if (tls == null) tls = TlsOptions.DEFAULT;
        }

        /**
         * What the run history stores as an embedded simulator's target: {@code embedded-sim/NAME}, the same for every
         * run of it (its URL has a new port each time, so its runs would never group into one target's trend).
         */
        public static String embeddedSimulatorId(String name) {
            return "embedded-sim/" + name;
        }

        /** The target as the run history stores it: the URL, credentials masked; an embedded simulator's stable id. */
        public String historyUrl() {
            return embeddedSimulator ? embeddedSimulatorId(name) : Secrets.redact(url);
        }

        public Target withUrl(String url) {
            return new Target(name, url, embeddedSimulator, model, api, headers, apiKey, timeouts, connections, tls,
                    testConnection, simulatorTls, price);
        }

        /** This target against a started embedded simulator: its URL, and how its certificate is checked. */
        public Target withSimulator(String url, TlsOptions tls) {
            return new Target(name, url, embeddedSimulator, model, api, headers, apiKey, timeouts, connections, tls,
                    testConnection, simulatorTls, price);
        }

        /**
         * The client's configuration: headers, then the key (from its variable in {@code env}) as the API sends it
         * (a bearer token; Anthropic's {@code x-api-key} and {@code anthropic-version}).
         */
        public ClientConfig clientConfig(Map<String, String> env, boolean debug) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            api.addCredentials(h, apiKey.resolve(env));
            return new ClientConfig(URI.create(url), h, timeouts.connect(), timeouts.read(), timeouts.total(),
                    connections, debug, tls).withApi(api);
        }

        /** The URL's user info, percent-decoded; null when it has none or is no URI (the client then refuses it). */
        private static String userInfo(String url) {
            try {
                return URI.create(url).getUserInfo();
            } catch (IllegalArgumentException e) {
                return null;
            }
        }

        @Override
        public String toString() {
            return "Target[" + name + " " + Secrets.redact(url) + " model=" + model + " key=" + apiKey + "]";
        }
    }

    /**
     * Token prices in currency units per million tokens ({@code --price-input}/{@code --price-output}, a scenario
     * provider's {@code price}); cached input is priced as {@code cachedInput}.
     */
    public record Price(double input, double cachedInput, double output) implements io.unibench.metrics.TokenPrice {
        /** The cost of these tokens. */
        @Override
        public double cost(long uncachedInput, long cachedInput, long output) {
            return (uncachedInput * input + cachedInput * this.cachedInput + output * this.output) / 1e6;
        }
    }

    /**
     * What ends a run or a point before its plan does, and how refused requests are sent again.
     *
     * @param retry           re-sending refused requests ({@code --retry-on}); null = never (a capacity run's default)
     * @param maxTotalTokens  the run stops once its requests' prompt + completion tokens reach this
     *                        ({@code --max-total-tokens}); null = no limit
     * @param maxCost         the run stops once its cost at the targets' prices reaches this ({@code --max-cost});
     *                        null = no limit (needs every target priced)
     * @param targetPrecision a point ends once the 95 % interval's half-width of its TTFT p95 and of its latency p95
     *                        are each within this percentage of the value ({@code --target-precision}); null = off
     * @param starts          the gate in front of each target's request starts (a scenario file's {@code rate_limit});
     *                        null = none
     */
    public record Limits(Retry retry, Long maxTotalTokens, Double maxCost, Double targetPrecision, Starts starts) {
        public static final Limits NONE = new Limits(null, null, null, null);

        /** Limits without a gate on request starts. */
        public Limits(Retry retry, Long maxTotalTokens, Double maxCost, Double targetPrecision) {
            this(retry, maxTotalTokens, maxCost, targetPrecision, null);
        }

        public Limits withStarts(Starts starts) {
            return new Limits(retry, maxTotalTokens, maxCost, targetPrecision, starts);
        }

        /** A budget ends the run: tokens or cost. */
        public boolean budgeted() {
            return maxTotalTokens != null || maxCost != null;
        }
    }

    /**
     * The rate limiter in front of each target's request starts, one over all of its points ({@code engine.StartGate}):
     * {@code perSecond} starts a second with bursts of {@code burst} (a shard takes its share of each, a burst of at
     * least 1). A closed-loop point's ramp (the starts that open the connections it adds to the earlier points') always
     * passes it; later starts pass it too unless {@code rampOnly} (no {@code rate_limit} given: only the ramp is paced).
     */
    public record Starts(double perSecond, double burst, boolean rampOnly) {}

    /**
     * Sending a refused request again: a reply of one of these HTTP statuses is retried up to {@code maxRetries}
     * times, after the server's {@code Retry-After} or, without one, an exponential back-off from {@code baseDelay}
     * doubling each time, jittered (seeded) between half and all of it, never more than {@code maxDelay}; a
     * {@code Retry-After} longer than {@code maxDelay} is not waited for (the refusal is the request's record).
     */
    public record Retry(List<Integer> on, int maxRetries, Duration baseDelay, Duration maxDelay) {
        public static final Duration DEFAULT_BASE = Duration.ofMillis(500);
        public static final Duration DEFAULT_MAX = Duration.ofSeconds(30);

        public Retry {
            on = List.copyOf(on);
            if (baseDelay == null) baseDelay = DEFAULT_BASE;
            if (maxDelay == null) maxDelay = DEFAULT_MAX;
        }
    }

    /** An API key: the environment variable holding it, or a value given on the command line. */
    public record ApiKey(String variable, String value) {
        public static final ApiKey NONE = new ApiKey(null, null);

        public static ApiKey fromEnv(String variable) {
            return new ApiKey(variable, null);
        }

        public static ApiKey of(String value) {
            return new ApiKey(null, value);
        }

        public String resolve(Map<String, String> env) {
            return value != null ? value : variable != null ? env.get(variable) : null;
        }

        @Override
        public String toString() {
            return value != null ? Secrets.mask(value) : variable != null ? "$" + variable : "none";
        }
    }

    /** Client timeouts; null = none (total) or the client's default. */
    public record Timeouts(Duration connect, Duration read, Duration total) {}

    /**
     * What one point sends.
     *
     * @param name       the workload's name (a scenario's name; {@code perf}'s dataset)
     * @param multiTurn  conversations, each turn carrying the history
     * @param dataset    dataset name ({@code random}, {@code openqa}, …) or {@code prompt} for a fixed prompt
     * @param datasetPath file of the dataset, or null
     * @param prompt     the fixed prompt (text or {@code @FILE}), or null
     * @param generation sampling parameters (model of the first target; the runner sends each target's model);
     *                   a {@code --tokenize-prompt} encoder is not part of the spec ({@code options.tokenize_prompt})
     * @param options    how the dataset is read and its prompts made
     */
    public record Workload(String name, boolean multiTurn, String dataset, String datasetPath, String prompt,
                           int minPromptLength, int maxPromptLength, GenerationParams generation,
                           DatasetOptions options, Composition composition, Validate validate) {
        public Workload(String name, boolean multiTurn, String dataset, String datasetPath, String prompt,
                        int minPromptLength, int maxPromptLength, GenerationParams generation) {
            this(name, multiTurn, dataset, datasetPath, prompt, minPromptLength, maxPromptLength, generation,
                    DatasetOptions.NONE);
        }

        /** A workload of the dataset's prompts as they are, its replies unchecked. */
        public Workload(String name, boolean multiTurn, String dataset, String datasetPath, String prompt,
                        int minPromptLength, int maxPromptLength, GenerationParams generation,
                        DatasetOptions options) {
            this(name, multiTurn, dataset, datasetPath, prompt, minPromptLength, maxPromptLength, generation,
                    options, null, null);
        }

        public Workload {
            if (options == null) options = DatasetOptions.NONE;
        }

        public Workload withGeneration(GenerationParams generation) {
            return new Workload(name, multiTurn, dataset, datasetPath, prompt, minPromptLength, maxPromptLength,
                    generation, options, composition, validate);
        }
    }

    /**
     * How a scenario's prompts are composed ({@code engine.WorkloadPrompts} makes them): a system message before the
     * prompt, weighted classes of prompts (a {@code mixed} scenario), a nonce that defeats prefix caches, synthesized
     * conversations. A workload whose composition is null is its dataset's prompts as they are.
     *
     * @param system              the system message of every prompt (conversation), or null
     * @param classes             weighted prompt classes, one drawn per request (seeded); empty = the workload's
     *                            dataset or fixed prompt
     * @param cacheBust           a nonce unique to the request first in every user message
     * @param conversationHistory multi-turn: the previous turns each conversation carries before its last; without a
     *                            conversation dataset ({@code dataset} {@code prompt} or {@code random}) its
     *                            conversations are synthesized with this many + 1 turns
     * @param items               the dataset items (conversations) a point draws from, cycled: a level's requests
     */
    public record Composition(String system, List<PromptClass> classes, boolean cacheBust, Integer conversationHistory,
                              int items) {
        public Composition {
            classes = classes == null ? List.of() : List.copyOf(classes);
        }
    }

    /** A weighted class of prompts: a fixed prompt or one synthesized of {@code promptTokens}; its own max tokens. */
    public record PromptClass(String name, double weight, String prompt, Integer promptTokens, Integer maxTokens) {}

    /**
     * Rules a successful reply must also pass ({@code engine.ResponseRules}); a reply that breaks one is a failed
     * request of class {@code validation_error}.
     *
     * @param contentRegex a regular expression the content must contain a match of, or null
     */
    public record Validate(boolean choicesNonEmpty, String contentRegex, boolean jsonOutput, Integer minOutputTokens) {
        public boolean any() {
            return choicesNonEmpty || contentRegex != null || jsonOutput || minOutputTokens != null;
        }
    }

    /**
     * How a workload's dataset is read and its prompts made.
     *
     * @param offset         the dataset index of the first point's first request (later points follow on)
     * @param prefixLength   a shared prefix of this many tokens before each synthesized prompt
     * @param args           the dataset's own options (a JSON object as text), or null
     * @param tokenizerPath  the tokenizer that sizes and counts prompts; null = the bundled default
     * @param tokenizePrompt prompts go as token ids of that tokenizer
     * @param charsPerToken  the character estimate's ratio when no tokenizer counts; null = its default
     * @param serverTokenize prompts of the first point whose length the server counts (0 = none)
     * @param conversations  how conversations are made and paced; null for single-turn work
     */
    public record DatasetOptions(long offset, int prefixLength, String args, String tokenizerPath,
                                 boolean tokenizePrompt, Double charsPerToken, int serverTokenize,
                                 Conversations conversations) {
        public static final DatasetOptions NONE = new DatasetOptions(0, 0, null, null, false, null, 0, null);
    }

    /**
     * Conversations' shape: turn counts, pacing of their turns, tool waits, traces' limits.
     *
     * @param rateMode how a rate paces conversations ({@code think}, {@code arrival}), or null
     */
    public record Conversations(Integer minTurns, Integer maxTurns, String rateMode, Integer maxTraces,
                                Double toolLatencyScale, String args, String sweSmithInput, Integer workers) {}

    /** A share of requests cancelled mid-stream ({@code --cancel-rate}); {@code after} null = at a random moment. */
    public record Cancels(double rate, Duration after) {}

    /**
     * One load point.
     *
     * @param label      its human name ({@code parallel_8_number_100}, {@code openai/chat/parallel_8})
     * @param target     index into {@link #targets}
     * @param workload   index into {@link #workloads}
     * @param plan       how many, how many at once, how fast, for how long, the warm-up
     * @param pauseAfter the pause before the next point (lets a server drain its queue); zero = none
     */
    public record Point(String label, int target, int workload, LoadPlan plan, Duration pauseAfter, Slice slice) {
        /** A whole point (no shard's slice). */
        public Point(String label, int target, int workload, LoadPlan plan, Duration pauseAfter) {
            this(label, target, workload, plan, pauseAfter, null);
        }

        public Point {
            if (pauseAfter == null) pauseAfter = Duration.ZERO;
            if (slice != null && slice.of() < plan.number()) {
                throw new IllegalArgumentException("point " + label + ": its slice is of " + slice.of()
                        + " requests, fewer than its number " + plan.number());
            }
        }

        /** The index, among the whole point's requests (its dataset items), of this process's first one (0 whole). */
        public long firstRequest() {
            return slice == null ? 0 : slice.first();
        }

        /** The whole point's requests (this point's number unless it is a shard's slice). */
        public long wholeNumber() {
            return slice == null ? plan.number() : slice.of();
        }
    }

    /**
     * Which of a point's requests a shard sends ({@link #slice(Shard)}): of the whole point's {@code of} requests
     * (dataset items from the point's first), items {@code first}, {@code first + stride}, … — a contiguous block
     * (stride 1) or a trace's rows dealt in turn (stride N). A whole point has none (null).
     *
     * @param first  the index of this shard's first request among the whole point's
     * @param stride 1 for a block; N for dealt rows
     * @param of     the whole point's number of requests (a held point's: its share's start is in the index range)
     */
    public record Slice(long first, int stride, long of) {
        public Slice {
            if (first < 0 || stride < 1 || of < 0) {
                throw new IllegalArgumentException("slice: first ≥ 0, stride ≥ 1, of ≥ 0: " + first + ", " + stride + ", " + of);
            }
        }

        /** How many consecutive items from {@link #first} hold {@code count} of this slice's ({@code count} ≥ 1). */
        public long span(long count) {
            return count <= 0 ? 0 : (count - 1) * stride + 1;
        }

        /** This slice's items of a span loaded from {@link #first}: every {@code stride}-th, from the span's first. */
        public <T> List<T> pick(List<T> span) {
            if (stride == 1) return span;
            return new java.util.AbstractList<>() {
                @Override
                public T get(int j) {
                    return span.get(j * stride);
                }

                @Override
                public int size() {
                    return (int) (((long) span.size() + stride - 1) / stride); // a level's prompts may be "endless"
                }
            };
        }
    }

    /**
     * Where the run's files go and which.
     *
     * @param root            one folder per point under it
     * @param progressTracker write {@code progress.json} as the run goes
     * @param logEvery        without a terminal, a progress line every this many requests ({@link Layout#points})
     * @param arguments       the run's arguments as {@code benchmark_args.json} writes them (evalscope's keys, secrets
     *                        masked); each point fills in its own load keys. Null = no such file
     * @param layout          how the points' files are laid out; null (a spec written before it existed) = points
     */
    public record Outputs(Path root, boolean progressTracker, int logEvery, ObjectNode arguments, Layout layout) {
        public Outputs(Path root) {
            this(root, false, 100, null, Layout.points);
        }

        /** Outputs in the {@link Layout#points} layout ({@code perf}'s). */
        public Outputs(Path root, boolean progressTracker, int logEvery, ObjectNode arguments) {
            this(root, progressTracker, logEvery, arguments, Layout.points);
        }

        public Outputs {
            arguments = arguments == null ? null : arguments.deepCopy();
            if (layout == null) layout = Layout.points;
        }

        /** These outputs in {@code layout}. */
        public Outputs with(Layout layout) {
            return new Outputs(root, progressTracker, logEvery, arguments, layout);
        }

        @Override
        public ObjectNode arguments() {
            return arguments == null ? null : arguments.deepCopy();
        }
    }

    /**
     * How a run's points lay out their files ({@code engine.SpecPoints}). {@code points} ({@code perf}'s): each point's
     * files in {@code ROOT/LABEL/}, {@code requests.jsonl} timed from the point's start, a progress line every
     * {@code log_every} requests, the prompts' length figures. {@code series} (a scenario file's): the points of one
     * target × workload are a series, in {@code ROOT/TARGET/WORKLOAD/LEVEL/} (LEVEL: the label after
     * {@code TARGET/WORKLOAD/}), {@code requests.jsonl} timed from the series' start, one progress line per point, and
     * the series' overall figures and token counts for its report; the whole spec runs as one session.
     */
    public enum Layout { points, series }

    /** The run history: {@code enabled} false = {@code --no-db}; {@code db} null = the default location. */
    public record History(boolean enabled, String db, List<String> tags) {
        public History {
            tags = List.copyOf(tags);
        }
    }
}
