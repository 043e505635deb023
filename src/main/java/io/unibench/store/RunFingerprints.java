package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.Summary;
import io.unibench.metrics.WorkloadFingerprint;
import io.unibench.metrics.WorkloadFingerprint.TokenCount;

/**
 * A stored run's {@link WorkloadFingerprint}, read from its configuration: ours and evalscope's
 * ({@code benchmark_args.json}'s keys: {@code stream}, {@code open_loop}, {@code rate}, {@code max_tokens},
 * {@code extra_args.ignore_eos}), and an imported run's source arguments ({@code source_args}) by its tool.
 */
public final class RunFingerprints {
    private RunFingerprints() {}

    public static WorkloadFingerprint of(StoredRun run) {
        JsonNode config = run.config() == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : run.config();
        String imported = config.path("imported_from").asText(null);
        JsonNode args = imported == null ? config : config.path("source_args");
        if (imported == null) {
            return new WorkloadFingerprint("unibench", WorkloadFingerprint.TTFT_FIRST_TOKEN,
                    WorkloadFingerprint.TPOT_AFTER_FIRST, bool(args, "stream"), loop(args), integer(args, "max_tokens"),
                    ignoreEos(args), ours(run, text(args, "tokenizer", "tokenizer_path")),
                    ours(run, text(args, "tokenizer", "tokenizer_path")), evalscopeLengths(args),
                    warmupRequests(args, "warmup_num"), evalscopeDataset(args),
                    // ours draws its prompts from seed 0 when --seed is not given (PerfOptions --seed)
                    args.has("seed") && along(args.path("seed")) == null ? Long.valueOf(0) : along(args.path("seed")));
        }
        return switch (imported) {
            case "evalscope-perf" -> new WorkloadFingerprint("evalscope perf", WorkloadFingerprint.TTFT_FIRST_CHUNK,
                    WorkloadFingerprint.TPOT_AFTER_FIRST, bool(args, "stream"), loop(args), integer(args, "max_tokens"),
                    ignoreEos(args), evalscopeCount(args), evalscopeCount(args), evalscopeLengths(args),
                    warmupRequests(args, "warmup_num"), evalscopeDataset(args), along(args.path("seed")));
            case "vllm-bench-serve" -> new WorkloadFingerprint("vLLM bench serve", WorkloadFingerprint.TTFT_FIRST_CHUNK,
                    WorkloadFingerprint.TPOT_AFTER_FIRST, !args.path("backend").asText("").contains("no-stream"),
                    args.path("max_concurrency").isNumber() && isInf(args.path("request_rate")) ? "closed"
                            : args.has("request_rate") ? "open" : null, null, null,
                    // its input_lens are the dataset's, counted by its tokenizer; output_lens the server's usage
                    // (else its tokenizer on the text): vllm/benchmarks/serve.py calculate_metrics
                    TokenCount.tokenizer(args.path("tokenizer_id").asText(null)),
                    TokenCount.server(fallback(args.path("tokenizer_id").asText(null))));
            case "aiperf" -> new WorkloadFingerprint("AIPerf", "first parsed response (aiperf ttft_metric.py)",
                    args.has("loadgen") ? WorkloadFingerprint.TPOT_AFTER_FIRST : null,
                    args.at("/endpoint/streaming").isBoolean() ? args.at("/endpoint/streaming").asBoolean() : null,
                    args.at("/loadgen/request_rate").isNumber() ? "open"
                            : args.at("/loadgen/concurrency").isNumber() ? "closed" : null,
                    args.at("/input/prompt/output_tokens/mean").isNumber()
                            ? args.at("/input/prompt/output_tokens/mean").asInt() : null, null,
                    aiperfCount(args), aiperfCount(args),
                    WorkloadFingerprint.normalLengths(num(args.at("/input/prompt/input_tokens/mean")),
                            num(args.at("/input/prompt/input_tokens/stddev")), null, null),
                    warmupRequests(args.path("loadgen"), "warmup_request_count"),
                    args.at("/input/file").isTextual() ? args.at("/input/file").asText()
                            : args.at("/input/public_dataset").asText(null),
                    along(args.at("/input/random_seed")));
            case "guidellm" -> guidellm(args);
            case "br-v0.2" -> new WorkloadFingerprint(args.at("/load/standardized/tool").asText("unknown"), null, null,
                    args.at("/load/native/config/api/streaming").isBoolean()
                            ? args.at("/load/native/config/api/streaming").asBoolean() : null,
                    args.at("/load/standardized/rate_qps").isNumber() ? "open" : null, null,
                    args.at("/load/native/config/server/ignore_eos").isBoolean()
                            ? args.at("/load/native/config/server/ignore_eos").asBoolean() : null, null, null);
            default -> new WorkloadFingerprint(imported, null, null, null, null, null, null, null, null);
        };
    }

