package io.unibench.sim;

/**
 * Settings of the simulated LLM server. All times are in milliseconds.
 *
 * @param host                bind address (loopback by default: the simulator is a local test target)
 * @param port                TCP port; 0 = an ephemeral port chosen by the OS ({@link SimServer#port()} tells which)
 * @param model               model id listed by {@code /v1/models}; requests may name any model, it is echoed back
 * @param ttftMs              fixed part of the time to first token
 * @param prefillMsPerToken   prefill time per prompt token that is not served from the prefix cache
 * @param itlMs               time between two output tokens
 * @param meanOutputTokens    mean of the natural (EOS) output length when {@code ignore_eos} is not set
 * @param seed                seed of the output-length and output-text random draws
 * @param blockSize           tokens per prefix-cache block (vLLM default 16)
 * @param cacheCapacityBlocks prefix-cache capacity in blocks; 0 disables caching
 * @param reportCachedTokens  emit {@code usage.prompt_tokens_details.cached_tokens} (vLLM's
 *                            {@code --enable-prompt-tokens-details}); the cache still shortens prefill when false
 * @param tokenizer           tokenizer name for {@code io.unibench.tokenizer.Tokenizers#load}
 */
public record SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                        int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                        boolean reportCachedTokens, String tokenizer) {

    public SimConfig {
        requireText("host", host);
        if (port < 0 || port > 65_535) throw invalid("port", "must be in 0..65535, got " + port);
        requireText("model", model);
        requireTime("ttftMs", ttftMs);
        requireTime("prefillMsPerToken", prefillMsPerToken);
        requireTime("itlMs", itlMs);
        if (meanOutputTokens < 1) throw invalid("meanOutputTokens", "must be >= 1, got " + meanOutputTokens);
        if (blockSize < 1) throw invalid("blockSize", "must be >= 1, got " + blockSize);
        if (cacheCapacityBlocks < 0) throw invalid("cacheCapacityBlocks", "must be >= 0, got " + cacheCapacityBlocks);
        requireText("tokenizer", tokenizer);
    }

    /** Loopback, ephemeral port, a fast small-model profile (20 ms TTFT, 5 ms ITL), cl100k_base. */
    public static SimConfig defaults() {
        return new SimConfig("127.0.0.1", 0, "unibench-sim", 20, 0.02, 5, 64, 0, 16, 65_536, true, "cl100k_base");
    }

    public SimConfig withHost(String v) { return new SimConfig(v, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withPort(int v) { return new SimConfig(host, v, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withModel(String v) { return new SimConfig(host, port, v, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withTtftMs(double v) { return new SimConfig(host, port, model, v, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withPrefillMsPerToken(double v) { return new SimConfig(host, port, model, ttftMs, v, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withItlMs(double v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, v, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withMeanOutputTokens(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, v, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withSeed(long v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, v, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withBlockSize(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, v, cacheCapacityBlocks, reportCachedTokens, tokenizer); }
    public SimConfig withCacheCapacityBlocks(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, v, reportCachedTokens, tokenizer); }
    public SimConfig withReportCachedTokens(boolean v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, v, tokenizer); }
    public SimConfig withTokenizer(String v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, v); }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) throw invalid(field, "must not be blank");
    }

    private static void requireTime(String field, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw invalid(field, "must be a finite number >= 0, got " + value);
    }

    private static IllegalArgumentException invalid(String field, String problem) {
        return new IllegalArgumentException("SimConfig." + field + " " + problem);
    }
}
