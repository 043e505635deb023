package io.unibench.sim;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Settings of the simulated LLM server. All times are in milliseconds. Every field is also a knob of
 * {@code unibench sim} and of its profile files, by the names in {@link SimKnobs}.
 *
 * @param host                bind address (loopback by default: the simulator is a local test target)
 * @param port                TCP port; 0 = an ephemeral port chosen by the OS ({@link SimServer#port()} tells which)
 * @param model               model id listed by {@code /v1/models}; requests may name any model unless
 *                            {@link Scheduling#allowedModels()} is set
 * @param ttftMs              fixed part of the time to first token: API-server overhead before a request reaches
 *                            the scheduler's queue (it does not occupy the engine)
 * @param prefillMsPerToken   engine time per prompt token not served from the prefix cache
 * @param itlMs               decode step time of a lone sequence (the inter-token latency at batch size 1)
 * @param meanOutputTokens    mean of the natural (EOS) output length when {@code ignore_eos} is not set
 * @param seed                seed of the output-length, output-text and fault draws
 * @param blockSize           tokens per KV block (vLLM default 16)
 * @param cacheCapacityBlocks KV-cache size in blocks: bounds admission (each running sequence reserves its blocks)
 *                            and the prefix cache; 0 = unlimited KV and no prefix caching
 * @param reportCachedTokens  emit {@code usage.prompt_tokens_details.cached_tokens} (vLLM's
 *                            {@code --enable-prompt-tokens-details}); the cache still shortens prefill when false
 * @param tokenizer           tokenizer name for {@code io.unibench.tokenizer.Tokenizers#load}
 * @param scheduling          the continuous-batching scheduler
 * @param faults              fault injection by rate
 * @param debugSendTimes      debug only: every streamed chunk carries {@code "unibench_sent_ns"}, the
 *                            {@link System#nanoTime()} at which the simulator wrote it (a client on the same host reads
 *                            the same monotonic clock, so arrival minus this is its timestamp lag)
 * @param debugSendTimesInText debug only: every streamed token's text is {@code " "} + that same stamp instead of a
 *                            word, so an unmodified client records it as content next to its own arrival stamps
 *                            (its token-chunk fast path stays in use, unlike with the extra JSON field)
 * @param llamacppTimings     every reply carries llama.cpp's {@code timings} object with the engine's own figures
 *                            (prefill and decode time, tokens computed and served from the prefix cache)
 * @param connections         when the server closes keep-alive connections
 * @param misbehaviour        deliberate departures from a well-behaved server, for proving that {@code unibench check}
 *                            catches each one; all off by default
 * @param reasoning           a reasoning model's replies: the share of each reply's tokens streamed as reasoning
 *                            first, and the field that carries them
 */
public record SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                        int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                        boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults,
                        boolean debugSendTimes, boolean debugSendTimesInText, boolean llamacppTimings,
                        Connections connections, Misbehaviour misbehaviour, Reasoning reasoning) {

    /** All settings but reasoning (none). */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults,
                     boolean debugSendTimes, boolean debugSendTimesInText, boolean llamacppTimings,
                     Connections connections, Misbehaviour misbehaviour) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes,
                debugSendTimesInText, llamacppTimings, connections, misbehaviour, Reasoning.none());
    }

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
        if (scheduling == null) throw invalid("scheduling", "must not be null");
        if (faults == null) throw invalid("faults", "must not be null");
        if (connections == null) throw invalid("connections", "must not be null");
        if (misbehaviour == null) throw invalid("misbehaviour", "must not be null");
        if (reasoning == null) throw invalid("reasoning", "must not be null");
    }

    /** All settings but the misbehaviours (none). */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults,
                     boolean debugSendTimes, boolean debugSendTimesInText, boolean llamacppTimings,
                     Connections connections) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes,
                debugSendTimesInText, llamacppTimings, connections, Misbehaviour.none());
    }

    /** All settings but the connection closing ones (connections kept open). */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults,
                     boolean debugSendTimes, boolean debugSendTimesInText, boolean llamacppTimings) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes,
                debugSendTimesInText, llamacppTimings, Connections.keepOpen());
    }

    /** All settings but llama.cpp timings (off). */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults,
                     boolean debugSendTimes, boolean debugSendTimesInText) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes,
                debugSendTimesInText, false);
    }

    /** All settings but the debug ones and llama.cpp timings (off). */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer, Scheduling scheduling, Faults faults) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, false, false);
    }

    /** The first simulator's twelve settings, with the default scheduler and no faults. */
    public SimConfig(String host, int port, String model, double ttftMs, double prefillMsPerToken, double itlMs,
                     int meanOutputTokens, long seed, int blockSize, int cacheCapacityBlocks,
                     boolean reportCachedTokens, String tokenizer) {
        this(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize,
                cacheCapacityBlocks, reportCachedTokens, tokenizer, Scheduling.defaults(), Faults.none());
    }

    /**
     * Loopback, ephemeral port, a fast small-model profile (20 ms TTFT overhead, 0.02 ms prefill per token, 5 ms
     * decode step), 256 sequences in a batch, 1M tokens of KV, cl100k_base, no faults.
     */
    public static SimConfig defaults() {
        return new SimConfig("127.0.0.1", 0, "unibench-sim", 20, 0.02, 5, 64, 0, 16, 65_536, true, "cl100k_base");
    }

    /**
     * The continuous-batching scheduler.
     *
     * @param maxNumSeqs           most sequences (choices) running at once (vLLM {@code --max-num-seqs})
     * @param maxNumBatchedTokens  token budget of one step: one per decoding sequence, the rest for prefill chunks
     *                             (vLLM {@code --max-num-batched-tokens})
     * @param maxModelLen          prompt + max output tokens above this is a 400 (vLLM {@code --max-model-len})
     * @param maxQueue             requests waiting (not yet running) beyond this are answered 429 at once
     * @param maxQueueWaitMs       a request that waited longer is answered 503 (0 = no limit)
     * @param retryAfterS          {@code Retry-After} of the scheduler's 429/503 answers
     * @param decodeMsPerSeq       decode step time added per running sequence beyond the first
     * @param decodeMsPer1kContext decode step time added per 1,000 tokens of context summed over the batch
     * @param prefixCaching        whether prompts reuse cached KV blocks (vLLM {@code --enable-prefix-caching})
     * @param allowedModels        model ids a request may name (the served model is always allowed); empty = any
     * @param contextAdvertised    where {@code maxModelLen} is told: {@code models} ({@code /v1/models}'
     *                             {@code max_model_len}, as vLLM), {@code props} ({@code /props}'
     *                             {@code default_generation_settings.n_ctx}, as llama.cpp) or {@code none}
     */
    public record Scheduling(int maxNumSeqs, int maxNumBatchedTokens, int maxModelLen, int maxQueue,
                             double maxQueueWaitMs, int retryAfterS, double decodeMsPerSeq,
                             double decodeMsPer1kContext, boolean prefixCaching, List<String> allowedModels,
                             String contextAdvertised) {
        /** The ways {@link #contextAdvertised} may take. */
        public static final List<String> CONTEXT_ADVERTISED = List.of("models", "props", "none");

        public Scheduling(int maxNumSeqs, int maxNumBatchedTokens, int maxModelLen, int maxQueue,
                          double maxQueueWaitMs, int retryAfterS, double decodeMsPerSeq,
                          double decodeMsPer1kContext, boolean prefixCaching, List<String> allowedModels) {
            this(maxNumSeqs, maxNumBatchedTokens, maxModelLen, maxQueue, maxQueueWaitMs, retryAfterS, decodeMsPerSeq,
                    decodeMsPer1kContext, prefixCaching, allowedModels, "models");
        }

        public Scheduling {
            if (!CONTEXT_ADVERTISED.contains(contextAdvertised)) {
                throw invalid("contextAdvertised", "must be one of " + String.join(", ", CONTEXT_ADVERTISED) + ", got "
                        + contextAdvertised);
            }
            if (maxNumSeqs < 1) throw invalid("maxNumSeqs", "must be >= 1, got " + maxNumSeqs);
            if (maxNumBatchedTokens < 1) throw invalid("maxNumBatchedTokens", "must be >= 1, got " + maxNumBatchedTokens);
            if (maxModelLen < 1) throw invalid("maxModelLen", "must be >= 1, got " + maxModelLen);
            if (maxQueue < 1) throw invalid("maxQueue", "must be >= 1, got " + maxQueue);
            requireTime("maxQueueWaitMs", maxQueueWaitMs);
            if (retryAfterS < 0) throw invalid("retryAfterS", "must be >= 0, got " + retryAfterS);
            requireTime("decodeMsPerSeq", decodeMsPerSeq);
            requireTime("decodeMsPer1kContext", decodeMsPer1kContext);
            allowedModels = List.copyOf(allowedModels);
        }

        public static Scheduling defaults() {
            return new Scheduling(256, 8192, 131_072, 10_000, 60_000, 1, 0.01, 0, true, List.of());
        }
    }

    /**
     * When the server ends keep-alive connections, as real servers and gateways do; each is off by default.
     *
     * @param closeAfterReply    close right after every reply while its headers say keep-alive (llama.cpp's server)
     * @param keepaliveTimeoutMs close a connection idle this long after its last reply (nginx {@code
     *                           keepalive_timeout}, uvicorn {@code --timeout-keep-alive}, load balancers); 0 = never
     * @param keepaliveRequests  the K-th reply on a connection says {@code Connection: close} and the connection is
     *                           closed after it (nginx {@code keepalive_requests}); 0 = no limit
     */
    public record Connections(boolean closeAfterReply, long keepaliveTimeoutMs, int keepaliveRequests) {
        public Connections {
            if (keepaliveTimeoutMs < 0) throw invalid("connections.keepaliveTimeoutMs", "must be >= 0");
            if (keepaliveRequests < 0) throw invalid("connections.keepaliveRequests", "must be >= 0");
        }

        public static Connections keepOpen() {
            return new Connections(false, 0, 0);
        }
    }

    /**
     * Faults drawn per request (at most one per request, from one seeded draw).
     *
     * @param rates             probability of each fault; their sum must not exceed 1
     * @param firstChunkDelayMs delay of slow-first-chunk
     * @param chunkDelayMs      gap of slow-chunks
     * @param afterChunks       chunks sent before fail-midstream, disconnect and malformed-json strike
     * @param retryAfterS       {@code Retry-After} of injected 429 and 503
     */
    public record Faults(Map<FaultKind, Double> rates, long firstChunkDelayMs, long chunkDelayMs, int afterChunks,
                         int retryAfterS) {
        public Faults {
            EnumMap<FaultKind, Double> copy = new EnumMap<>(FaultKind.class);
            double sum = 0;
            for (Map.Entry<FaultKind, Double> e : rates.entrySet()) {
                double r = e.getValue();
                if (!(r >= 0 && r <= 1)) throw invalid("faults.rate." + e.getKey().id(), "must be in 0..1, got " + r);
                if (r > 0) copy.put(e.getKey(), r);
                sum += r;
            }
            if (sum > 1 + 1e-9) throw invalid("faults.rates", "sum to " + sum + ", more than 1");
            rates = Map.copyOf(copy);
            if (firstChunkDelayMs < 0) throw invalid("faults.firstChunkDelayMs", "must be >= 0");
            if (chunkDelayMs < 0) throw invalid("faults.chunkDelayMs", "must be >= 0");
            if (afterChunks < 0) throw invalid("faults.afterChunks", "must be >= 0");
            if (retryAfterS < 0) throw invalid("faults.retryAfterS", "must be >= 0");
        }

        public static Faults none() {
            return new Faults(Map.of(), 2000, 200, 3, 2);
        }

        public double rate(FaultKind kind) {
            return rates.getOrDefault(kind, 0.0);
        }
    }

    public SimConfig withHost(String v) { return new SimConfig(v, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withPort(int v) { return new SimConfig(host, v, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withModel(String v) { return new SimConfig(host, port, v, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withTtftMs(double v) { return new SimConfig(host, port, model, v, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withPrefillMsPerToken(double v) { return new SimConfig(host, port, model, ttftMs, v, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withItlMs(double v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, v, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withMeanOutputTokens(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, v, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withSeed(long v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, v, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withBlockSize(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, v, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withCacheCapacityBlocks(int v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, v, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withReportCachedTokens(boolean v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, v, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withTokenizer(String v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, v, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withScheduling(Scheduling v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, v, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withDebugSendTimes(boolean v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, v, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withDebugSendTimesInText(boolean v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, v, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withLlamacppTimings(boolean v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, v, connections, misbehaviour, reasoning); }
    public SimConfig withFaults(Faults v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, v, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, misbehaviour, reasoning); }
    public SimConfig withConnections(Connections v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, v, misbehaviour, reasoning); }

    public SimConfig withMisbehaviour(Misbehaviour v) { return new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed, blockSize, cacheCapacityBlocks, reportCachedTokens, tokenizer, scheduling, faults, debugSendTimes, debugSendTimesInText, llamacppTimings, connections, v, reasoning); }

    /**
     * Ways a real server or the gateway in front of it breaks the contract a client relies on. Each is the fault
     * one check of {@code unibench check} exists to catch, so the suite can be shown to fail on it; all off by
     * default. (Missing {@code [DONE]}, a 200 with an error body, an unbounded queue and unreported cached tokens
     * are already knobs: {@code fault-rate-missing-done}, {@code fault-rate-error-body}, {@code max-queue} with
     * {@code max-queue-wait-ms 0}, {@code report-cached-tokens false}.)
     *
     * @param bufferStream     hold every frame of a stream until its end, as a buffering proxy does
     *                         ({@code proxy_buffering on}, compression): the stream arrives in one burst
     * @param omitUsage        never send {@code usage}, whether asked with {@code stream_options.include_usage} or not
     * @param errorsAs200      every error answer (4xx/5xx of validation, scheduler, injected faults) is sent with
     *                         HTTP 200, its body still the error object
     * @param ignoreCancel     a client that disconnects does not stop its generation: it runs to the end
     * @param leakCancelled    a cancelled request stays counted in {@code vllm:num_requests_running} for good (the
     *                         gauge leak of a server that loses aborted requests)
     * @param nondeterministic every request draws a fresh output, so the same prompt at temperature 0 (and the same
     *                         {@code seed}) gives a different text
     * @param ignoreMaxTokens  {@code max_tokens} is not a limit: the reply runs to its natural length (cap 16 x mean)
     * @param ignoreStop       stop strings are not honoured
     * @param ignoreIgnoreEos  {@code ignore_eos} is accepted but not honoured
     * @param latchOverload    once the queue overflowed (a 429), every later completion is refused 503 until restart:
     *                         a server that does not recover
     * @param rotateFingerprint every chat/completions reply carries a {@code system_fingerprint} of its own
     *                         ({@code fp_sim_1}, {@code fp_sim_2}, ...): the server says its backend configuration
     *                         changed between any two replies, as OpenAI's does when it may answer differently (with
     *                         {@code nondeterministic}, the determinism check reports the difference, not fails)
     */
    public record Misbehaviour(boolean bufferStream, boolean omitUsage, boolean errorsAs200, boolean ignoreCancel,
                               boolean leakCancelled, boolean nondeterministic, boolean ignoreMaxTokens,
                               boolean ignoreStop, boolean ignoreIgnoreEos, boolean latchOverload,
                               boolean rotateFingerprint) {
        public static Misbehaviour none() {
            return new Misbehaviour(false, false, false, false, false, false, false, false, false, false, false);
        }
    }

    /**
     * A reasoning model's replies (DeepSeek-R1 style): the first {@code floor(share × tokens)} tokens of each reply
     * are reasoning, streamed before the answer (chat: in {@code delta.<field>}; the Responses API:
     * {@code response.reasoning_text.delta} events; Anthropic: a thinking block), and counted in the usage's
     * {@code reasoning_tokens}. Share 0: no reasoning (the default).
     *
     * @param share share of each reply's tokens that are reasoning, in [0, 1)
     * @param field the chat delta's member: {@code reasoning_content} (DeepSeek, SGLang, older vLLM) or
     *              {@code reasoning} (current vLLM)
     */
    public record Reasoning(double share, String field) {
        /** The chat fields {@link #field} may name. */
        public static final List<String> FIELDS = List.of("reasoning_content", "reasoning");

        public Reasoning {
            if (!(share >= 0 && share < 1)) throw invalid("reasoning.reasoningShare", "must be in [0, 1), got " + share);
            if (!FIELDS.contains(field)) {
                throw invalid("reasoning.reasoningField", "must be one of " + String.join(", ", FIELDS) + ", got " + field);
            }
        }

        public static Reasoning none() {
            return new Reasoning(0, "reasoning_content");
        }

        /** Reasoning tokens of a reply of {@code tokens} tokens. */
        public int tokensOf(int tokens) {
            return (int) Math.floor(share * tokens);
        }
    }

    /**
     * This configuration with knobs changed by name, as in a profile file: {@code with(Map.of("max-num-seqs", 4))}.
     * Values may be numbers, booleans, strings (parsed) or lists.
     *
     * @throws IllegalArgumentException naming the knob when a name is unknown or a value is invalid
     */
    public SimConfig with(Map<String, ?> knobs) {
        return SimKnobs.apply(this, knobs);
    }

    /** One knob changed by name; see {@link #with(Map)}. */
    public SimConfig with(String knob, Object value) {
        return with(Map.of(knob, value));
    }

    /** Every knob's current value, by name, in documentation order. */
    public Map<String, Object> knobValues() {
        return SimKnobs.values(this);
    }

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
