package io.unibench.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.client.RawReply;
import io.unibench.client.RequestBodyBuilder;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's path for a validation suite's probes ({@code unibench check}): the one client (made here, from the
 * target's {@link ClientConfig}), request bodies built as every run builds them ({@link RequestBodyBuilder} from a
 * prompt and {@link GenerationParams}), and every request a {@link RequestRecord} ({@link RecordFactory}). Three
 * shapes of probe:
 * <ul>
 *   <li>one request ({@link #send}, {@link #sendAsync}): its {@link ClientResult} (what the probe judges: text, usage,
 *   finish reason) with its record;</li>
 *   <li>a burst ({@link #burst}, {@link #startBurst}): a closed-loop {@link LoadPlan} point of as many workers as
 *   prompts, run by the engine's point runner ({@link BenchmarkRunner} → {@link ClosedLoop}), its records aggregated
 *   by {@link RunMetrics} (the exact percentiles of {@code metrics.Percentiles}); each request can be abandoned by
 *   its client mid-flight ({@link BurstRun#pending});</li>
 *   <li>a raw request ({@link #raw}): what a benchmark request never is (a malformed body, a {@code GET} of
 *   {@code /v1/models}, a stream's bytes read as they came), through the same client ({@link LlmClient#raw}).</li>
 * </ul>
 * No folders, files or live events: a probe's figures are its records' and the caller's verdict.
 */
public final class ProbeRunner implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = 1234;

    private final LlmClient client;
    private final RequestBodyBuilder bodies = new RequestBodyBuilder();
    private final RecordFactory records = new RecordFactory(Tokenizers.defaultTokenizer(), false);
    private final List<RequestRecord> all = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong bursts = new AtomicLong();

    public ProbeRunner(ClientConfig config) {
        this.client = new LlmClient(config);
    }

    /** One request's wire result and its record. */
    public record Reply(ClientResult result, RequestRecord record) {}

    /** The body a run would send for {@code prompt} (one user message) with {@code params}. */
    public byte[] body(String prompt, GenerationParams params) {
        return prepared(prompt, params, "probe").body();
    }

    /** Sends one request and waits for its reply. */
    public Reply send(String prompt, GenerationParams params) {
        return sendAsync(prompt, params, new CompletableFuture<>()).join();
    }

    /** Sends one request; completing {@code cancel} hangs up, as a client that goes away mid-stream. */
    public CompletableFuture<Reply> sendAsync(String prompt, GenerationParams params, CompletionStage<?> cancel) {
        PreparedRequest r = prepared(prompt, params, "probe");
        long epochMillis = System.currentTimeMillis();
        return client.send(r.body(), r.stream(), r.requestId(), cancel).thenApply(result -> {
            RequestRecord record = records.record(r.sequence(), r, result, io.unibench.Moments.ABSENT, epochMillis);
            all.add(record);
            return new Reply(result, record);
        });
    }

    /**
     * {@code method} to {@code path} beside the endpoint with {@code body} as is; waits for the reply, kept whole.
     * Not a completion, so no record.
     */
    public RawReply raw(String method, String path, byte[] body, boolean stream) {
        return client.raw(method, path, body, stream).join();
    }

    /** A burst run to its end: {@link #startBurst} then {@link BurstRun#await}. */
    public Burst burst(List<String> prompts, GenerationParams params) throws InterruptedException {
        return startBurst(prompts, params).await();
    }

    /**
     * Starts a closed-loop point of {@code prompts.size()} workers, one request each (all at once), in the
     * background; {@link BurstRun#await} gives its records.
     */
    public BurstRun startBurst(List<String> prompts, GenerationParams params) {
        if (prompts.isEmpty()) throw new IllegalArgumentException("a burst of no requests");
        List<Prompt> list = prompts.stream().map(p -> prompt(p)).toList();
        LoadPlan plan = new LoadPlan(list.size(), list.size(), 0, null, 0);
        return new BurstRun(plan, new RequestFactory(list, params, SEED, "check-burst-" + bursts.incrementAndGet()));
    }

    /** Every record of this runner's requests so far (single and burst), in completion order. */
    public List<RequestRecord> records() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** A request of a burst in flight: its id and the stage that abandons it. */
    public record Pending(String requestId, CompletableFuture<ClientResult> reply, CompletableFuture<Void> abandon) {}

    /**
     * What a burst produced: its point, every request's record, the wire results (for what a record does not keep:
     * a refusal's {@code Retry-After}) and the aggregate.
     */
    public record Burst(LoadPlan plan, List<RequestRecord> records, List<ClientResult> results, RunResult summary) {
        /** The first refusal's (429/503) {@code Retry-After} as sent; null when none carried one. */
        public String retryAfter() {
            for (ClientResult r : results) {
                if ((r.httpStatus() == 429 || r.httpStatus() == 503) && r.retryAfter() != null) return r.retryAfter();
            }
            return null;
        }
    }

    /** A burst running in the background. */
    public final class BurstRun {
        private final LoadPlan plan;
        private final List<Pending> pending = Collections.synchronizedList(new ArrayList<>());
        private final List<ClientResult> results = Collections.synchronizedList(new ArrayList<>());
        private final List<RequestRecord> burstRecords = Collections.synchronizedList(new ArrayList<>());
        private final CountDownLatch sent;
        private final CompletableFuture<RunOutcome> done = new CompletableFuture<>();

        private BurstRun(LoadPlan plan, RequestFactory factory) {
            this.plan = plan;
            this.sent = new CountDownLatch(plan.number());
            Sender sender = (body, stream, requestId) -> {
                CompletableFuture<Void> abandon = new CompletableFuture<>();
                CompletableFuture<ClientResult> reply = client.send(body, stream, requestId, abandon);
                pending.add(new Pending(requestId, reply, abandon));
                sent.countDown();
                return reply;
            };
            RequestHooks keep = new RequestHooks() {
                @Override public ClientResult check(ClientResult result) {
                    results.add(result);
                    return result;
                }
            };
            StopSignal stop = new StopSignal();
            RecordSink sink = r -> {
                burstRecords.add(r);
                all.add(r);
            };
            Thread.ofVirtual().name("check-burst").start(() -> {
                try (factory) {
                    done.complete(new BenchmarkRunner(sender, records, stop, keep, Clock.system(stop))
                            .run(plan, factory, List.of(sink), SEED));
                } catch (Throwable e) {
                    done.completeExceptionally(e);
                } finally {
                    while (sent.getCount() > 0) sent.countDown(); // a failed point sends no more
                }
            });
        }

        /** Waits until every request of the burst was sent (handed to the client). */
        public void awaitSent() throws InterruptedException {
            sent.await();
        }

        /** The burst's requests sent so far, in sending order. */
        public List<Pending> pending() {
            synchronized (pending) {
                return List.copyOf(pending);
            }
        }

        /** Waits for every reply; the records and their aggregate. */
        public Burst await() throws InterruptedException {
            try {
                done.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("a burst failed: " + e.getCause(), e.getCause());
            }
            RunMetrics metrics = new RunMetrics();
            List<RequestRecord> out;
            synchronized (burstRecords) {
                out = List.copyOf(burstRecords);
            }
            out.forEach(metrics::accept);
            List<ClientResult> wire;
            synchronized (results) {
                wire = List.copyOf(results);
            }
            return new Burst(plan, out, wire, metrics.result(new RunInfo(plan.label(), plan.parallel(), 0,
                    plan.number())));
        }
    }

    private PreparedRequest prepared(String text, GenerationParams params, String tag) {
        Prompt prompt = prompt(text);
        long seq = sequence.getAndIncrement();
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(bodies.build(params, prompt.messages(), null, null,
                    new SplittableRandom(SEED + seq)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        return new PreparedRequest(seq, "check-" + tag + "-" + seq, body, params.stream(), prompt);
    }

    private static Prompt prompt(String text) {
        ArrayNode messages = JSON.createArrayNode();
        messages.addObject().put("role", "user").put("content", text);
        return Prompt.ofMessages(messages, -1, -1);
    }
}
