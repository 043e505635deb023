package io.unibench.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.TlsOptions;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
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
        boolean defaultLoad) {

    static final List<Integer> SIM_DEFAULT_PARALLEL = List.of(1, 8, 32);
    static final List<Integer> SIM_DEFAULT_NUMBER = List.of(8, 64, 256);
    static final String SIM_MODEL = "unibench-sim";
    private static final ObjectMapper JSON = new ObjectMapper();

    static PerfSettings resolve(PerfOptions o, Map<String, String> env) {
        boolean sim = o.url == null || o.url.equals("sim");
        String model = o.model != null ? o.model : sim ? SIM_MODEL : null;
        if (model == null) throw new BadInputException("--model is required with --url (the model name the server serves)");
        if (!o.api.equals("openai") && !o.api.equals("local") && !o.api.equals("local_vllm")) {
            throw new BadInputException("--api '" + o.api + "': not supported; use openai");
        }
        String url = sim ? null : completeUrl(o.url);
        ApiFormat format = ApiFormat.CHAT;
        if (url != null && !url.endsWith("chat/completions") && url.endsWith("/completions")) format = ApiFormat.COMPLETIONS;
        if (Boolean.FALSE.equals(o.applyChatTemplate)) {
            format = ApiFormat.COMPLETIONS;
            if (url != null && url.endsWith("chat/completions")) {
                url = url.substring(0, url.length() - "chat/completions".length()) + "completions";
            }
        }
        String apiKey = o.apiKey;
        if (apiKey == null) apiKey = env.getOrDefault("UNIBENCH_API_KEY", env.get("OPENAI_API_KEY"));

        boolean defaultLoad = sim && o.number == null && o.parallel == null;
        List<Integer> number = o.number != null ? o.number : defaultLoad ? SIM_DEFAULT_NUMBER : List.of(1000);
        List<Integer> parallel = o.parallel != null ? o.parallel : defaultLoad ? SIM_DEFAULT_PARALLEL : List.of(1);
        if (number.size() == 1 && parallel.size() > 1) number = repeat(number.get(0), parallel.size());
        if (parallel.size() == 1 && number.size() > 1) parallel = repeat(parallel.get(0), number.size());
        if (number.size() != parallel.size()) {
            throw new BadInputException("--number has " + number.size() + " values and --parallel "
                    + parallel.size() + "; a sweep pairs them, so give as many of each");
        }
        for (int n : number) if (n < 1) throw new BadInputException("--number " + n + ": must be ≥ 1");
        for (int p : parallel) if (p < 1) throw new BadInputException("--parallel " + p + ": must be ≥ 1");
        List<Double> rate = o.rate != null ? o.rate : List.of(-1.0);
        if (rate.size() == 1) rate = repeat(rate.get(0), number.size());
        if (rate.size() != number.size()) {
            throw new BadInputException("--rate has " + rate.size() + " values for " + number.size()
                    + " runs; give one value or one per run");
        }
        for (double r : rate) {
            if (r != -1 && r <= 0) throw new BadInputException("--rate " + r + ": must be > 0, or -1 for none");
        }
        if (o.duration != null && o.duration <= 0) throw new BadInputException("--duration must be > 0 seconds");
        Duration duration = o.duration == null ? null : Duration.ofNanos((long) (o.duration * 1e9));
        int sleep = o.sleepInterval != null ? o.sleepInterval : sim ? 1 : 5;
        if (sleep < 0) throw new BadInputException("--sleep-interval must be ≥ 0");

        List<Integer> maxTokens = o.maxTokens != null ? o.maxTokens : List.of(2048);
        int maxMin = maxTokens.get(0);
        int maxMax = maxTokens.size() > 1 ? maxTokens.get(1) : maxMin;
        if (maxMin < 1 || maxMax < maxMin) {
            throw new BadInputException("--max-tokens " + maxTokens + ": need 1 ≤ MIN ≤ MAX");
        }
        ObjectNode extra = parseExtraArgs(o.extraArgs);
        GenerationParams gen = new GenerationParams(model, format, maxMin, maxMax, o.minTokens, o.temperature,
                o.topP, o.topK, o.seed, o.stop == null || o.stop.isEmpty() ? null : List.copyOf(o.stop),
                o.stream, extra);

        String dataset = o.prompt != null ? "prompt" : o.dataset != null ? o.dataset
                : o.multiTurn ? "random_multi_turn" : "random";
        boolean random = dataset.equals("random") || dataset.equals("random_multi_turn");
        int minLen = o.minPromptLength != null ? o.minPromptLength : random ? 128 : 0;
        int maxLen = o.maxPromptLength != null ? o.maxPromptLength : random ? 1024 : 131072;
        if (minLen < 0 || maxLen < minLen) {
            throw new BadInputException("--min-prompt-length " + minLen + " / --max-prompt-length " + maxLen
                    + ": need 0 ≤ MIN ≤ MAX");
        }
        if (o.prefixLength < 0) throw new BadInputException("--prefix-length must be ≥ 0");
        if (o.totalTimeout <= 0) throw new BadInputException("--total-timeout must be > 0");
        if (o.warmupNum < 0) throw new BadInputException("--warmup-num must be ≥ 0");
        return new PerfSettings(sim, url, model, format, apiKey, o.headerMap(), List.copyOf(parallel),
                List.copyOf(number), List.copyOf(rate), duration, sleep, gen, o.seed == null ? 0 : o.seed,
                dataset, minLen, maxLen, defaultLoad);
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
        if (warmup <= 0) return 0;
        if (warmup >= 1) return (int) warmup;
        return Math.max(1, (int) (warmup * number));
    }

    /** Appends /v1/chat/completions (or the missing part of it) when the URL names no endpoint. */
    static String completeUrl(String raw) {
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
        for (String known : List.of("chat/completions", "completions", "responses", "embeddings", "reranks", "rerank")) {
            if (path.endsWith(known)) return raw;
        }
        if (path.endsWith("/v1") || path.endsWith("/v1/")) return trimmed + "/chat/completions";
        return trimmed + "/v1/chat/completions";
    }

    private static ObjectNode parseExtraArgs(String text) {
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadInputException("--extra-args: invalid JSON (" + e.getOriginalMessage() + ")");
        }
        if (node == null || !node.isObject()) throw new BadInputException("--extra-args: expected a JSON object");
        return (ObjectNode) node;
    }

    private static <T> List<T> repeat(T value, int n) {
        List<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) list.add(value);
        return list;
    }
}
