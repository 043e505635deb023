package io.unibench.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.util.concurrent.EventExecutor;
import io.unibench.tokenizer.Tokenizer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's shared, HTTP-independent parts: request parsing, prompt token counting, the scheduler with its KV
 * and prefix cache, output planning, fault planning, metrics. Thread-safe.
 */
final class SimEngine implements AutoCloseable {
    final SimConfig config;
    final ObjectMapper mapper = new ObjectMapper();
    final RequestParser parser;
    final Tokenizer tokenizer;
    final PrefixCache cache;
    final OutputGenerator output;
    final SimMetrics metrics = new SimMetrics();
    final FaultPlanner faults;
    final EngineCore core;
    final Scheduler scheduler;
    private final Outbox.Inflight inflight = new Outbox.Inflight();
    private final Map<EventExecutor, Outbox> outboxes = new ConcurrentHashMap<>();
    /** Tokenization is CPU work of up to milliseconds for long prompts: kept off the event loops. */
    final ExecutorService prepareExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private final String idNonce = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicLong fingerprints = new AtomicLong();
    private final long overheadNanos;
    /** Misbehaviour latch-overload: set by the first queue-full refusal, never cleared. */
    volatile boolean overloadLatched;

    SimEngine(SimConfig config, Tokenizer tokenizer) {
        this.config = config;
        this.parser = new RequestParser(mapper, config.model());
        this.tokenizer = tokenizer;
        boolean caching = config.scheduling().prefixCaching() && config.cacheCapacityBlocks() > 0;
        this.cache = caching ? new PrefixCache(config.blockSize(), config.cacheCapacityBlocks()) : null;
        this.output = new OutputGenerator(tokenizer, config.seed(), config.meanOutputTokens(),
                config.misbehaviour());
        this.faults = new FaultPlanner(mapper, config.faults(), config.seed());
        this.overheadNanos = Math.round(config.ttftMs() * 1e6);
        this.core = new EngineCore(config, cache, metrics, seq -> seq.outbox.offer(seq));
        this.scheduler = new Scheduler(core, inflight, "unibench-sim-scheduler");
    }

    Outbox outbox(EventExecutor loop) {
        return outboxes.computeIfAbsent(loop, l -> new Outbox(l, inflight));
    }

    /** The planned output of a request: per choice, what its words are and how long it is. */
    record Planned(int[][] promptIds, OutputGenerator.ChoiceOutput[] choices, int promptTokens) {}

    /** Tokenizes the prompts and plans the outputs; a 400 when the request cannot fit the model or the KV cache. */
    Planned plan(SimRequest request) {
        List<SimRequest.PromptInput> prompts = request.prompts();
        int[][] ids = new int[prompts.size()][];
        OutputGenerator.ChoiceOutput[] choices = new OutputGenerator.ChoiceOutput[prompts.size()];
        int maxLen = config.scheduling().maxModelLen();
        int total = 0;
        long blocks = 0;
        String field = request.chat() ? "messages" : "prompt";
        for (int i = 0; i < choices.length; i++) {
            SimRequest.PromptInput p = prompts.get(i);
            ids[i] = p.tokenIds() != null ? p.tokenIds() : tokenizer.encode(p.text());
            int n = ids[i].length;
            if (n >= maxLen || request.maxTokens() != null && (long) n + request.maxTokens() > maxLen) {
                throw ApiException.badRequest(field, "This model's maximum context length is " + maxLen
                        + " tokens. However, you requested " + (n + (request.maxTokens() == null ? 0 : request.maxTokens()))
                        + " tokens (" + n + " in the " + field + ", " + (request.maxTokens() == null ? 0 : request.maxTokens())
                        + " in the completion). Please reduce the length of the " + field + " or completion.");
            }
            choices[i] = output.plan(request, ids[i], i);
            total += n;
            blocks += ((long) n + choices[i].length + config.blockSize() - 1) / config.blockSize();
        }
        if (config.cacheCapacityBlocks() > 0 && blocks > config.cacheCapacityBlocks()) {
            throw ApiException.badRequest(field, "The request needs " + blocks + " KV blocks (prompt + output); the "
                    + "KV cache has " + config.cacheCapacityBlocks() + ".");
        }
        return new Planned(ids, choices, total);
    }

    Sequence sequence(SimRequest request, Planned planned, FaultSpec fault, long arrivalNanos, Outbox outbox,
                      Sequence.Delivery delivery) {
        int[] lengths = new int[planned.choices().length];
        String[] reasons = new String[lengths.length];
        for (int c = 0; c < lengths.length; c++) {
            lengths[c] = planned.choices()[c].length;
            reasons[c] = planned.choices()[c].finishReason;
        }
        // the sent words' token ids, unless the debug mode replaces the words by send stamps
        Sequence.ReplyTokens reply = config.debugSendTimesInText() ? null
                : (c, count) -> output.tokenIds(planned.choices()[c], count);
        return new Sequence(request, planned.promptIds(), lengths, reasons, fault, arrivalNanos, overheadNanos,
                config.blockSize(), outbox, delivery, reply);
    }

    /** Queues a sequence; false when the queue is full. */
    boolean submit(Sequence seq) {
        if (!core.offer(seq)) return false;
        scheduler.signal();
        return true;
    }

    void cancel(Sequence seq) {
        core.cancel(seq);
        scheduler.signal();
    }

    String newId(boolean chat) {
        return newId(chat ? WireApi.CHAT : WireApi.COMPLETIONS);
    }

    /** A {@code system_fingerprint} of its own for every reply (misbehaviour rotate-fingerprint). */
    String newFingerprint() {
        return "fp_sim_" + fingerprints.incrementAndGet();
    }

    /** A response id with the prefix each API uses. */
    String newId(WireApi api) {
        String prefix = switch (api) {
            case CHAT -> "chatcmpl-";
            case COMPLETIONS -> "cmpl-";
            case RESPONSES -> "resp_";
            case MESSAGES -> "msg_";
            case EMBEDDINGS -> "embd-";
            case RERANK -> "rerank-";
        };
        return prefix + idNonce + Long.toHexString(nextId.incrementAndGet());
    }

    @Override public void close() {
        scheduler.close();
        prepareExecutor.shutdownNow();
    }
}
