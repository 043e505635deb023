package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.TlsOptions;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.Sla;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link PerfOptions} validated and resolved: defaults filled in, the URL completed, the sweep paired.
 * Every problem is a {@link BadInputException} naming the flag.
 */
record PerfSettings(
        boolean embeddedSimulator,
        String url,
        String model,
        ApiFormat format,
        String apiKey,
        Map<String, String> headers,
        List<Integer> parallel,
        List<Integer> number,
        List<Double> rate,
        Duration duration,
        int sleepIntervalSeconds,
        GenerationParams generation,
        long seed,
        String dataset,
        int minPromptLength,
        int maxPromptLength,
        boolean defaultLoad,
        boolean openLoop) {

    static final List<Integer> SIM_DEFAULT_PARALLEL = List.of(1, 8, 32);
    static final List<Integer> SIM_DEFAULT_NUMBER = List.of(8, 64, 400);
    static final String SIM_MODEL = "unibench-sim";
    private static final ObjectMapper JSON = new ObjectMapper();

    static PerfSettings resolve(PerfOptions o, Map<String, String> env) {
        boolean sim = o.url == null || o.url.equals("sim");
        String model = o.model != null ? o.model : sim ? SIM_MODEL : null;
        if (model == null) throw new BadInputException("--model is required with --url (the model name the server serves)");
        if (model.isBlank()) throw new BadInputException("--model '" + model + "': must not be empty");
        ApiFormat api = ApiFormat.ofApiName(o.api);
        if (api == null) {
            String why = switch (o.api) {
                // evalscope's own plugins of these names: say why they are missing rather than only "unknown"
                case "dashscope" -> " (evalscope's DashScope plugin: use DashScope's OpenAI-compatible endpoint, "
                        + ".../compatible-mode/v1, with --api openai)";
                case "custom" -> " (evalscope's custom plugin is Python code of the user's; none can be loaded here)";
                default -> "";
            };
            throw new BadInputException("--api '" + o.api + "': not supported" + why + "; one of "
                    + String.join(", ", ApiFormat.API_NAMES));
        }
        String url = sim ? null : completeUrl(o.url, api);
        ApiFormat format = api;
        if (api == ApiFormat.CHAT) {
            if (url != null && !url.endsWith("chat/completions") && url.endsWith("/completions")) format = ApiFormat.COMPLETIONS;
            if (Boolean.FALSE.equals(o.applyChatTemplate) || o.tokenizePrompt) {
                format = ApiFormat.COMPLETIONS;
                if (url != null && url.endsWith("chat/completions")) {
                    url = url.substring(0, url.length() - "chat/completions".length()) + "completions";
                }
            }
        } else if (o.applyChatTemplate != null) {
            throw new BadInputException("--" + (o.applyChatTemplate ? "" : "no-") + "apply-chat-template: applies to "
                    + "--api openai only (messages to chat/completions or a prompt to completions)");
        } else if (o.tokenizePrompt) {
            throw new BadInputException("--tokenize-prompt: token-id prompts go to /v1/completions (--api openai); "
                    + "--api " + o.api + " takes text");
        }
        ApiFlags.check(o, format);
        String apiKey = o.apiKey;
        if (apiKey == null && format == ApiFormat.ANTHROPIC) apiKey = env.get("ANTHROPIC_API_KEY");
        if (apiKey == null) apiKey = env.getOrDefault("UNIBENCH_API_KEY", env.get("OPENAI_API_KEY"));

        boolean defaultLoad = sim && o.number == null && o.parallel == null && !o.loads.setsLoad(o);
        List<Integer> number = o.number != null ? o.number : defaultLoad ? SIM_DEFAULT_NUMBER : o.loads.defaultNumber(o);
        List<Integer> parallel = o.parallel != null ? o.parallel : defaultLoad ? SIM_DEFAULT_PARALLEL : List.of(1);
        if (number.size() == 1 && parallel.size() > 1) number = repeat(number.get(0), parallel.size());
        if (parallel.size() == 1 && number.size() > 1) parallel = repeat(parallel.get(0), number.size());
        if (number.size() != parallel.size()) {
            throw new BadInputException("--number has " + number.size() + " values and --parallel "
                    + parallel.size() + "; a sweep pairs them, so give as many of each");
        }
        List<Double> rate = o.rate != null ? o.rate : List.of(-1.0);
        if (rate.size() == 1) rate = repeat(rate.get(0), number.size());
        if (rate.size() != number.size()) {
            throw new BadInputException("--rate has " + rate.size() + " values for " + number.size()
                    + " runs; give one value or one per run");
        }
        // the shared rules of every front end (RunSpec), in perf's words
        SpecRules rules = new SpecRules(SpecPaths.FLAGS);
        for (int i = 0; i < number.size(); i++) {
            rules.point(i, parallel.get(i), number.get(i), rate.get(i), o.duration, o.warmupNum);
        }
        rules.throwFirst();
        rate = o.loads.rates(o, rate, number); // a ramp or a trace sets the rate of every run
        Duration duration = o.duration == null ? null : Duration.ofNanos((long) (o.duration * 1e9));
        int sleep = o.sleepInterval != null ? o.sleepInterval : sim ? 1 : 5;
        rules.pause(0, sleep).throwFirst();

        List<Integer> maxTokens = o.maxTokens != null ? o.maxTokens : List.of(2048);
        int maxMin = maxTokens.get(0);
        int maxMax = maxTokens.size() > 1 ? maxTokens.get(1) : maxMin;
        rules.generation(maxTokens, o.minTokens, o.temperature, o.topP, o.topK)
                .tokenizePrompt(0, o.tokenizePrompt, o.tokenizerPath, sim).throwFirst();
        ObjectNode extra = io.unibench.workload.Json.object("--extra-args", o.extraArgs);
        ObjectNode template = o.queryTemplate == null ? null : io.unibench.workload.Json.object("--query-template", readAt(o.queryTemplate));
        GenerationParams gen = new GenerationParams(model, format, maxMin, maxMax, o.minTokens, o.temperature,
                o.topP, o.topK, o.seed, o.stop == null || o.stop.isEmpty() ? null : List.copyOf(o.stop),
                o.stream, extra, optionalFields(o), template);
        if (o.openLoop) checkOpenLoop(o, rate);

        String dataset = o.prompt != null ? "prompt" : o.dataset != null ? o.dataset
                : o.multiTurn ? "random_multi_turn" : ApiFlags.defaultDataset(format);
        ApiFlags.checkDataset(o, format, dataset);
        boolean random = dataset.startsWith("random");
        int minLen = o.minPromptLength != null ? o.minPromptLength : random ? 128 : 0;
        int maxLen = o.maxPromptLength != null ? o.maxPromptLength : random ? 1024 : 131072;
        if (minLen < 0 || maxLen < minLen) {
            throw new BadInputException("--min-prompt-length " + minLen + " / --max-prompt-length " + maxLen
                    + ": need 0 ≤ MIN ≤ MAX");
        }
        if (o.prefixLength < 0) throw new BadInputException("--prefix-length must be ≥ 0");
        rules.timeouts(0, o.connectTimeout, o.readTimeout, o.totalTimeout).throwFirst();
        checkRanges(o);
        return new PerfSettings(sim, url, model, format, apiKey, o.headerMap(), List.copyOf(parallel),
                List.copyOf(number), List.copyOf(rate), duration, sleep, gen, o.seed == null ? 0 : o.seed,
                dataset, minLen, maxLen, defaultLoad, o.openLoop);
    }

    /**
     * The run these settings describe, against {@code url} (the embedded simulator's once it runs): one target, one
     * workload, one point per sweep entry, the sleep interval between them.
     */
    RunSpec spec(PerfOptions o, String url, TlsOptions tls, String name, Path root, Map<String, String> env,
                 Shard shard, RunSpec.Cancels cancels) {
        RunSpec.ApiKey key = o.apiKey != null ? RunSpec.ApiKey.of(o.apiKey)
                : RunSpec.ApiKey.fromEnv(format == ApiFormat.ANTHROPIC && env.containsKey("ANTHROPIC_API_KEY")
                        ? "ANTHROPIC_API_KEY" : env.containsKey("UNIBENCH_API_KEY") ? "UNIBENCH_API_KEY" : "OPENAI_API_KEY");
        // the open loop has no bound: the pool is as large as the largest run (connections open as needed)
        int peak = (openLoop ? number : parallel).stream().mapToInt(Integer::intValue).max().orElse(1);
        Sla sla = sla(o);
        if (sla != null) peak = Math.max(peak, sla.peakConcurrency()); // a cap: connections open as needed
        RunSpec.Target target = new RunSpec.Target(model, url, embeddedSimulator, model, format, headers, key,
                new RunSpec.Timeouts(seconds(o.connectTimeout), seconds(o.readTimeout), seconds(o.totalTimeout)),
                peak * 2 + 8, tls, !o.noTestConnection, o.simTls, o.limits.price());
        RunSpec.Conversations conversations = !o.multiTurn ? null : new RunSpec.Conversations(o.minTurns, o.maxTurns,
                o.rateMode, o.maxTraces, o.toolLatencyScale, o.multiTurnArgs, o.sweSmithInput, o.numWorkers);
        RunSpec.DatasetOptions datasetOptions = new RunSpec.DatasetOptions(o.datasetOffset, o.prefixLength,
                o.datasetArgs, o.tokenizerPath, o.tokenizePrompt, o.charsPerToken, o.serverTokenize, conversations);
        RunSpec.Workload workload = new RunSpec.Workload(dataset, o.multiTurn, dataset, o.datasetPath, o.prompt,
                minPromptLength, maxPromptLength, generation, datasetOptions);
        List<RunSpec.Point> points = new ArrayList<>();
        long offset = o.datasetOffset;
        for (int i = 0; sla == null && i < number.size(); i++) {
            int n = number.get(i);
            int warmup = warmupCount(o.warmupNum, n);
            // --burstiness, a rate ramp or a trace's times space the paced points' arrivals
            LoadPlan plan = o.loads.shape(openLoop ? LoadPlan.openLoop(n, rate.get(i), duration, warmup)
                    : new LoadPlan(parallel.get(i), n, rate.get(i), duration, warmup), offset);
            offset += n;
            points.add(new RunSpec.Point(plan.label(), 0, 0, plan, Duration.ofSeconds(sleepIntervalSeconds)));
        }
        RunSpec.Outputs outputs = new RunSpec.Outputs(root, o.enableProgressTracker, o.logEveryNQuery,
                ArgsFile.arguments(this, o));
        return new RunSpec(name, List.of(target), List.of(workload), points, sla == null ? List.of() : List.of(sla), shard,
                o.loads.goodputSlo(), cancels,
                outputs, new RunSpec.History(!o.history.noDb, o.history.store.db, o.history.tags), seed, o.limits.limits());
    }

    /** {@code --sla-auto-tune}'s search as the spec's generator of points; null when off. */
    private Sla sla(PerfOptions o) {
        SlaOptions sla = o.loads.sla;
        if (!sla.on()) return null;
        Sla.Variable variable = Sla.Variable.valueOf(sla.variable().name());
        int start = variable == Sla.Variable.parallel
                ? (o.parallel != null ? o.parallel.get(0) : 1)
                : (o.rate != null && o.rate.get(0) > 0 ? (int) Math.round(o.rate.get(0)) : 1);
        // a probe's arrivals: --burstiness's gaps (the search allows no ramp and no trace)
        LoadPlan paced = o.loads.shape(new LoadPlan(1, 1, 1, null, 0), 0);
        return new Sla(variable, sla.params(), start, sla.lower(), sla.upper(), sla.runs(), sla.fixedParallel(),
                sla.multiplier(), o.warmupNum, duration, openLoop, paced.arrivals(),
                Duration.ofSeconds(sleepIntervalSeconds), 0, 0);
    }

    private static Duration seconds(Double s) {
        return s == null ? null : Duration.ofNanos((long) (s * 1e9));
    }

    /** evalscope's optional sampling flags, as body fields in its order; each range is the servers' own. */
    private static ObjectNode optionalFields(PerfOptions o) {
        ObjectNode f = JSON.createObjectNode();
        if (o.frequencyPenalty != null) {
            if (!(o.frequencyPenalty >= -2 && o.frequencyPenalty <= 2)) {
                throw new BadInputException("--frequency-penalty " + o.frequencyPenalty + ": must be in [-2, 2]");
            }
            f.put("frequency_penalty", o.frequencyPenalty);
        }
        if (o.repetitionPenalty != null) {
            if (!(o.repetitionPenalty > 0) || Double.isInfinite(o.repetitionPenalty)) {
                throw new BadInputException("--repetition-penalty " + o.repetitionPenalty + ": must be > 0");
            }
            f.put("repetition_penalty", o.repetitionPenalty);
        }
        if (o.logprobs) f.put("logprobs", true);
        if (o.nChoices != null) {
            if (o.nChoices < 1) throw new BadInputException("--n-choices " + o.nChoices + ": must be ≥ 1");
            f.put("n", o.nChoices);
        }
        List<Integer> stopTokenIds = stopTokenIds(o);
        if (!stopTokenIds.isEmpty()) stopTokenIds.forEach(f.putArray("stop_token_ids")::add);
        return f;
    }

    /** --stop-token-ids as integers ≥ 0; a value that is none is named with the flag. */
    static List<Integer> stopTokenIds(PerfOptions o) {
        if (o.stopTokenIds == null) return List.of();
        List<Integer> ids = new java.util.ArrayList<>();
        for (String text : o.stopTokenIds) {
            int id;
            try {
                id = Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                throw new BadInputException("--stop-token-ids '" + text + "': not a token id (an integer ≥ 0)");
            }
            if (id < 0) throw new BadInputException("--stop-token-ids " + id + ": token ids are ≥ 0");
            ids.add(id);
        }
        return ids;
    }

    /** evalscope's open loop: a schedule for every run, no concurrency bound, no conversations. */
    private static void checkOpenLoop(PerfOptions o, List<Double> rate) {
        if (o.multiTurn) {
            throw new BadInputException("--open-loop does not apply to --multi-turn (evalscope runs no conversation "
                    + "then); for conversations arriving at a rate use --rate-mode arrival --rate R");
        }
        for (double r : rate) {
            if (r <= 0) throw new BadInputException("--open-loop needs --rate > 0 for every run (requests start on its schedule)");
        }
    }

    /** A flag's value, or the text of the file it names as {@code @FILE}. */
    private static String readAt(String value) {
        if (!value.startsWith("@")) return value;
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of(value.substring(1)));
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            throw new BadInputException("--query-template '" + value + "': cannot read: "
                    + (e instanceof java.io.IOException io ? BadInputException.reason(io) : e.getMessage()));
        }
    }

    /** The flags whose values have a range or must not be empty; each message names the flag and the value. */
    private static void checkRanges(PerfOptions o) {
        if (o.datasetOffset < 0) throw new BadInputException("--dataset-offset " + o.datasetOffset + ": must be ≥ 0");
        if (o.logEveryNQuery < 1) throw new BadInputException("--log-every-n-query " + o.logEveryNQuery + ": must be ≥ 1");
        if (o.numWorkers != null && o.numWorkers < 0) {
            throw new BadInputException("--num-workers " + o.numWorkers + ": must be ≥ 1, or 0 for the default");
        }
        notBlank("--name", o.name);
        notBlank("--outputs-dir", o.outputsDir);
        notBlank("--dataset", o.dataset);
        notBlank("--dataset-path", o.datasetPath);
        notBlank("--tokenizer-path", o.tokenizerPath);
        o.history.tags.forEach(t -> notBlank("--tag", t));
        if (o.stop != null) o.stop.forEach(t -> {
            if (t.isEmpty()) throw new BadInputException("--stop '': a stop sequence must not be empty");
        });
        if (o.datasetArgs != null) io.unibench.workload.Json.object("--dataset-args", o.datasetArgs);
        if (o.multiTurnArgs != null) io.unibench.workload.Json.object("--multi-turn-args", o.multiTurnArgs);
        io.unibench.engine.AgenticFlags.estimate(o.charsPerToken); // --chars-per-token
        io.unibench.engine.AgenticFlags.toolLatencyScale(o.toolLatencyScale);
    }

    private static void notBlank(String flag, String value) {
        if (value != null && value.isBlank()) throw new BadInputException(flag + " '" + value + "': must not be empty");
    }

    /**
     * How the client checks https servers: --ca-cert read now, so a missing or broken file fails before anything
     * starts. Against the embedded simulator with --sim-tls the caller trusts the certificate it makes instead.
     */
    static TlsOptions tls(PerfOptions o, boolean embeddedSimulator) {
        if (o.simTls && !embeddedSimulator) {
            throw new BadInputException("--sim-tls: applies to the embedded simulator only (no --url, or --url sim)");
        }
        if (o.caCert != null && o.insecure) {
            throw new BadInputException("--ca-cert and --insecure: give one (--insecure checks no certificate at all)");
        }
        if (o.caCert != null && o.simTls) {
            throw new BadInputException("--ca-cert with --sim-tls: the simulator's certificate is made at start and "
                    + "trusted as it is");
        }
        if (o.insecure) return new TlsOptions(List.of(), true);
        if (o.caCert == null) return TlsOptions.DEFAULT;
        try {
            return new TlsOptions(TlsOptions.readCertificates(o.caCert), false);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--ca-cert " + o.caCert + ": " + e.getMessage());
        }
    }

    /** evalscope's warmup rule: ≥1 a count, 0<x<1 a share of number (at least 1). */
    static int warmupCount(double warmup, int number) {
        return Sla.warmupCount(warmup, number);
    }

    /** Appends /v1/chat/completions (or the missing part of it) when the URL names no endpoint. */
    static String completeUrl(String raw) {
        return completeUrl(raw, ApiFormat.CHAT);
    }

    /**
     * Appends the API's endpoint ({@code /v1/responses}, ...; or the missing part of it) when the URL names none, as
     * evalscope does; a URL naming chat/completions for another API is turned to that API's endpoint (evalscope
     * does so for the Responses API).
     */
    static String completeUrl(String raw, ApiFormat api) {
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new BadInputException("--url '" + raw + "': not a URL (" + e.getReason() + ")");
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new BadInputException("--url '" + raw + "': expected http(s)://host[:port]/path");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String trimmed = raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw;
        String endpoint = api.path().substring("/v1/".length()); // chat/completions, responses, messages, ...
        if (api != ApiFormat.CHAT && path.endsWith("/chat/completions") && uri.getRawQuery() == null) {
            return raw.substring(0, raw.length() - "chat/completions".length()) + endpoint;
        }
        for (String known : List.of("chat/completions", "completions", "responses", "embeddings", "reranks", "rerank",
                "messages")) {
            if (path.endsWith(known)) return raw;
        }
        if (path.endsWith("/v1") || path.endsWith("/v1/")) return trimmed + "/" + endpoint;
        return trimmed + api.path();
    }


    private static <T> List<T> repeat(T value, int n) {
        List<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) list.add(value);
        return list;
    }
}
