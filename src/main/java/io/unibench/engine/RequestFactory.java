package io.unibench.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.client.RequestBodyBuilder;
import io.unibench.workload.Dataset;
import io.unibench.workload.Prompt;

import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Turns the dataset's prompts into request bodies. Prompts are used in order and cycled when the run asks
 * for more requests than the dataset has (evalscope does the same). Each body is built when its request is
 * sent, not all up front, so memory does not grow with {@code --number}; the per-request random draws
 * (e.g. {@code --max-tokens min max}) come from a generator seeded by the request's sequence number, so
 * the same seed gives the same bodies whatever the concurrency.
 *
 * <p>Prompts a dataset synthesizes when asked for ({@code --dataset random}: a few tokenizer rounds each) are
 * prepared ahead by a {@link Prefetcher} thread instead, in a bounded window streamed ahead of the dispatcher (at most
 * {@link #WINDOW_REQUESTS} requests or {@link #WINDOW_BYTES} of bodies waiting), so memory does not grow with
 * {@code --number}. {@link #awaitFirstBatch} before a point's clock starts waits only for the first second or so of
 * its plan; a request the dispatcher reaches before it is ready is a wait, counted ({@link #preparationWaits}).
 * Close the factory to stop the thread.
 */
public final class RequestFactory implements AutoCloseable {
    /** Most requests prepared ahead (the window); about 0.5–1 s of a fast target at c=256. */
    static final int WINDOW_REQUESTS = 4096;
    /** The fewest requests a point's plan keeps prepared ahead ({@link #awaitFirstBatch}: twice its first batch). */
    static final int MIN_AHEAD = 256;
    /** Requests kept prepared ahead until a point's plan says how many ({@link #awaitFirstBatch}). */
    static final int DEFAULT_AHEAD = 1024;
    /** Most body bytes prepared ahead (about twice that in heap with the prompts' text). */
    static final long WINDOW_BYTES = 16L << 20;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Prompts (by index) whose last body is kept for reuse; bounds the cache whatever the dataset size. */
    private static final int CACHED_PROMPTS = 4096;

    private final List<Prompt> prompts;
    private final GenerationParams params;
    private final RequestBodyBuilder builder = new RequestBodyBuilder();
    private final long seed;
    private final String runTag;
    /**
     * The last body built for each of the first prompts, when a body depends on nothing but its prompt (no
     * {@code max_tokens} range to draw from): building it again (a Jackson tree copied and serialised) was 15% of
     * the virtual threads' CPU against a fast server. Reused only for the very same Prompt object, so datasets that
     * synthesize a new prompt on every call simply miss. Racy writes are fine: every entry is complete and valid.
     */
    private final AtomicReferenceArray<CachedBody> cache;

    private final Prefetcher prefetcher;

    private record CachedBody(Prompt prompt, byte[] body, boolean stream) {}

    public RequestFactory(List<Prompt> prompts, GenerationParams params, long seed, String runTag) {
        if (prompts.isEmpty()) throw new IllegalArgumentException("no prompts");
        this.prompts = prompts; // not copied: datasets such as random synthesize each prompt when it is asked for
        this.params = params;
        this.seed = seed;
        this.runTag = runTag;
        boolean synthesized = Dataset.synthesizedOnDemand(prompts);
        this.cache = params.maxTokensMin() == params.maxTokensMax() && !synthesized
                ? new AtomicReferenceArray<>(Math.min(prompts.size(), CACHED_PROMPTS)) : null;
        this.prefetcher = synthesized
                ? new Prefetcher(this::build, prompts.size(), WINDOW_REQUESTS, WINDOW_BYTES) : null;
        if (prefetcher != null) prefetcher.setAhead(DEFAULT_AHEAD);
    }

    /**
     * How many requests a point of {@code plan} waits for before its clock starts: its warm-up and the first second
     * of the plan (the concurrency, or the rate × 1 s when that is more), within the window.
     */
    public static int firstBatch(LoadPlan plan) {
        double perSecond = plan.paced() && Double.isFinite(plan.rate()) ? Math.ceil(plan.rate()) : 0;
        double first = (double) plan.warmup() + Math.max(plan.openLoop() ? 0 : plan.parallel(), perSecond);
        return (int) Math.max(1, Math.min(Math.min(first, (double) plan.warmup() + plan.number()), WINDOW_REQUESTS));
    }

    /**
     * Waits until the first {@link #firstBatch} requests of {@code plan} are prepared (or the window is full, or all
     * are made), and from then on keeps twice that many prepared ahead (at least {@link #MIN_AHEAD}, at most the
     * window); at once without preparing ahead. While that takes longer than a second, {@code progress} gets a line
     * a second (e.g. {@code Preparing requests: 1,024 of 4,096 ready (1 s)}). Rethrows what preparing threw.
     */
    public void awaitFirstBatch(LoadPlan plan, Consumer<String> progress) {
        awaitFirstBatch(plan, progress, () -> false);
    }

    /** As {@link #awaitFirstBatch(LoadPlan, Consumer)}, returning within a second once {@code stopped} says so. */
    public void awaitFirstBatch(LoadPlan plan, Consumer<String> progress, BooleanSupplier stopped) {
        if (prefetcher == null) return;
        int want = Math.min(firstBatch(plan), prefetcher.window());
        // stays about two seconds of the plan ahead: no more made than a short run sends, memory flat in --number
        prefetcher.setAhead(Math.max(MIN_AHEAD, 2 * want));
        long startedNanos = System.nanoTime();
        for (int second = 1; ; second++) {
            long left = startedNanos + second * 1_000_000_000L - System.nanoTime();
            int ready = prefetcher.awaitReady(want, Math.max(left, 1));
            if (ready >= want || System.nanoTime() - startedNanos < second * 1_000_000_000L) return; // done
            if (stopped.getAsBoolean()) return; // Ctrl-C, the web's cancel: the point sends nothing anyway
            progress.accept(String.format(Locale.ROOT, "Preparing requests: %,d of %,d ready (%d s)",
                    ready, want, second));
        }
    }

    /** Waits until the window is full or all requests are made (tests); at once without preparing ahead. */
    void awaitPrefetched() {
        if (prefetcher != null) prefetcher.awaitFilled();
    }

    /**
     * How many requests the dispatcher reached before they were prepared, and how long it waited for them in all
     * (zero without preparing ahead: a body is built when its request is sent).
     */
    public Waits preparationWaits() {
        if (prefetcher == null) return Waits.NONE;
        Prefetcher.Waits w = prefetcher.waits();
        return new Waits(w.count(), w.nanos());
    }

    /**
     * The requests the dispatcher reached before they were prepared.
     *
     * @param count how many
     * @param nanos the dispatcher's time waiting for them (or making them itself), summed
     */
    public record Waits(long count, long nanos) {
        /** Nothing waited: prepared in full, or built as sent. */
        public static final Waits NONE = new Waits(0, 0);

        /** The share of a point's {@code sent} requests above which preparation, not the target, paced the point. */
        public static final double BOUND_SHARE = 0.01;

        /**
         * The verdict's {@code client-bound} figures when more than {@link #BOUND_SHARE} of {@code sent} requests
         * waited for their prompts ("preparation behind the dispatcher: 2,418 of 30,000 requests (8.1 %) waited
         * 3.2 s > 1 %"); null when fewer did.
         */
        public String bound(long sent) {
            if (count == 0 || sent <= 0 || count <= sent * BOUND_SHARE) return null;
            return String.format(java.util.Locale.ROOT, "preparation behind the dispatcher: %,d of %,d requests (%.1f %%) "
                    + "waited %.1f s for their prompts > %.0f %%", count, sent, 100.0 * count / sent, nanos / 1e9,
                    BOUND_SHARE * 100);
        }
    }

    /**
     * The point's summary keys of preparation, when its prompts were prepared ahead: {@code Preparation Waits} (requests
     * not ready when their turn came) and {@code Preparation Wait (s)} (the time the dispatcher waited for them).
     */
    public Map<String, Object> summaryKeys() {
        if (prefetcher == null) return Map.of();
        Waits w = preparationWaits();
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("Preparation Waits", w.count());
        keys.put("Preparation Wait (s)", Math.round(w.nanos() / 1e6) / 1e3);
        return keys;
    }

    /** Stops preparing ahead. */
    @Override
    public void close() {
        if (prefetcher != null) prefetcher.close();
    }

    public GenerationParams params() {
        return params;
    }

    /** The body of the {@code sequence}-th request of the run (0-based, warmup included). */
    public PreparedRequest prepare(long sequence) {
        return prefetcher != null ? prefetcher.take(sequence) : build(sequence);
    }

    private PreparedRequest build(long sequence) {
        int index = (int) (sequence % prompts.size());
        Prompt prompt = prompts.get(index);
        String requestId = runTag + "-" + sequence;
        boolean cacheable = cache != null && index < cache.length();
        if (cacheable) {
            CachedBody cached = cache.get(index);
            if (cached != null && cached.prompt() == prompt) {
                // shared, never written: the client only reads a body
                return new PreparedRequest(sequence, requestId, cached.body(), cached.stream(), prompt);
            }
        }
        SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + sequence);
        ObjectNode body = builder.build(params, prompt.messages(), prompt.text(), prompt.body(), rng);
        boolean stream = body.path("stream").asBoolean(false);
        byte[] bytes = toBytes(body);
        if (cacheable) {
            cache.set(index, new CachedBody(prompt, bytes, stream));
        }
        return new PreparedRequest(sequence, requestId, bytes, stream, prompt);
    }

    /** The connection test: a one-token reply to "hello", stream as configured. */
    public PreparedRequest probe() {
        GenerationParams one = new GenerationParams(params.model(), params.format(), 1, 1, null,
                params.temperature(), null, null, params.seed(), null, params.stream(), null);
        ArrayNode messages = null;
        String text = null;
        ObjectNode rerank = null;
        if (params.format() == ApiFormat.CHAT) {
            messages = JSON.createArrayNode();
            messages.addObject().put("role", "user").put("content", "hello");
        } else if (params.format() == ApiFormat.RERANK) {
            rerank = JSON.createObjectNode().put("query", "hello");
            rerank.putArray("documents").add("hello");
        } else {
            text = "hello";
        }
        ObjectNode body = builder.build(one, messages, text, rerank, new SplittableRandom(seed));
        Prompt prompt = messages != null ? Prompt.ofMessages(messages, -1, -1)
                : rerank != null ? Prompt.ofBody(rerank) : Prompt.ofText(text, -1, -1);
        return new PreparedRequest(-1, runTag + "-probe", toBytes(body), one.stream(), prompt);
    }

    private static byte[] toBytes(ObjectNode body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