    /**
     * GuideLLM's report: the current shape's {@code spec} (backend, profile, tokenizer, data, seed) or the 2025
     * shape's first benchmark ({@code args}, {@code request_loader}). TTFT is its first token iteration (a chunk that
     * carried text), TPOT includes the first token.
     */
    private static WorkloadFingerprint guidellm(JsonNode args) {
        JsonNode spec = args.path("spec");
        if (spec.isObject()) {
            JsonNode data = spec.path("data").path(0);
            JsonNode warm = spec.at("/profile/warmup");
            String warmup = warm.path("value").isNumber() ? warm.path("value").asText() + " (" + warm.path("mode").asText("") + ")"
                    : warm.path("percent").isNumber() ? warm.path("percent").asText() + " of the run" : warm.isObject() ? "none" : null;
            String kind = spec.at("/profile/kind").asText("");
            return new WorkloadFingerprint("GuideLLM", WorkloadFingerprint.TTFT_FIRST_TOKEN,
                    WorkloadFingerprint.TPOT_INCLUDING_FIRST, bool(spec.path("backend"), "stream"), guidellmLoop(kind),
                    integer(spec.path("backend"), "max_tokens"), null, GUIDELLM_PROMPT, GUIDELLM_OUTPUT,
                    WorkloadFingerprint.normalLengths(num(data.path("prompt_tokens")), num(data.path("prompt_tokens_stdev")),
                            num(data.path("prompt_tokens_min")), num(data.path("prompt_tokens_max"))),
                    warmup, data.path("kind").asText(null), along(spec.path("seed")));
        }
        JsonNode a = args.path("args");
        String data = args.at("/request_loader/data").asText(null);
        java.util.regex.Matcher prompt = data == null ? null
                : java.util.regex.Pattern.compile("prompt_tokens=(\\d+)").matcher(data);
        boolean noWarmup = a.has("warmup_number") && a.path("warmup_number").isNull() && a.path("warmup_duration").isNull();
        return new WorkloadFingerprint("GuideLLM", WorkloadFingerprint.TTFT_FIRST_TOKEN,
                WorkloadFingerprint.TPOT_INCLUDING_FIRST, null, guidellmLoop(a.at("/profile/type_").asText(
                a.at("/strategy/type_").asText(""))), null, null, GUIDELLM_PROMPT, GUIDELLM_OUTPUT,
                prompt != null && prompt.find() ? "fixed " + prompt.group(1) + " tokens" : null,
                noWarmup ? "none" : null, data, along(a.at("/profile/random_seed")));
    }

    /**
     * GuideLLM counts both from the server's usage; without one, no prompt count and one output token per chunk
     * (src/guidellm/backends/openai/request_handlers.py extract_metrics, schemas/request_stats.py output_tokens).
     */
    private static final TokenCount GUIDELLM_PROMPT = TokenCount.server(null);
    private static final TokenCount GUIDELLM_OUTPUT = TokenCount.server("one token per chunk");

    /**
     * Ours: what the run's points say counted their tokens ({@code Token Count Source}: the server's usage or
     * llama.cpp's own counts, the tokenizer the user chose, an estimate, or a mix), one count for prompt and output
     * alike; null when no point says.
     */
    private static TokenCount ours(StoredRun run, String tokenizer) {
        java.util.Set<String> seen = new java.util.LinkedHashSet<>();
        for (StoredPoint p : run.points()) {
            if (p.summary() != null && p.summary().path(Summary.TOKEN_COUNT_SOURCE).isTextual()) {
                seen.add(p.summary().path(Summary.TOKEN_COUNT_SOURCE).asText());
            }
        }
        if (seen.size() != 1) return seen.isEmpty() ? null : new TokenCount("mixed: " + String.join("; ", seen), null);
        return switch (seen.iterator().next()) {
            case Summary.SOURCE_SERVER, Summary.SOURCE_SERVER_TIMINGS -> TokenCount.server(null);
            case Summary.SOURCE_TOKENIZER -> TokenCount.tokenizer(tokenizer);
            case Summary.SOURCE_ESTIMATE -> new TokenCount(TokenCount.ESTIMATE, null);
            default -> new TokenCount(seen.iterator().next(), null);
        };
    }

