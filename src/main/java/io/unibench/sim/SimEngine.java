package io.unibench.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.tokenizer.Tokenizer;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's shared, HTTP-independent parts: request parsing, prompt token counting, prefix cache, latency model,
 * output generator, counters. Thread-safe. A later scheduler (continuous batching) replaces the per-request timing
 * here without touching the HTTP front.
 */
final class SimEngine implements AutoCloseable {
    final SimConfig config;
    final ObjectMapper mapper = new ObjectMapper();
    final RequestParser parser;
    final Tokenizer tokenizer;
    final PrefixCache cache;
    final LatencyModel latency;
    final OutputGenerator output;
    final SimCounters counters = new SimCounters();
    /** Tokenization is CPU work of up to milliseconds for long prompts: kept off the event loops so timers stay on time. */
    final ExecutorService prepareExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private final String idNonce = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    private final AtomicLong nextId = new AtomicLong();

    SimEngine(SimConfig config, Tokenizer tokenizer) {
        this.config = config;
        this.parser = new RequestParser(mapper, config.model());
        this.tokenizer = tokenizer;
        this.cache = new PrefixCache(config.blockSize(), config.cacheCapacityBlocks());
        this.latency = LatencyModel.of(config);
        this.output = new OutputGenerator(tokenizer, config.seed(), config.meanOutputTokens());
    }

    /** What a request needs before its first token: token counts, cache hits and the planned output per choice. */
    record Prepared(int promptTokens, int cachedTokens, OutputGenerator.ChoiceOutput[] choices,
                    PrefixCache.Lease[] leases) {}

    /** Tokenizes the prompts and pins their cache blocks; call {@link #release} when the request ends. */
    Prepared prepare(SimRequest request) {
        List<SimRequest.PromptInput> prompts = request.prompts();
        OutputGenerator.ChoiceOutput[] choices = new OutputGenerator.ChoiceOutput[prompts.size()];
        PrefixCache.Lease[] leases = new PrefixCache.Lease[prompts.size()];
        int promptTokens = 0;
        int cachedTokens = 0;
        for (int i = 0; i < choices.length; i++) {
            SimRequest.PromptInput p = prompts.get(i);
            int[] ids = p.tokenIds() != null ? p.tokenIds() : tokenizer.encode(p.text());
            leases[i] = cache.acquire(ids);
            promptTokens += ids.length;
            cachedTokens += leases[i].cachedTokens();
            choices[i] = output.plan(request, ids, i);
        }
        return new Prepared(promptTokens, cachedTokens, choices, leases);
    }

    void release(Prepared prepared) {
        for (PrefixCache.Lease lease : prepared.leases()) cache.release(lease);
    }

    String newId(boolean chat) {
        return (chat ? "chatcmpl-" : "cmpl-") + idNonce + Long.toHexString(nextId.incrementAndGet());
    }

    @Override public void close() {
        prepareExecutor.shutdownNow();
    }
}
