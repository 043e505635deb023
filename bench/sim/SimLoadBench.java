import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.sim.SimStats;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Load benchmark of the simulator alone: N keep-alive connections, each streaming chat completions back to back
 * (closed loop) against `unibench sim` with the `instant` profile (zero latency, no admission limit). Reports
 * concurrent streams, streamed tokens/s (server-side count and client-side frames), and the CPU of the simulator's
 * own threads per 1,000 streamed tokens (the load generator's CPU is reported separately; both share the cores).
 *
 * Run: ./unibench --version >/dev/null; java -cp target/unibench.jar bench/sim/SimLoadBench.java [streams] [seconds] [maxTokens]
 */
public class SimLoadBench {
    public static void main(String[] args) throws Exception {
        int streams = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int maxTokens = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        SimConfig config = SimConfig.defaults().with(io.unibench.sim.SimProfiles.knobs("instant"));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (SimServer sim = SimServer.start(config)) {
            byte[] body = ("{\"model\":\"unibench-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"benchmark the "
                    + "simulator\"}],\"stream\":true,\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}")
                    .getBytes(StandardCharsets.UTF_8);
            LongAdder frames = new LongAdder();
            LongAdder completed = new LongAdder();
            AtomicLong connected = new AtomicLong();
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("bench-client", true),
                    NioIoHandler.newFactory());
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpClientCodec(), new SimpleChannelInboundHandler<HttpObject>() {
                                @Override public void channelActive(ChannelHandlerContext ctx) {
                                    connected.incrementAndGet();
                                    send(ctx.channel(), body, sim.port());
                                }

                                @Override protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
                                    if (msg instanceof HttpContent c) {
                                        ByteBuf buf = c.content();
                                        int n = 0;
                                        for (int i = buf.readerIndex(), end = buf.writerIndex() - 1; i < end; i++) {
                                            if (buf.getByte(i) == '\n' && buf.getByte(i + 1) == '\n') n++;
                                        }
                                        frames.add(n);
                                        if (msg instanceof LastHttpContent) {
                                            completed.increment();
                                            send(ctx.channel(), body, sim.port());
                                        }
                                    }
                                }
                            });
                        }
                    });
            for (int i = 0; i < streams; i++) {
                b.connect("127.0.0.1", sim.port());
                if (i % 500 == 499) Thread.sleep(50); // let the accept backlog drain
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (connected.get() < streams && System.nanoTime() < deadline) Thread.sleep(50);
            Thread.sleep(3000); // warm-up
            SimStats s0 = sim.stats();
            long f0 = frames.sum(), c0 = completed.sum();
            long simCpu0 = cpu(mx, "unibench-sim"), clientCpu0 = cpu(mx, "bench-client"), proc0 = processCpu();
            long t0 = System.nanoTime();
            long maxRunning = 0, sumRunning = 0, samples = 0;
            while (System.nanoTime() - t0 < seconds * 1_000_000_000L) {
                Thread.sleep(100);
                long r = sim.stats().running();
                maxRunning = Math.max(maxRunning, r);
                sumRunning += r;
                samples++;
            }
            double elapsed = (System.nanoTime() - t0) / 1e9;
            SimStats s1 = sim.stats();
            long simCpu = cpu(mx, "unibench-sim") - simCpu0, clientCpu = cpu(mx, "bench-client") - clientCpu0;
            long procCpu = processCpu() - proc0;
            long tokens = s1.generationTokensTotal() - s0.generationTokensTotal();
            System.out.printf("connections %d (connected %d), max_tokens %d, %.1f s measured%n", streams, connected.get(), maxTokens, elapsed);
            System.out.printf("concurrent streams in the engine: mean %.0f, max %d%n", (double) sumRunning / samples, maxRunning);
            System.out.printf("tokens/s (server count) %.0f; SSE frames/s (client count) %.0f; completions/s %.0f%n",
                    tokens / elapsed, (frames.sum() - f0) / elapsed, (completed.sum() - c0) / elapsed);
            System.out.printf("simulator threads CPU: %.2f cores, %.1f ms per 1,000 tokens (%.1f us/token)%n",
                    simCpu / 1e9 / elapsed, simCpu / 1e6 / (tokens / 1000.0), simCpu / 1e3 / tokens);
            System.out.printf("load-generator thread CPU: %.2f cores; whole process: %.2f cores (of %d)%n",
                    clientCpu / 1e9 / elapsed, procCpu / 1e9 / elapsed, Runtime.getRuntime().availableProcessors());
            group.shutdownGracefully();
        }
    }

    private static void send(Channel ch, byte[] body, int port) {
        DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/v1/chat/completions", Unpooled.wrappedBuffer(body));
        req.headers().set(HttpHeaderNames.HOST, "127.0.0.1:" + port);
        req.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        req.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        ch.writeAndFlush(req);
    }

    /** CPU time of the live threads whose name starts with {@code prefix}, ns. */
    private static long cpu(ThreadMXBean mx, String prefix) {
        long sum = 0;
        for (ThreadInfo t : mx.dumpAllThreads(false, false)) {
            if (t.getThreadName().startsWith(prefix)) {
                long c = mx.getThreadCpuTime(t.getThreadId());
                if (c > 0) sum += c;
            }
        }
        return sum;
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