    /**
     * evalscope counts both from the server's usage; without one, with its tokenizer ({@code --tokenizer-path}; none:
     * an error): evalscope/perf/plugin/api/openai_api.py parse_responses.
     */
    private static TokenCount evalscopeCount(JsonNode args) {
        return args.isObject() ? TokenCount.server(fallback(text(args, "tokenizer_path"))) : null;
    }

    /**
     * AIPerf counts both with its tokenizer ({@code tokenizer.name}, else the model's), or from the server's usage
     * with {@code endpoint.use_server_token_count}: aiperf/parsers/inference_result_parser.py.
     */
    private static TokenCount aiperfCount(JsonNode args) {
        if (!args.path("endpoint").isObject()) return null;
        if (args.at("/endpoint/use_server_token_count").asBoolean(false)) return TokenCount.server(null);
        return TokenCount.tokenizer(args.at("/tokenizer/name").isTextual() ? args.at("/tokenizer/name").asText()
                : args.at("/endpoint/model_names/0").asText(null));
    }

    private static String fallback(String tokenizer) {
        return tokenizer == null ? null : "tokenizer " + tokenizer;
    }

    /** GuideLLM's profile kinds: a fixed number of streams is closed, a rate open; a sweep is both (unknown). */
    private static String guidellmLoop(String kind) {
        return switch (kind) {
            case "synchronous", "concurrent", "throughput" -> "closed";
            case "constant", "poisson", "async" -> "open";
            default -> null;
        };
    }

    /** evalscope's and our keys: a random dataset's lengths are its min–max; a file's are its own (unknown here). */
    private static String evalscopeLengths(JsonNode args) {
        if (!args.path("dataset").asText("").equals("random")) return null;
        return WorkloadFingerprint.uniformLengths(num(args.path("min_prompt_length")), num(args.path("max_prompt_length")));
    }

    private static String evalscopeDataset(JsonNode args) {
        if (args.path("dataset_path").isTextual()) return args.path("dataset_path").asText();
        if (args.path("prompt").isTextual()) return "one fixed prompt";
        return args.path("dataset").asText(null);
    }

    private static String warmupRequests(JsonNode args, String key) {
        JsonNode n = args.path(key);
        if (n.isArray() && !n.isEmpty()) n = n.get(0);
        if (!n.isNumber()) return null;
        return n.asInt() == 0 ? "none" : n.asInt() + " requests";
    }

    private static Number num(JsonNode n) {
        return n.isNumber() ? n.numberValue() : null;
    }

    private static Long along(JsonNode n) {
        return n.isIntegralNumber() ? n.asLong() : null;
    }

    private static String text(JsonNode args, String... keys) {
        for (String k : keys) if (args.path(k).isTextual()) return args.path(k).asText();
        return null;
    }

    private static boolean isInf(JsonNode n) {
        return n.isTextual() ? n.asText().equals("inf") : n.isNumber() && Double.isInfinite(n.asDouble());
    }

    private static Boolean bool(JsonNode args, String key) {
        return args.path(key).isBoolean() ? args.path(key).asBoolean() : null;
    }

    private static Integer integer(JsonNode args, String key) {
        return args.path(key).isNumber() ? args.path(key).asInt() : null;
    }

    /** evalscope's keys: {@code open_loop} true, or a positive {@code rate}, is open; else closed. */
    private static String loop(JsonNode args) {
        if (args.path("open_loop").asBoolean(false)) return "open";
        if (args.path("rate").isNumber() && args.path("rate").asDouble() > 0) return "open";
        return args.has("open_loop") || args.has("rate") || args.has("parallel") ? "closed" : null;
    }

    private static Boolean ignoreEos(JsonNode args) {
        JsonNode e = args.path("extra_args").path("ignore_eos");
        if (e.isBoolean()) return e.asBoolean();
        return args.path("ignore_eos").isBoolean() ? args.path("ignore_eos").asBoolean() : null;
    }
}
