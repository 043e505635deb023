package io.unibench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.client.ClientResult;
import io.unibench.client.Timings;
import io.unibench.client.Usage;
import io.unibench.client.WireTimes;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.ServerTimings;
import io.unibench.metrics.RequestRecord.TokenSource;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.workload.Prompt;

/**
 * Makes the {@link RequestRecord} of a finished request. Token counts come from the server's {@code usage}
 * when it sent one; without it, from llama.cpp's {@code timings} when the reply carried them ({@code prompt_n +
 * cache_n} and {@code predicted_n}: exact, labelled {@link TokenSource#SERVER_TIMINGS}); otherwise they are counted
 * on the client: with the user's {@code --tokenizer-path}
 * (labelled client-counted) or, without one, with the bundled cl100k_base encoding (labelled estimated,
 * since it is not the model's own tokenizer). Client counts cover the message contents only, not the
 * server's chat template, and the prefix-cache figure stays unknown (-1). The cached figure is the usage's (its
 * member kept as its source); without one, llama.cpp's {@code timings.cache_n}. Reasoning tokens are the usage's
 * {@code reasoning_tokens}; without that figure 0 when no reasoning text came, unknown (-1) when some did; counted
 * on the client, the reasoning text's.
 */
public final class RecordFactory {
    /** The source of a cached figure read from llama.cpp's {@code timings} (its usage has none). */
    public static final String LLAMACPP_CACHED = "timings.cache_n";

    private final Tokenizer tokenizer;
    private final TokenSource clientSource;

    /**
     * @param tokenizer     tokenizer for client-side counts
     * @param userTokenizer true when the user chose it (counts are "client tokenizer"), false for the
     *                      bundled fallback (counts are "estimated")
     */
    public RecordFactory(Tokenizer tokenizer, boolean userTokenizer) {
        this.tokenizer = tokenizer;
        this.clientSource = userTokenizer && !tokenizer.isEstimate() ? TokenSource.TOKENIZER : TokenSource.ESTIMATE;
    }

    public RequestRecord record(long index, PreparedRequest request, ClientResult r,
                                long scheduledNanos, long startEpochMillis) {
        int prompt;
        int completion;
        int cached;
        int reasoning = -1;
        String cachedField = null;
        TokenSource source;
        Usage usage = r.usage();
        if (usage != null && usage.promptTokens() >= 0 && usage.completionTokens() >= 0) {
            prompt = usage.promptTokens();
            completion = usage.completionTokens();
            cached = usage.cachedTokens();
            cachedField = usage.cachedField();
            // no figure: none when no reasoning text came (a fact), unknown when some did
            reasoning = usage.reasoningTokens() >= 0 ? usage.reasoningTokens() : r.reasoning().isEmpty() ? 0 : -1;
            if (cached < 0 && r.timings() != null && r.timings().cacheN() >= 0) {
                cached = r.timings().cacheN();
                cachedField = LLAMACPP_CACHED;
            }
            source = TokenSource.SERVER;
        } else if (r.success() && exact(r.timings())) {
            // no usage, but llama.cpp's own counts: exact, labelled as theirs
            Timings t = r.timings();
            prompt = t.promptN() + t.cacheN();
            completion = t.predictedN();
            cached = t.cacheN();
            cachedField = LLAMACPP_CACHED;
            reasoning = r.reasoning().isEmpty() ? 0 : -1;
            source = TokenSource.SERVER_TIMINGS;
        } else if (r.success()) {
            prompt = promptTokens(request.prompt());
            completion = tokenizer.count(r.generatedText());
            reasoning = r.reasoning().isEmpty() ? 0 : tokenizer.count(r.reasoning());
            cached = -1;
            source = clientSource;
        } else {
            prompt = -1;
            completion = -1;
            cached = -1;
            source = clientSource;
        }
        // a success: what arrived, not what was asked (a JSON reply to a streamed request has no TTFT/TPOT/ITL of its
        // own); a failure: what was asked, so a streamed request that failed is counted as a streamed one
        boolean stream = r.success() ? r.stream() : r.stream() || request.stream();
        int target = request.prompt().targetTokens();
        return new RequestRecord(Position.single(index, request.requestId()),
                new Timing(stream, startEpochMillis, scheduledNanos, r.startNanos(), r.headersNanos(),
                        r.firstChunkNanos(), r.firstTokenNanos(), r.endNanos(), r.tokenChunkNanos(),
                        r.firstContentNanos()),
                new Tokens(prompt, completion, cached, cached >= 0 ? RequestRecord.CacheSource.SERVER : null, source,
                        target, target >= 0 ? request.prompt().actualTokens() : -1, cachedField, reasoning),
                new Outcome(r.success(), r.errorClass() == null ? null : r.errorClass().label(), r.httpStatus(),
                        r.errorMessage(), r.errorType(), r.finishReason(), r.retries(), r.retryWaitNanos()),
                phases(r.wire()), serverTimings(r.timings()));
    }

    /** llama.cpp's timings with all three counts: prompt tokens computed and cached, tokens generated. */
    private static boolean exact(Timings t) {
        return t != null && t.promptN() >= 0 && t.cacheN() >= 0 && t.predictedN() >= 0;
    }

    /** A body's input: {@code prompt}, an embedding {@code input} (text or texts), a rerank query and documents. */
    private int bodyInputTokens(JsonNode body) {
        int total = tokenizer.count(body.path("prompt").asText("")) + tokenizer.count(body.path("query").asText(""));
        JsonNode input = body.path("input");
        if (input.isTextual()) total += tokenizer.count(input.asText());
        for (JsonNode text : input.isArray() ? input : body.path("documents")) total += tokenizer.count(text.asText(""));
        return total;
    }

    private static ServerTimings serverTimings(Timings t) {
        return t == null ? null : new ServerTimings(t.promptN(), t.promptMs(), t.predictedN(), t.predictedMs(), t.cacheN());
    }

    private static PhaseTimes phases(WireTimes w) {
        if (w == WireTimes.NONE) return PhaseTimes.NONE;
        return new PhaseTimes(w.connectStartNanos(), w.dnsDoneNanos(), w.connectDoneNanos(), w.tlsDoneNanos(),
                w.writeStartNanos(), w.writtenNanos(), w.firstByteNanos(), w.staleStartNanos());
    }

    private int promptTokens(Prompt p) {
        if (p.text() != null) return tokenizer.count(p.text());
        JsonNode messages = p.messages() != null ? p.messages() : p.body().path("messages");
        if (!messages.isArray()) return bodyInputTokens(p.body());
        int total = 0;
        for (JsonNode m : messages) {
            JsonNode content = m.path("content");
            if (content.isTextual()) {
                total += tokenizer.count(content.asText());
            } else if (content.isArray()) {
                for (JsonNode part : content) total += tokenizer.count(part.path("text").asText(""));
            }
        }
        return total;
    }
}
