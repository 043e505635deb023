package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.PreferHeapByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.unibench.Secrets;
import io.unibench.net.TlsProvider;
import io.unibench.net.Transport;

import javax.net.ssl.SSLException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's HTTP client: POSTs request bodies to one OpenAI-compatible endpoint over a pool of keep-alive
 * HTTP/1.1 connections and returns what happened on the wire as a {@link ClientResult}.
 *
 * <p>Built on a Netty NIO event loop (one thread per core): streamed replies are parsed as they arrive and every
 * timestamp is taken on the event loop when the bytes arrive, so thousands of concurrent streams cost little and
 * queueing in the caller never shows up as latency. Futures returned by {@link #send} complete on an event loop
 * thread: dependent stages must not block (join them from a virtual thread, or use the {@code *Async} variants).
 *
 * <p>Thread-safe.
 */
public final class LlmClient implements AutoCloseable {

    private static final String USER_AGENT = "unibench";

    private final ClientConfig config;
    private final EventLoopGroup group;
    /** False for a {@link #sibling}: the group is its parent's, which shuts it down. */
    private final boolean ownsGroup;
    /** The host name TLS sends as SNI and checks the certificate for; {@code null} over plain http. */
    private final String tlsHost;
    private final ConnectionPool pool;
    private final ObjectMapper mapper = new ObjectMapper();
    private final DebugLog debug;
    private final RequestHead head;
    /** The Host header of every request (the endpoint's host and, when given, port). */
    private final String hostHeader;
    private final long readTimeoutNanos;
    private final Set<Exchange> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;

    public LlmClient(ClientConfig config) {
        this(config, null, null, System::nanoTime, ConnectionPool.RETIRED_GRACE_NANOS);
    }

    /**
     * A client whose pool reads {@code poolClock} for when replies end and the server closes, and leaves a retired
     * connection {@code retiredGraceNanos} for the server to close ({@link ConnectionPool}; for tests).
     */
    LlmClient(ClientConfig config, java.util.function.LongSupplier poolClock, long retiredGraceNanos) {
        this(config, null, null, poolClock, retiredGraceNanos);
    }

    /**
     * A client on {@code shared}'s event loops ({@code null}: loops of its own) that connects to {@code connectTo}
     * instead of the endpoint's host ({@code null}: the endpoint's; curl's {@code --resolve}).
     */
    private LlmClient(ClientConfig config, EventLoopGroup shared, InetSocketAddress connectTo,
                      java.util.function.LongSupplier poolClock, long retiredGraceNanos) {
        this.config = config;
        URI uri = config.endpoint();
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("endpoint must be an http:// or https:// URL: " + uri);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("endpoint has no host: " + uri);
        }
        validateHeaders(config.headers());
        if (config.maxConnections() < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + config.maxConnections());
        }
        boolean tls = scheme.equals("https");
        String host = uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
        String hostHeader = uri.getPort() > 0 ? hostForHeader(host) + ":" + port : hostForHeader(host);
        this.hostHeader = hostHeader;
        this.head = new RequestHead(pathAndQuery(uri), hostHeader, USER_AGENT, config.headers());
        this.readTimeoutNanos = nanos(config.readTimeout());
        this.debug = new DebugLog(config.debug(), System.err);
        this.tlsHost = tls ? host : null;
        SslContext ssl = tls ? sslContext(config.tls()) : null;
        Transport transport = Transport.best();
        this.ownsGroup = shared == null;
        this.group = shared != null ? shared
                : new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                        new DefaultThreadFactory("unibench-client", true), transport.ioHandlerFactory());
        InetSocketAddress remote = connectTo != null ? connectTo : remoteAddress(host, port);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.socketChannel())
                // NIO: reads land in heap buffers, which the decoders scan in place (the JDK copies out of the
                // socket through a direct buffer anyway). Epoll reads into direct memory whatever the allocator;
                // each read is then copied once into an array (ByteBufArrays).
                .option(ChannelOption.ALLOCATOR, transport == Transport.NIO
                        ? new PreferHeapByteBufAllocator(ByteBufAllocator.DEFAULT) : ByteBufAllocator.DEFAULT)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                // the server's FIN closes the channel at once (Netty's default, stated because the pool relies on it:
                // a half-closed connection is never handed out again)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, false)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, millis(config.connectTimeout())))
                .remoteAddress(remote)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        initPipeline(ch.pipeline(), ssl, host, port, remote.isUnresolved());
                    }
                });
        this.pool = new ConnectionPool(bootstrap, config.maxConnections(), poolClock, retiredGraceNanos);
    }

    /**
     * POSTs {@code jsonBody} to the endpoint. The future never completes exceptionally: every failure is a
     * result with an {@link ErrorClass}.
     *
     * @param stream    whether the body asks for a streamed reply (sets {@code Accept}; a JSON reply is accepted too)
     * @param requestId sent as {@code X-Request-Id}; may be {@code null}
     */
    public CompletableFuture<ClientResult> send(byte[] jsonBody, boolean stream, String requestId) {
        return dispatch(jsonBody, stream, requestId).future();
    }

    /**
     * One request as given, for what a benchmark request never is (a validation suite's probes): {@code method} to
     * {@code path} resolved against the endpoint ({@code ../models} of {@code …/v1/chat/completions} is
     * {@code /v1/models}; empty: the endpoint itself; it must stay on the endpoint's scheme, host and port), {@code body} sent as is (a malformed
     * one too; empty for a {@code GET}), with this client's headers, pool, timeouts and cancellation. The reply's
     * body is kept as its bytes arrived (a stream's events and framing, an error body whole; up to 16 MiB) beside
     * the usual {@link ClientResult}, which interprets it as a completion (a reply that is not one is a failure
     * there: read {@link RawReply#status()} and {@link RawReply#body()}).
     *
     * @throws IllegalArgumentException when {@code path} leaves the endpoint's origin or {@code method} is no method
     */
    public CompletableFuture<RawReply> raw(String method, String path, byte[] body, boolean stream) {
        URI endpoint = config.endpoint();
        URI target = path == null || path.isEmpty() ? endpoint : endpoint.resolve(path);
        if (!endpoint.getScheme().equalsIgnoreCase(target.getScheme()) || target.getHost() == null
                || !endpoint.getHost().equalsIgnoreCase(target.getHost()) || endpoint.getPort() != target.getPort()) {
            throw new IllegalArgumentException("a raw request stays on the endpoint's origin: " + Secrets.redact(path));
        }
        RequestHead rawHead = new RequestHead(method, pathAndQuery(target), hostHeader, USER_AGENT, config.headers());
        Exchange exchange = dispatch(new Exchange(this, body, stream, null, rawHead, true));
        return exchange.future().thenApply(r -> new RawReply(r, exchange.rawBody()));
    }

    private Exchange dispatch(byte[] jsonBody, boolean stream, String requestId) {
        return dispatch(new Exchange(this, jsonBody, stream, requestId));
    }

    private Exchange dispatch(Exchange exchange) {
        byte[] jsonBody = exchange.body();
        boolean stream = exchange.stream();
        String requestId = exchange.requestId();
        if (cancelled) {
            exchange.start(System.nanoTime());
            exchange.abort(ErrorClass.CANCELLED, "cancelled");
            return exchange;
        }
        inFlight.add(exchange);
        if (debug.enabled()) {
            debug.request(requestId, config.endpoint().toString(), config.headers(), jsonBody);
        }
        exchange.start(System.nanoTime());
        if (cancelled) { // cancelAll ran between the first check and the registration
            exchange.abort(ErrorClass.CANCELLED, "cancelled");
            return exchange;
        }
        long total = nanos(config.totalTimeout());
        long connect = nanos(config.connectTimeout());
        if (total > 0 && connect > 0 && total >= connect) {
            exchange.deferTotalTimeout(total); // armed without waking a loop from here (Exchange.deferTotalTimeout)
        } else if (total > 0) {
            exchange.totalTimer(group.schedule(() -> exchange.abort(ErrorClass.TIMEOUT_TOTAL,
                    "request took longer than " + TimeUnit.NANOSECONDS.toMillis(total) + " ms"),
                    total, TimeUnit.NANOSECONDS));
        }
        pool.acquire(exchange);
        return exchange;
    }

    /**
     * {@link #send}, and when {@code cancel} completes (any thread, any value) the request ends as
     * {@link ErrorClass#CANCELLED} and its connection is closed, as a client that hangs up mid-stream does (the
     * server sees the disconnect). A cancel after the reply ended changes nothing.
     */
    public CompletableFuture<ClientResult> send(byte[] jsonBody, boolean stream, String requestId,
                                                java.util.concurrent.CompletionStage<?> cancel) {
        Exchange exchange = dispatch(jsonBody, stream, requestId);
        cancel.thenRun(() -> exchange.abort(ErrorClass.CANCELLED, "cancelled by the client"));
        return exchange.future();
    }

    /**
     * Ends every request in flight as {@link ErrorClass#CANCELLED} (closing its connection), and every later
     * {@link #send} too. For Ctrl-C and stopped runs.
     */
    public void cancelAll() {
        cancelled = true;
        List<Exchange> all = new ArrayList<>(inFlight);
        // queued requests first: the connection of a cancelled request closes on its loop, and the pool would
        // hand its slot (a new connection) to a request still waiting
        for (Exchange exchange : all) {
            if (!exchange.hasChannel()) exchange.abort(ErrorClass.CANCELLED, "cancelled");
        }
        for (Exchange exchange : all) {
            exchange.abort(ErrorClass.CANCELLED, "cancelled");
        }
    }

    /** Requests sent and not yet ended (the live view's in-flight figure). */
    public int inFlight() {
        return inFlight.size();
    }

    /** Connections open or being opened (for tests and diagnostics). */
    public int openConnections() {
        return pool.openConnections();
    }

    /**
     * The event loops that read every response, for the engine's self-check timer (a late timer there means late
     * arrival stamps). Tasks scheduled here must be tiny and must never block.
     */
    public io.netty.util.concurrent.EventExecutorGroup ioLoops() {
        return group;
    }

    /** Cancels what is in flight and stops the event loop quickly. */
    @Override
    public void close() {
        cancelAll();
        pool.close();
        if (ownsGroup) group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        // a request whose loop stopped before it could run the cancellation is ended here
        for (Exchange exchange : new ArrayList<>(inFlight)) {
            exchange.abort(ErrorClass.CANCELLED, "cancelled");
        }
    }

    /**
     * A client of the same path to 127.0.0.1:{@code loopbackPort} on this client's event loops: {@link ClientWarmup}'s,
     * so the code it compiles and the buffers it touches are the ones this client's requests then run on. It keeps
     * this client's scheme and host name (Host header; over https the SNI name, the host-name check and the TLS
     * engine and ALPN offer of {@link #sslContext}), headers, timeouts and API, with one connection and no debug log.
     * Over https it trusts {@code trusted} alone, a certificate for this host name whose key only the loopback
     * server holds: this client's own verification is not touched. Closing it leaves the loops running.
     *
     * @param trusted the loopback server's certificate; ignored over plain http
     */
    LlmClient sibling(int loopbackPort, X509Certificate trusted) {
        URI target = config.endpoint();
        URI endpoint = URI.create(target.getScheme() + "://" + hostForHeader(target.getHost()) + ":" + loopbackPort
                + pathAndQuery(target));
        TlsOptions tls = tlsHost == null ? TlsOptions.DEFAULT : new TlsOptions(List.of(trusted), false);
        return new LlmClient(new ClientConfig(endpoint, config.headers(), config.connectTimeout(),
                config.readTimeout(), config.totalTimeout(), 1, false, tls, config.api()), group,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), loopbackPort), System::nanoTime,
                ConnectionPool.RETIRED_GRACE_NANOS);
    }

    /** The host name TLS sends as SNI and checks the certificate for; {@code null} over plain http. */
    String tlsHost() {
        return tlsHost;
    }

    // ---- for Exchange ----

    ConnectionPool pool() {
        return pool;
    }

    ObjectMapper mapper() {
        return mapper;
    }

    ApiFormat api() {
        return config.api();
    }

    DebugLog debug() {
        return debug;
    }

    long readTimeoutNanos() {
        return readTimeoutNanos;
    }

    void forget(Exchange exchange) {
        inFlight.remove(exchange);
    }

    RequestHead head() {
        return head;
    }

    // ---- setup ----

    private void initPipeline(ChannelPipeline p, SslContext ssl, String host, int port, boolean lookup) {
        ConnectTimer timer = new ConnectTimer(lookup);
        ResponseHandler responses = new ResponseHandler(timer);
        p.addLast("timer", timer);
        p.addLast("arrival", new ResponseHandler.ArrivalStamp(responses));
        if (ssl != null) {
            SslHandler tls = ssl.newHandler(p.channel().alloc(), host, port); // host sets SNI
            long connect = millis(config.connectTimeout());
            if (connect > 0) {
                tls.setHandshakeTimeoutMillis(connect);
            }
            tls.handshakeFuture().addListener(f -> {
                if (f.isSuccess()) timer.tlsDone();
                else responses.handshakeFailed(f.cause());
            });
            p.addLast("tls", tls);
        }
        // Requests are written as prepared bytes (RequestHead) and responses decoded by ResponseHandler itself
        // (ResponseDecoder): no Netty HTTP codec in the pipeline.
        p.addLast("responses", responses);
        p.channel().attr(ResponseHandler.KEY).set(responses);
    }

    /** Rejects header names or values HTTP cannot carry now, rather than failing every request later. */
    private static void validateHeaders(Map<String, String> headers) {
        HttpHeaders check = new DefaultHttpHeaders();
        headers.forEach((name, value) -> {
            try {
                check.set(name, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid header " + name + ": " + Secrets.redact(e.getMessage()), e);
            }
        });
    }

    /**
     * TLS as browsers do it unless told otherwise: SNI and hostname verification (endpoint identification "HTTPS")
     * on, the JDK's trust store or the given CAs. ALPN offers http/1.1 only, the one protocol this client speaks, so
     * a server that would pick h2 cannot. BoringSSL where it loads ({@link TlsProvider}).
     */
    static SslContext sslContext(TlsOptions options) {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(TlsProvider.best())
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_1_1));
        if (options.insecure()) {
            // no chain check and no host check: the JDK would still match the host for a plain X509TrustManager
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
        } else {
            builder.endpointIdentificationAlgorithm("HTTPS");
            if (!options.trustedCas().isEmpty()) {
                builder.trustManager(options.trustedCas().toArray(X509Certificate[]::new));
            }
        }
        try {
            return builder.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("cannot set up TLS: " + ErrorMapping.message(e), e);
        }
    }

    /**
     * An IP literal needs no lookup: it is used as is, so a new connection skips the resolver (its DNS phase is 0;
     * the hand-over to the event loop counts in Queue). A host name stays unresolved and is looked up on every connect (the JDK caches answers for
     * 30 s), so a changed DNS record is followed as a real client would.
     */
    private static InetSocketAddress remoteAddress(String host, int port) {
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(literal);
        if (ip == null) return InetSocketAddress.createUnresolved(host, port);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("invalid address " + host, e); // NetUtil gives 4 or 16 bytes: never
        }
    }

    private static String pathAndQuery(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    private static String hostForHeader(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static long nanos(Duration d) {
        return d == null || d.isZero() || d.isNegative() ? 0 : d.toNanos();
    }

    private static long millis(Duration d) {
        return d == null || d.isZero() || d.isNegative() ? 0 : Math.max(1, d.toMillis());
    }
}
