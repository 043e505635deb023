package io.unibench.sim;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The reply of an embeddings or rerank request, once its prefill ran: for embeddings OpenAI's {@code list} of
 * {@code embedding} objects ({@link #DIMENSIONS} floats each, the same for the same input index), for
 * rerank vLLM's {@code results} ({@code index}, {@code relevance_score}, best first); both with
 * {@code usage.prompt_tokens} and {@code total_tokens} (no output tokens). The single token the engine generated to
 * finish the pass is not sent. malformed-json cuts the body in half; a failure after admission answers 500.
 */
final class InputOnlyResponder implements GenerationSink {
    /** Floats per embedding: the size of common embedding models (bge-large, e5-large), so bodies weigh as theirs. */
    static final int DIMENSIONS = 1024;

    private final ChannelHandlerContext ctx;
    private final com.fasterxml.jackson.databind.ObjectMapper mapper;
    private final WireApi api;
    private final boolean keepAlive;
    private final String model;
    private final int inputs;
    private final int promptTokens;
    private boolean malformed;

    InputOnlyResponder(ChannelHandlerContext ctx, com.fasterxml.jackson.databind.ObjectMapper mapper, WireApi api,
                       boolean keepAlive, String model, int inputs, int promptTokens, FaultSpec fault) {
        this.ctx = ctx;
        this.mapper = mapper;
        this.api = api;
        this.keepAlive = keepAlive;
        this.model = model;
        this.inputs = inputs;
        this.promptTokens = promptTokens;
        this.malformed = fault.is(FaultKind.MALFORMED_SSE);
    }

    @Override public void cachedTokens(int cached) {}

    @Override public void admitted() {}

    @Override public void firstToken() {}

    @Override public void token(int choice, byte[] word) {}

    @Override public void malformed() {
        malformed = true;
    }

    @Override public void choiceFinished(int choice, String finishReason) {}

    @Override public void flush() {}

    @Override public void completed(int completionTokens, EngineTimings timings) {
        StringBuilder sb = new StringBuilder(api == WireApi.EMBEDDINGS ? inputs * DIMENSIONS * 12 + 256 : 256 + inputs * 64);
        if (api == WireApi.EMBEDDINGS) {
            sb.append("{\"object\":\"list\",\"data\":[");
            for (int i = 0; i < inputs; i++) {
                if (i > 0) sb.append(',');
                sb.append("{\"object\":\"embedding\",\"index\":").append(i).append(",\"embedding\":[");
                vector(sb, i);
                sb.append("]}");
            }
            sb.append("],");
        } else {
            sb.append("{\"id\":\"rerank-").append(Long.toHexString(System.nanoTime())).append("\",\"results\":[");
            for (int i = 0; i < inputs; i++) { // documents in their order, scores falling: best first
                if (i > 0) sb.append(',');
                sb.append("{\"index\":").append(i).append(",\"relevance_score\":").append(1.0 / (i + 1)).append('}');
            }
            sb.append("],");
        }
        sb.append("\"model\":").append(WireFormat.quote(mapper, model)).append(",\"usage\":{\"prompt_tokens\":")
                .append(promptTokens).append(",\"total_tokens\":").append(promptTokens).append("}}");
        String json = sb.toString();
        if (malformed) json = json.substring(0, json.length() / 2);
        WireFormat.sendJson(ctx, HttpResponseStatus.OK, json, keepAlive);
    }

    /** Floats that depend only on the input's index: cheap, deterministic, of realistic size on the wire. */
    private static void vector(StringBuilder sb, int index) {
        double scale = 3 * Math.sqrt(DIMENSIONS);
        for (int d = 0; d < DIMENSIONS; d++) {
            if (d > 0) sb.append(',');
            sb.append((float) ((((d * 31 + index * 17) % 7) - 3) / scale));
        }
    }

    @Override public void failed(ApiException error) {
        WireFormat.sendError(ctx, mapper, error, keepAlive);
    }
}
