package io.unibench.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The HTTP front of one connection: routes requests, answers injected faults, hands completions to the engine and
 * writes what the engine produced. One exchange at a time (pipelined requests wait in order, as HTTP/1.1
 * requires); a client disconnect cancels the running sequence. All state is confined to the channel's event loop.
 */
final class SimHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final SimEngine engine;
    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Exchange current;
    /** A response said Connection: close; later pipelined requests are dropped with the connection. */
    private boolean closing;

    SimHttpHandler(SimEngine engine) {
        super(false); // we release requests ourselves: pipelined ones are kept until their turn
        this.engine = engine;
    }

    @Override public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (closing) {
            request.release();
            return;
        }
        if (current != null) {
            pending.add(request);
            return;
        }
        try {
            handle(request, System.nanoTime());
        } finally {
            request.release();
        }
    }

    @Override public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (current != null) current.cancel();
        FullHttpRequest r;
        while ((r = pending.poll()) != null) r.release();
        super.channelInactive(ctx);
    }

    @Override public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // I/O errors (reset by peer, ...): channelInactive does the accounting
    }

    private void handle(FullHttpRequest request, long arrivalNanos) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!keepAlive) closing = true;
        if (request.decoderResult().isFailure()) {
            sendError(ApiException.badRequest(null, "Malformed HTTP request: " + request.decoderResult().cause()), false);
            return;
        }
        String uri = request.uri();
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        HttpMethod method = request.method();
        WireApi api = WireApi.ofPath(path);
        if (api != null) {
            if (!HttpMethod.POST.equals(method)) {
                sendError(methodNotAllowed(method, path), keepAlive);
                return;
            }
            engine.metrics.requestsReceived.increment();
            byte[] body = ByteBufUtil.getBytes(request.content());
            SimRequest parsed;
            FaultSpec fault;
            try {
                if (api == WireApi.MESSAGES && !request.headers().contains("anthropic-version")) {
                    throw ApiException.badRequest(null, "anthropic-version: header is required");
                }
                parsed = engine.parser.parse(api, body);
                fault = engine.faults.plan(request.headers().get(FaultPlanner.HEADER));
                checkModel(parsed.model());
            } catch (ApiException e) {
                sendError(e, keepAlive);
                return;
            }
            if (engine.overloadLatched) {
                sendError(new ApiException(503, "ServiceUnavailableError", "The server is overloaded "
                        + "(misbehaviour latch-overload: it stays so until restart).", null), keepAlive);
                return;
            }
            if (fault.kind() != null) engine.metrics.fault(fault.kind());
            if (fault.kind() != null && fault.kind().immediate()) immediateFault(parsed, fault, keepAlive);
            else startExchange(parsed, fault, keepAlive, arrivalNanos);
            return;
        }
        switch (path) {
            case "/tokenize" -> {
                if (!HttpMethod.POST.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else tokenize(ByteBufUtil.getBytes(request.content()), keepAlive);
            }
            case "/v1/models" -> {
                if (!HttpMethod.GET.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else WireFormat.sendJson(ctx, HttpResponseStatus.OK, modelsJson(), keepAlive);
            }
            case "/props" -> { // llama.cpp's server properties, served when the context is told there
                if (!"props".equals(engine.config.scheduling().contextAdvertised())) {
                    sendError(ApiException.notFound("Not Found: " + method + " " + path), keepAlive);
                } else if (!HttpMethod.GET.equals(method)) {
                    sendError(methodNotAllowed(method, path), keepAlive);
                } else {
                    WireFormat.sendJson(ctx, HttpResponseStatus.OK, propsJson(), keepAlive);
                }
            }
            case "/health" -> {
                if (!HttpMethod.GET.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else WireFormat.send(ctx, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER, null, keepAlive);
            }
            case "/metrics" -> {
                if (!HttpMethod.GET.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else WireFormat.send(ctx, HttpResponseStatus.OK,
                        Unpooled.copiedBuffer(engine.metrics.prometheus(engine.config.model()), StandardCharsets.UTF_8),
                        "text/plain; version=0.0.4; charset=utf-8", keepAlive);
            }
            default -> sendError(ApiException.notFound("Not Found: " + method + " " + path), keepAlive);
        }
    }

    /**
     * {@code POST /tokenize}: the prompt's token ids with the simulator's tokenizer, in a body both clients read:
     * vLLM's {@code {"count", "max_model_len", "tokens"}}, whose {@code tokens} is all llama.cpp sends. Off the event
     * loop, as a completion's tokenization is; answered in order (the next pipelined request waits).
     */
    private void tokenize(byte[] body, boolean keepAlive) {
        current = new Exchange(null, FaultSpec.NONE, keepAlive, 0); // holds later pipelined requests back
        try {
            engine.prepareExecutor.execute(() -> {
                String json;
                HttpResponseStatus status = HttpResponseStatus.OK;
                try {
                    int[] ids = engine.tokenizer.encode(engine.parser.tokenizeText(body));
                    ObjectNode root = engine.mapper.createObjectNode();
                    root.put("count", ids.length);
                    root.put("max_model_len", engine.config.scheduling().maxModelLen());
                    var tokens = root.putArray("tokens");
                    for (int id : ids) tokens.add(id);
                    json = WireFormat.toJson(engine.mapper, root);
                } catch (ApiException e) {
                    json = WireFormat.errorJson(engine.mapper, e);
                    status = HttpResponseStatus.valueOf(e.status());
                }
                String reply = json;
                HttpResponseStatus answer = status;
                onLoop(() -> {
                    WireFormat.sendJson(ctx, answer, reply, keepAlive);
                    exchangeDone();
                });
            });
        } catch (RejectedExecutionException e) {
            current = null;
            sendError(new ApiException(503, "ServiceUnavailableError", "The server is shutting down.", null), keepAlive);
        }
    }

    private List<String> servedModels() {
        List<String> models = new ArrayList<>();
        models.add(engine.config.model());
        for (String m : engine.config.scheduling().allowedModels()) if (!models.contains(m)) models.add(m);
        return models;
    }

    private void checkModel(String model) {
        if (engine.config.scheduling().allowedModels().isEmpty() || servedModels().contains(model)) return;
        throw unknownModel(model);
    }

    private ApiException unknownModel(String model) {
        return new ApiException(400, "BadRequestError", "The model `" + model + "` does not exist. Supported models: "
                + String.join(", ", servedModels()), "model", "model_not_found", Map.of());
    }

    /** Faults answered at once, without the engine. */
    private void immediateFault(SimRequest request, FaultSpec fault, boolean keepAlive) {
        String retry = Integer.toString(fault.retryAfterS());
        switch (fault.kind()) {
            case HTTP_429 -> sendError(new ApiException(429, "insufficient_quota", "You exceeded your current quota, "
                    + "please check your plan and billing details.", null, "insufficient_quota",
                    Map.of("Retry-After", retry, "x-ratelimit-remaining-requests", "0",
                            "x-ratelimit-reset-requests", retry + "s")), keepAlive);
            case HTTP_500 -> sendError(new ApiException(500, "InternalServerError",
                    "The server had an error while processing your request (injected fault).", null), keepAlive);
            case HTTP_502 -> WireFormat.send(ctx, HttpResponseStatus.BAD_GATEWAY, Unpooled.copiedBuffer(
                    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway"
                            + "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
                    StandardCharsets.US_ASCII), "text/html", keepAlive);
            case HTTP_503 -> sendError(new ApiException(503, "ServiceUnavailableError",
                    "The server is overloaded or not ready yet.", null, null, Map.of("Retry-After", retry)), keepAlive);
            case HTTP_401 -> sendError(new ApiException(401, "AuthenticationError", "Incorrect API key provided.",
                    null, "invalid_api_key", Map.of()), keepAlive);
            case REDIRECT -> WireFormat.send(ctx, HttpResponseStatus.FOUND, Unpooled.copiedBuffer(
                    "<html><body>Moved to /v2/chat/completions</body></html>\r\n", StandardCharsets.US_ASCII),
                    "text/html", keepAlive, Map.of("Location", "/v2/chat/completions"));
            case UNKNOWN_MODEL -> sendError(unknownModel(request.model()), keepAlive);
            case CONTENT_POLICY -> sendError(new ApiException(400, "BadRequestError", "Your request was rejected as "
                    + "a result of our safety system: the prompt may contain content that is not allowed by our "
                    + "usage policies.", request.chat() ? "messages" : "prompt", "content_policy_violation", Map.of()),
                    keepAlive);
            case ERROR_BODY -> WireFormat.sendJson(ctx, HttpResponseStatus.OK, WireFormat.errorJson(engine.mapper,
                    new ApiException(500, "InternalServerError", "Upstream model error (injected fault).", null)),
                    keepAlive);
            case EMPTY_CHOICES -> emptyChoices(request, keepAlive);
            case HANG_BEFORE_HEADERS -> current = new Exchange(null, fault, keepAlive, 0); // never answered
            case HANG_AFTER_HEADERS -> {
                current = new Exchange(null, fault, keepAlive, 0);
                HttpResponse head = request.stream() ? WireFormat.sseHead(keepAlive)
                        : new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                if (!request.stream()) {
                    head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                    HttpUtil.setTransferEncodingChunked(head, true);
                }
                ctx.writeAndFlush(head, ctx.voidPromise());
            }
            default -> throw new IllegalStateException("not an immediate fault: " + fault.kind());
        }
    }

    private void emptyChoices(SimRequest request, boolean keepAlive) {
        String id = engine.newId(request.chat());
        String object = request.chat() ? (request.stream() ? "chat.completion.chunk" : "chat.completion") : "text_completion";
        String json = "{\"id\":\"" + id + "\",\"object\":\"" + object + "\",\"created\":"
                + System.currentTimeMillis() / 1000 + ",\"model\":" + WireFormat.quote(engine.mapper, request.model())
                + ",\"choices\":[],\"usage\":" + WireFormat.usageJson(0, 0, 0, false) + "}";
        if (!request.stream()) {
            WireFormat.sendJson(ctx, HttpResponseStatus.OK, json, keepAlive);
            return;
        }
        WireFormat.send(ctx, HttpResponseStatus.OK, Unpooled.copiedBuffer("data: " + json + "\n\ndata: [DONE]\n\n",
                StandardCharsets.UTF_8), "text/event-stream", keepAlive);
    }

    private void startExchange(SimRequest request, FaultSpec fault, boolean keepAlive, long arrivalNanos) {
        Exchange exchange = new Exchange(request, fault, keepAlive, arrivalNanos);
        current = exchange;
        engine.metrics.streamsActive.increment();
        Outbox outbox = engine.outbox(ctx.executor());
        try {
            engine.prepareExecutor.execute(() -> {
                Sequence seq;
                SimEngine.Planned planned;
                try {
                    planned = engine.plan(request);
                    seq = engine.sequence(request, planned, fault, arrivalNanos, outbox, exchange);
                } catch (ApiException e) {
                    onLoop(() -> exchange.refuse(e, "too_long"));
                    return;
                } catch (RuntimeException e) {
                    onLoop(() -> exchange.refuse(new ApiException(500, "InternalServerError",
                            "Simulator error: " + e, null), null));
                    return;
                }
                onLoop(() -> exchange.submit(seq, planned));
            });
        } catch (RejectedExecutionException e) {
            exchange.refuse(new ApiException(503, "ServiceUnavailableError", "The server is shutting down.", null), null);
        }
    }

    private void onLoop(Runnable task) {
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            // the server is closing; the channel goes with it
        }
    }

    /** Called when the current exchange has written its last byte. */
    private void exchangeDone() {
        current = null;
        if (closing || !ctx.channel().isActive()) return;
        FullHttpRequest next;
        while (current == null && !closing && (next = pending.poll()) != null) {
            try {
                handle(next, System.nanoTime());
            } finally {
                next.release();
            }
        }
    }

    private void sendError(ApiException e, boolean keepAlive) {
        if (engine.config.misbehaviour().errorsAs200()) {
            WireFormat.send(ctx, HttpResponseStatus.OK, Unpooled.copiedBuffer(WireFormat.errorJson(engine.mapper, e),
                    StandardCharsets.UTF_8), "application/json", keepAlive);
            return;
        }
        WireFormat.sendError(ctx, engine.mapper, e, keepAlive);
    }

    private static ApiException methodNotAllowed(HttpMethod method, String path) {
        return new ApiException(405, "MethodNotAllowedError", "Method Not Allowed: " + method + " " + path, null);
    }

    private String modelsJson() {
        ObjectNode root = engine.mapper.createObjectNode();
        root.put("object", "list");
        var data = root.putArray("data");
        for (String id : servedModels()) {
            ObjectNode model = data.addObject();
            model.put("id", id);
            model.put("object", "model");
            model.put("created", System.currentTimeMillis() / 1000);
            model.put("owned_by", "unibench");
            model.put("root", id);
            if ("models".equals(engine.config.scheduling().contextAdvertised())) {
                model.put("max_model_len", engine.config.scheduling().maxModelLen());
            }
        }
        return WireFormat.toJson(engine.mapper, root);
    }

    /** llama.cpp's {@code GET /props}: the slots' context ({@code n_ctx}) and their count. */
    private String propsJson() {
        ObjectNode root = engine.mapper.createObjectNode();
        ObjectNode settings = root.putObject("default_generation_settings");
        settings.put("n_ctx", engine.config.scheduling().maxModelLen());
        settings.put("model", engine.config.model());
        root.put("total_slots", engine.config.scheduling().maxNumSeqs());
        root.put("model_path", engine.config.model());
        return WireFormat.toJson(engine.mapper, root);
    }

    /** One completion request on this connection, from parse to last byte (or to the client's disconnect). */
    private final class Exchange implements Sequence.Delivery {
        private final SimRequest request;
        private final FaultSpec fault;
        private final boolean keepAlive;
        private final long arrivalNanos;
        private Sequence seq;
        private OutputGenerator.ChoiceOutput[] choices;
        private GenerationSink sink;
        private int written;
        private boolean admitted;
        private boolean ended;

        Exchange(SimRequest request, FaultSpec fault, boolean keepAlive, long arrivalNanos) {
            this.request = request;
            this.fault = fault;
            this.keepAlive = keepAlive;
            this.arrivalNanos = arrivalNanos;
        }

        /** Prompt counted and output planned: hand the sequence to the engine, or refuse when the queue is full. */
        void submit(Sequence s, SimEngine.Planned planned) {
            if (ended) return;
            seq = s;
            choices = planned.choices();
            String id = engine.newId(request.api());
            long created = System.currentTimeMillis() / 1000;
            boolean report = engine.config.reportCachedTokens();
            String modelJson = WireFormat.quote(engine.mapper, request.model());
            SimConfig.Misbehaviour bad = engine.config.misbehaviour(); // unibench check's failing servers
            boolean streamed = request.stream() && !fault.is(FaultKind.JSON_REPLY);
            String fingerprint = bad.rotateFingerprint() ? engine.newFingerprint() : null;
            sink = switch (request.api()) {
                case CHAT, COMPLETIONS -> streamed
                        ? new SseResponder(ctx, request.chat(), keepAlive, id, created, modelJson, choices.length,
                                request.includeUsage() && !bad.omitUsage(), planned.promptTokens(), report, fault,
                                engine.mapper, engine.config.debugSendTimes(), engine.config.debugSendTimesInText(),
                                bad.bufferStream(), fingerprint).reasoning(engine.config.reasoning())
                        : new JsonResponder(ctx, engine.mapper, request.api(), keepAlive, id, created, request.model(),
                                choices.length, planned.promptTokens(), report, fault, bad.omitUsage())
                                .withFingerprint(fingerprint);
                case RESPONSES -> streamed
                        ? new ResponsesSseResponder(ctx, keepAlive, id, created, modelJson, planned.promptTokens(), report, fault)
                                .reasoning(engine.config.reasoning().share() > 0)
                        : new JsonResponder(ctx, engine.mapper, request.api(), keepAlive, id, created, request.model(),
                                choices.length, planned.promptTokens(), report, fault, false);
                case MESSAGES -> streamed
                        ? new AnthropicSseResponder(ctx, keepAlive, id, modelJson, planned.promptTokens(), report, fault)
                                .reasoning(engine.config.reasoning().share() > 0)
                        : new JsonResponder(ctx, engine.mapper, request.api(), keepAlive, id, created, request.model(),
                                choices.length, planned.promptTokens(), report, fault, false);
                case EMBEDDINGS, RERANK -> new InputOnlyResponder(ctx, engine.mapper, request.api(), keepAlive,
                        request.model(), choices.length, planned.promptTokens(), fault);
            };
            if (!engine.submit(s)) {
                if (engine.config.misbehaviour().latchOverload()) engine.overloadLatched = true;
                int retry = engine.config.scheduling().retryAfterS();
                refuse(new ApiException(429, "RateLimitError", "The server's request queue is full ("
                        + engine.config.scheduling().maxQueue() + " waiting); retry later.", null, null,
                        Map.of("Retry-After", Integer.toString(retry))), "queue_full");
            }
        }

        /** The reasoning tokens a choice starts with ({@link SimConfig.Reasoning}); 0 without reasoning. */
        private int reasoningTokens(OutputGenerator.ChoiceOutput choice) {
            return engine.config.reasoning().tokensOf(choice.length);
        }

        /** Event loop: write what the engine published since the last delivery. */
        @Override public void deliver(Sequence s) {
            if (ended) return;
            Sequence.End end = s.end; // read before the steps: the scheduler publishes steps first, then the end
            int steps = s.publishedSteps;
            if (!admitted && s.admitted) {
                admitted = true;
                sink.cachedTokens(s.publishedCachedTokens);
                sink.admitted();
            }
            if (end == Sequence.End.QUEUE_TIMEOUT || end == Sequence.End.SHUTDOWN && !admitted) {
                int retry = engine.config.scheduling().retryAfterS();
                finish();
                sendError(new ApiException(503, "ServiceUnavailableError", end == Sequence.End.SHUTDOWN
                        ? "The server is shutting down." : "The request waited longer than "
                        + SimMetrics.num(engine.config.scheduling().maxQueueWaitMs()) + " ms for a slot; retry later.",
                        null, null, Map.of("Retry-After", Integer.toString(retry))), keepAlive);
                exchangeDone();
                return;
            }
            boolean malformedJson = fault.is(FaultKind.MALFORMED_JSON);
            for (int k = written + 1; k <= steps; k++) {
                if (k == 1) sink.firstToken();
                if (malformedJson && k == fault.afterChunks() + 1) sink.malformed();
                for (int c = 0; c < choices.length; c++) {
                    OutputGenerator.ChoiceOutput choice = choices[c];
                    if (k > choice.length) continue;
                    byte[] word = engine.output.word(choice.nextWord());
                    if (k == choice.length && choice.lastTokenBytes >= 0) {
                        word = java.util.Arrays.copyOf(word, choice.lastTokenBytes);
                    }
                    if (word.length > 0) {
                        if (k <= reasoningTokens(choice)) sink.reasoningToken(c, word);
                        else sink.token(c, word);
                    }
                    boolean cut = end != Sequence.End.NONE && end != Sequence.End.FINISHED && k == steps;
                    if (k == choice.length && !cut) sink.choiceFinished(c, choice.finishReason);
                }
            }
            if (malformedJson && steps > 0 && steps <= fault.afterChunks() && end == Sequence.End.FINISHED) {
                sink.malformed(); // a reply shorter than after_chunks is still broken
            }
            written = steps;
            switch (end) {
                case NONE -> sink.flush();
                case FINISHED -> {
                    finish(); // accounting first: counters are current by the time the client reads the last byte
                    int reasoning = 0;
                    for (OutputGenerator.ChoiceOutput choice : choices) {
                        reasoning += Math.min(reasoningTokens(choice), Math.min(steps, choice.length));
                    }
                    sink.reasoningTokens(reasoning);
                    sink.completed(s.tokensAfter(steps), engine.config.llamacppTimings() ? s.timings : null);
                    exchangeDone();
                }
                case FAULT_FAIL, SHUTDOWN -> {
                    finish();
                    sink.failed(new ApiException(500, "InternalServerError", end == Sequence.End.SHUTDOWN
                            ? "The server is shutting down." : "Generation failed after " + steps
                            + " chunks (injected fault).", null));
                    exchangeDone();
                }
                case FAULT_DISCONNECT -> {
                    finish();
                    sink.flush();
                    // once the chunks so far are on the wire: a reset, not a clean close
                    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                        ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                        ctx.close();
                    });
                }
                case QUEUE_TIMEOUT -> throw new IllegalStateException("handled above");
            }
        }

        private void finish() {
            ended = true;
            engine.metrics.streamsActive.decrement();
        }

        /** Refused before or instead of running: a 4xx/5xx (too long for the model, queue full, server closing). */
        void refuse(ApiException e, String reason) {
            if (ended) return;
            finish();
            if (reason != null) engine.metrics.rejected(reason);
            if (ctx.channel().isActive()) sendError(e, keepAlive);
            exchangeDone();
        }

        /** The client went away: the engine drops the sequence at its next step. */
        void cancel() {
            if (request == null) { // a hang fault: nothing runs
                current = null;
                return;
            }
            if (ended) return;
            ended = true;
            SimConfig.Misbehaviour bad = engine.config.misbehaviour();
            if (seq != null && !bad.ignoreCancel()) engine.cancel(seq);
            if (bad.leakCancelled()) engine.metrics.leakedRunning.increment();
            engine.metrics.streamsActive.decrement();
            engine.metrics.streamsCancelled.increment();
            current = null;
        }
    }
}
