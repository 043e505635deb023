package io.unibench.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

/**
 * The HTTP front of one connection: routes requests, runs one exchange at a time (pipelined requests wait in order,
 * as HTTP/1.1 requires), and cancels the running generation when the client disconnects.
 * All state is confined to the channel's event loop.
 */
final class SimHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String CHAT_PATH = "/v1/chat/completions";
    private static final String COMPLETIONS_PATH = "/v1/completions";

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
        switch (path) {
            case CHAT_PATH, COMPLETIONS_PATH -> {
                if (!HttpMethod.POST.equals(method)) {
                    sendError(methodNotAllowed(method, path), keepAlive);
                    return;
                }
                engine.counters.requestsReceived.increment();
                boolean chat = path.equals(CHAT_PATH);
                byte[] body = ByteBufUtil.getBytes(request.content());
                SimRequest parsed;
                try {
                    parsed = chat ? engine.parser.parseChat(body) : engine.parser.parseCompletion(body);
                } catch (ApiException e) {
                    sendError(e, keepAlive);
                    return;
                }
                startExchange(parsed, keepAlive, arrivalNanos);
            }
            case "/v1/models" -> {
                if (!HttpMethod.GET.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else WireFormat.sendJson(ctx, HttpResponseStatus.OK, modelsJson(), keepAlive);
            }
            case "/health" -> {
                if (!HttpMethod.GET.equals(method)) sendError(methodNotAllowed(method, path), keepAlive);
                else WireFormat.send(ctx, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER, null, keepAlive);
            }
            default -> sendError(ApiException.notFound("Not Found: " + method + " " + path), keepAlive);
        }
    }

    private void startExchange(SimRequest request, boolean keepAlive, long arrivalNanos) {
        Exchange exchange = new Exchange(request, keepAlive, arrivalNanos);
        current = exchange;
        engine.counters.streamsActive.increment();
        // vLLM sends the stream's head at once; the first data frame comes at first-token time.
        if (request.stream()) ctx.writeAndFlush(WireFormat.sseHead(keepAlive), ctx.voidPromise());
        try {
            engine.prepareExecutor.execute(() -> {
                SimEngine.Prepared prepared;
                try {
                    prepared = engine.prepare(request);
                } catch (RuntimeException e) {
                    ctx.executor().execute(() -> exchange.fail(e));
                    return;
                }
                try {
                    ctx.executor().execute(() -> exchange.begin(prepared));
                } catch (RejectedExecutionException e) {
                    engine.release(prepared); // the server is closing
                }
            });
        } catch (RejectedExecutionException e) {
            exchange.fail(e);
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
        WireFormat.sendJson(ctx, HttpResponseStatus.valueOf(e.status()), WireFormat.errorJson(engine.mapper, e), keepAlive);
    }

    private static ApiException methodNotAllowed(HttpMethod method, String path) {
        return new ApiException(405, "MethodNotAllowedError", "Method Not Allowed: " + method + " " + path, null);
    }

    private String modelsJson() {
        ObjectNode root = engine.mapper.createObjectNode();
        root.put("object", "list");
        ObjectNode model = root.putArray("data").addObject();
        model.put("id", engine.config.model());
        model.put("object", "model");
        model.put("created", System.currentTimeMillis() / 1000);
        model.put("owned_by", "unibench");
        model.put("root", engine.config.model());
        return WireFormat.toJson(engine.mapper, root);
    }

    /** One completion request on this connection, from parse to last byte (or to the client's disconnect). */
    private final class Exchange {
        private final SimRequest request;
        private final boolean keepAlive;
        private final long arrivalNanos;
        private SimEngine.Prepared prepared;
        private Generation generation;
        private boolean ended;

        Exchange(SimRequest request, boolean keepAlive, long arrivalNanos) {
            this.request = request;
            this.keepAlive = keepAlive;
            this.arrivalNanos = arrivalNanos;
        }

        /** Prompt counted and cache consulted: set up the output and its timers. */
        void begin(SimEngine.Prepared p) {
            if (ended) {
                engine.release(p);
                return;
            }
            prepared = p;
            SimCounters counters = engine.counters;
            counters.promptTokens.add(p.promptTokens());
            counters.cachedTokens.add(p.cachedTokens());
            boolean chat = request.chat();
            String id = engine.newId(chat);
            long created = System.currentTimeMillis() / 1000;
            int choices = p.choices().length;
            boolean report = engine.config.reportCachedTokens();
            GenerationSink sink = request.stream()
                    ? new SseResponder(ctx, chat, keepAlive, id, created, WireFormat.quote(engine.mapper, request.model()),
                    choices, request.includeUsage(), p.promptTokens(), p.cachedTokens(), report)
                    : new JsonResponder(ctx, engine.mapper, chat, keepAlive, id, created, request.model(), choices,
                    p.promptTokens(), p.cachedTokens(), report);
            LatencyModel latency = engine.latency;
            long readyNanos;
            if (request.stream()) {
                readyNanos = latency.firstTokenDelayNanos(p.promptTokens(), p.cachedTokens());
            } else {
                int longest = 0;
                for (OutputGenerator.ChoiceOutput c : p.choices()) longest = Math.max(longest, c.length);
                readyNanos = latency.totalNanos(p.promptTokens(), p.cachedTokens(), longest);
            }
            generation = new Generation(ctx.executor(), p.choices(), engine.output, sink,
                    latency.interTokenDelayNanos(), request.stream(), this::completed);
            // Delays count from arrival, so time spent tokenizing is part of the modelled prefill, not added to it.
            generation.start(arrivalNanos + readyNanos - System.nanoTime());
        }

        private void completed() {
            if (ended) return;
            ended = true;
            engine.counters.generationTokens.add(generation.emitted());
            engine.counters.streamsActive.decrement();
            engine.release(prepared);
            // The sink writes the response's last bytes after this returns; the next pipelined request goes after.
            ctx.executor().execute(SimHttpHandler.this::exchangeDone);
        }

        /** The client went away: stop the timers at once and count the stream as cancelled. */
        void cancel() {
            if (ended) return;
            ended = true;
            if (generation != null) engine.counters.generationTokens.add(generation.cancel());
            if (prepared != null) engine.release(prepared);
            engine.counters.streamsActive.decrement();
            engine.counters.streamsCancelled.increment();
            current = null;
        }

        /** The request could not be prepared (a bug or a closing server): answer 500. */
        void fail(Throwable cause) {
            if (ended) return;
            ended = true;
            engine.counters.streamsActive.decrement();
            ApiException error = new ApiException(500, "InternalServerError", "Simulator error: " + cause, null);
            if (ctx.channel().isActive()) {
                if (request.stream()) SseResponder.fail(ctx, WireFormat.errorJson(engine.mapper, error), keepAlive);
                else sendError(error, keepAlive);
            }
            exchangeDone();
        }
    }
}
