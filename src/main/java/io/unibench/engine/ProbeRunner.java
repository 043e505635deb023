package io.unibench.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.client.RawReply;
import io.unibench.client.RequestBodyBuilder;
import io.unibench.metrics.RequestRecord;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;

import java.io.UncheckedIOException;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's path for a validation suite's single-request probes ({@code unibench check}): the one client (made
 * here, from the target's {@link ClientConfig}), request bodies built as every run builds them
 * ({@link RequestBodyBuilder} from a prompt and {@link GenerationParams}), and every request a {@link RequestRecord}
 * ({@link RecordFactory}). Two shapes of probe:
 * <ul>
 *   <li>one request ({@link #send}, {@link #sendAsync}): its {@link ClientResult} (what the probe judges: text, usage,
 *   finish reason) with its record;</li>
 *   <li>a raw request ({@link #raw}): what a benchmark request never is (a malformed body, a {@code GET} of
 *   {@code /v1/models}, a stream's bytes read as they came), through the same client ({@link LlmClient#raw}).</li>
 * </ul>
 * Load (bursts, the concurrency ramp, recovery's levels) is not sent here: it is the points of a session
 * ({@link ProbeSession}). No folders, files or live events: a probe's figures are its record's and the caller's
 * verdict.
 */
public final class ProbeRunner implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = 1234;

    private final LlmClient client;
    private final RequestBodyBuilder bodies = new RequestBodyBuilder();
    private final RecordFactory records = new RecordFactory(Tokenizers.defaultTokenizer(), false);
    private final AtomicLong sequence = new AtomicLong();

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
        return client.send(r.body(), r.stream(), r.requestId(), cancel).thenApply(result ->
                new Reply(result, records.record(r.sequence(), r, result, io.unibench.Moments.ABSENT, epochMillis)));
    }

    /**
     * {@code method} to {@code path} beside the endpoint with {@code body} as is; waits for the reply, kept whole.
     * Not a completion, so no record.
     */
    public RawReply raw(String method, String path, byte[] body, boolean stream) {
        return client.raw(method, path, body, stream).join();
    }

    @Override
    public void close() {
        client.close();
    }

    private PreparedRequest prepared(String text, GenerationParams params, String tag) {
        Prompt prompt = ProbeSession.userMessage(text);
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
}
