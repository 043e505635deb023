package io.unibench.scrape;

import java.util.List;

/**
 * The serving engines whose {@code /metrics} names are known, and where each common series comes from. Names are
 * from each project's documentation (vLLM "Production Metrics", SGLang "Production Metrics", TGI's metrics list,
 * llama.cpp's server README); the committed fixtures under {@code src/test/resources/io/unibench/scrape/} follow them.
 *
 * <p>Gauges summed over label sets (several models, data-parallel ranks); the KV-cache use averaged over them.
 * Each series lists its names newest first: vLLM renamed {@code gpu_cache_usage_perc} to {@code kv_cache_usage_perc}
 * and {@code gpu_prefix_cache_*} to {@code prefix_cache_*}. llama.cpp counts the prompt tokens it computed
 * ({@code prompt_tokens_total}, excluding cached) and those it reused ({@code prompt_tokens_cached_total}) apart: its
 * prefix-cache queries are their sum. Recent llama.cpp builds (2026) expose no KV-cache gauge
 * ({@code kv_cache_usage_ratio} was removed), so their KV-cache column stays empty.
 */
public enum ServerEngine {
    VLLM("vLLM", "vllm:num_requests_running",
            List.of("vllm:num_requests_running"), List.of("vllm:num_requests_waiting"),
            List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
            List.of("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"),
            List.of("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"),
            List.of("vllm:gpu_prefix_cache_hit_rate"),
            List.of("vllm:generation_tokens_total"), List.of("vllm:prompt_tokens_total")),
    SGLANG("SGLang", "sglang:num_running_reqs",
            List.of("sglang:num_running_reqs"), List.of("sglang:num_queue_reqs"),
            List.of("sglang:token_usage"),
            List.of(), List.of(), List.of("sglang:cache_hit_rate"),
            List.of("sglang:generation_tokens_total"), List.of("sglang:prompt_tokens_total")),
    TGI("TGI", "tgi_queue_size",
            List.of("tgi_batch_current_size"), List.of("tgi_queue_size"),
            List.of(), List.of(), List.of(), List.of(),
            List.of("tgi_request_generated_tokens_sum"), List.of("tgi_request_input_length_sum")),
    LLAMACPP("llama.cpp", "llamacpp:requests_processing",
            List.of("llamacpp:requests_processing"), List.of("llamacpp:requests_deferred"),
            List.of("llamacpp:kv_cache_usage_ratio"),
            List.of("llamacpp:prompt_tokens_cached_total"), List.of(), List.of(),
            List.of("llamacpp:tokens_predicted_total"), List.of("llamacpp:prompt_tokens_total"));

    private final String label;
    private final String marker;
    final List<String> running;
    final List<String> waiting;
    final List<String> kvUse;
    final List<String> prefixHits;
    final List<String> prefixQueries;
    final List<String> prefixHitRate;
    final List<String> generated;
    final List<String> prompt;

    ServerEngine(String label, String marker, List<String> running, List<String> waiting, List<String> kvUse,
                 List<String> prefixHits, List<String> prefixQueries, List<String> prefixHitRate,
                 List<String> generated, List<String> prompt) {
        this.label = label;
        this.marker = marker;
        this.running = running;
        this.waiting = waiting;
        this.kvUse = kvUse;
        this.prefixHits = prefixHits;
        this.prefixQueries = prefixQueries;
        this.prefixHitRate = prefixHitRate;
        this.generated = generated;
        this.prompt = prompt;
    }

    public String label() { return label; }

    /** The engine whose marker metric the scrape has, or null when none is known. */
    public static ServerEngine detect(Exposition e) {
        for (ServerEngine engine : values()) if (e.has(engine.marker)) return engine;
        return null;
    }

    /** This engine's figures from one scrape; NaN for a series it does not expose. */
    public ServerSample sample(Exposition e, long epochMs) {
        double hits = sum(e, prefixHits);
        double queries = this == LLAMACPP ? hits + sum(e, prompt) : sum(e, prefixQueries);
        return new ServerSample(epochMs, sum(e, running), sum(e, waiting), mean(e, kvUse), hits,
                queries, mean(e, prefixHitRate), sum(e, generated), sum(e, prompt));
    }

    private static double sum(Exposition e, List<String> names) {
        for (String name : names) {
            List<Exposition.Sample> found = e.named(name);
            if (found.isEmpty()) continue;
            double total = 0;
            for (Exposition.Sample s : found) total += s.value();
            return total;
        }
        return Double.NaN;
    }

    private static double mean(Exposition e, List<String> names) {
        for (String name : names) {
            List<Exposition.Sample> found = e.named(name);
            if (!found.isEmpty()) return sum(e, List.of(name)) / found.size();
        }
        return Double.NaN;
    }
}
