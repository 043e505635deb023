package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.WorkloadFingerprint;

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
                    ignoreEos(args), args.path("tokenizer").asText(null));
        }
        return switch (imported) {
            case "evalscope-perf" -> new WorkloadFingerprint("evalscope perf", WorkloadFingerprint.TTFT_FIRST_CHUNK,
                    WorkloadFingerprint.TPOT_AFTER_FIRST, bool(args, "stream"), loop(args), integer(args, "max_tokens"),
                    ignoreEos(args), args.path("tokenizer_path").asText(null));
            case "vllm-bench-serve" -> new WorkloadFingerprint("vLLM bench serve", WorkloadFingerprint.TTFT_FIRST_CHUNK,
                    WorkloadFingerprint.TPOT_AFTER_FIRST, !args.path("backend").asText("").contains("no-stream"),
                    args.path("max_concurrency").isNumber() && isInf(args.path("request_rate")) ? "closed"
                            : args.has("request_rate") ? "open" : null, null, null,
                    args.path("tokenizer_id").asText(null));
            case "aiperf" -> new WorkloadFingerprint("AIPerf", "first parsed response (aiperf ttft_metric.py)",
                    null, null, null, null, null, null);
            case "br-v0.2" -> new WorkloadFingerprint(args.at("/load/standardized/tool").asText("unknown"), null, null,
                    args.at("/load/native/config/api/streaming").isBoolean()
                            ? args.at("/load/native/config/api/streaming").asBoolean() : null,
                    args.at("/load/standardized/rate_qps").isNumber() ? "open" : null, null,
                    args.at("/load/native/config/server/ignore_eos").isBoolean()
                            ? args.at("/load/native/config/server/ignore_eos").asBoolean() : null,
                    args.at("/load/native/config/tokenizer/pretrained_model_name_or_path").asText(null));
            default -> new WorkloadFingerprint(imported, null, null, null, null, null, null, null);
        };
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
