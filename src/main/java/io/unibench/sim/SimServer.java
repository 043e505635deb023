package io.unibench.sim;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.unibench.net.Transport;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The embedded simulated LLM server: an OpenAI-compatible HTTP server ({@code POST /v1/chat/completions},
 * {@code POST /v1/completions}, {@code GET /v1/models}, {@code GET /health}) whose answers follow a deterministic
 * latency model, a vLLM-like prefix cache and seeded output lengths, so benchmarks and tests run without a GPU.
 *
 * <p>Inside, a vLLM-like engine ({@link EngineCore}): a FIFO waiting queue with a capacity and a maximum wait,
 * continuous batching of at most {@code max-num-seqs} sequences, chunked prefill under a per-step token budget, a
 * decode step time that grows with the batch ({@link StepTimeModel}), KV blocks reserved per sequence and a prefix
 * cache with LRU eviction ({@link PrefixCache}); plus fault injection ({@link FaultKind}) by rate or per request
 * with the {@code X-Unibench-Fault} header, and {@code GET /metrics} with vLLM's metric names.
 *
 * <p>Built so that it is never the bottleneck of a benchmark: Netty NIO event loops (one per core), one scheduler
 * thread that hands each step's tokens to the event loops in one task per loop per step (no thread or timer per
 * stream), SSE frames from pre-encoded bytes, tokenization off the event loops. Threads are daemons, so a forgotten
 * server does not keep a JVM alive.
 *
 * <p>What the answers mean (details in the named classes):
 * <ul>
 *   <li>{@code prompt_tokens}: chat = tokens of the messages rendered by {@link ChatTemplate}
 *       ({@code <|role|>\ncontent\n} per message + {@code <|assistant|>\n}: a few tokens of overhead per message,
 *       as real templates have); completions = tokens of the prompt(s), or the token ids given.</li>
 *   <li>{@code cached_tokens}: vLLM prefix-cache semantics, see {@link PrefixCache}, looked up when the request is
 *       admitted to the running batch; omitted when {@link SimConfig#reportCachedTokens()} is false.</li>
 *   <li>Timing: TTFT = {@code ttft-ms} (API overhead) + queueing + the steps that prefill the uncached prompt
 *       (shared with other sequences); then one token per engine step. At low load: ttft + uncached × prefill,
 *       then one token every {@code itl-ms}.</li>
 *   <li>Output length and text: {@link OutputGenerator}; without {@code max_tokens} the cap is
 *       16 × {@link SimConfig#meanOutputTokens()} (also for {@code /v1/completions}, unlike OpenAI's default 16).</li>
 *   <li>{@link #stats()} counts tokens when the engine produces them, and a finished request leaves
 *       {@code streamsActive} before its last byte is written, so a client that has read a whole response sees it
 *       counted.</li>
 * </ul>
 *
 * <pre>{@code
 * try (SimServer sim = SimServer.start(SimConfig.defaults())) {
 *     String url = sim.baseUrl() + "/v1/chat/completions";
 *     ...
 * }
 * }</pre>
 */
public final class SimServer implements AutoCloseable {
    private static final int MAX_REQUEST_BYTES = 64 * 1024 * 1024; // long-context prompts are a few MB at most

    private final SimEngine engine;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final ChannelGroup channels;
    private final Channel serverChannel;
    private final String host;
    private final int port;
    private final boolean tls;

    private SimServer(SimEngine engine, EventLoopGroup acceptGroup, EventLoopGroup ioGroup, ChannelGroup channels,
                      Channel serverChannel, String host, int port, boolean tls) {
        this.engine = engine;
        this.acceptGroup = acceptGroup;
        this.ioGroup = ioGroup;
        this.channels = channels;
        this.serverChannel = serverChannel;
        this.host = host;
        this.port = port;
        this.tls = tls;
    }

    /**
     * Binds and returns once the server is listening.
     *
     * @throws io.unibench.BadInputException if the tokenizer name is unknown
     * @throws IllegalStateException         if the address cannot be bound
     */
    public static SimServer start(SimConfig config) {
        return start(config, Tokenizers.load(config.tokenizer()));
    }

    /**
     * Like {@link #start(SimConfig)} with an already loaded tokenizer (loading one takes about a second, which adds
     * up in test suites that start many servers). It must be the tokenizer {@code config.tokenizer()} names.
     */
    public static SimServer start(SimConfig config, Tokenizer tokenizer) {
        return start(config, tokenizer, null);
    }

    /**
     * Like {@link #start(SimConfig, Tokenizer)}, serving HTTPS with {@code tls} ({@link io.unibench.net.ServerCertificate}) when it is
     * not {@code null}: every connection starts with a TLS handshake, as at a real provider.
     */
    public static SimServer start(SimConfig config, Tokenizer tokenizer, SslContext tls) {
        if (!tokenizer.name().equals(config.tokenizer())) {
            throw new IllegalArgumentException("tokenizer " + tokenizer.name() + " is not the configured "
                    + config.tokenizer());
        }
        SimEngine engine = new SimEngine(config, tokenizer);
        Transport transport = Transport.best();
        EventLoopGroup acceptGroup = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("unibench-sim-accept", true), transport.ioHandlerFactory());
        EventLoopGroup ioGroup = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("unibench-sim-io", true), transport.ioHandlerFactory());
        ChannelGroup channels = new DefaultChannelGroup("unibench-sim", GlobalEventExecutor.INSTANCE);
        try {
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(acceptGroup, ioGroup)
                    .channel(transport.serverSocketChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096) // benchmarks open thousands of connections at once
                    .childOption(ChannelOption.TCP_NODELAY, true) // each SSE frame must leave at once
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override protected void initChannel(SocketChannel ch) {
                            channels.add(ch);
                            if (tls != null) ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                            ch.pipeline().addLast(new HttpServerCodec());
                            if (ConnectionCloser.needed(config.connections())) {
                                ch.pipeline().addLast(new ConnectionCloser(config.connections()));
                            }
                            ch.pipeline().addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES), new SimHttpHandler(engine));
                        }
                    });
            Channel serverChannel = bootstrap.bind(config.host(), config.port()).syncUninterruptibly().channel();
            int port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
            return new SimServer(engine, acceptGroup, ioGroup, channels, serverChannel, config.host(), port, tls != null);
        } catch (Exception e) { // syncUninterruptibly rethrows the bind's IOException unchecked
            acceptGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            ioGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            engine.close();
            throw new IllegalStateException("cannot start the simulator on " + config.host() + ":" + config.port()
                    + ": " + e.getMessage(), e);
        }
    }

    /** The bound TCP port (the ephemeral one when the config said 0). */
    public int port() { return port; }

    /** {@code http://HOST:PORT} ({@code https://} with TLS), with 127.0.0.1 for a wildcard bind address. */
    public String baseUrl() {
        String h = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
        if (h.indexOf(':') >= 0 && !h.startsWith("[")) h = "[" + h + "]";
        return (tls ? "https://" : "http://") + h + ":" + port;
    }

    public SimConfig config() { return engine.config; }

    public SimStats stats() { return engine.metrics.snapshot(); }

    /** What {@code GET /metrics} answers: Prometheus text with vLLM's metric names. */
    public String metricsText() { return engine.metrics.prometheus(engine.config.model()); }

    /** Stops listening and closes every connection (running streams end abruptly, counted as cancelled). */
    @Override public void close() {
        serverChannel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        channels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        engine.close();
        acceptGroup.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS);
        ioGroup.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS);
        acceptGroup.terminationFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        ioGroup.terminationFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
