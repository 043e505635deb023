import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import io.unibench.client.ByteBufArrays;
import io.unibench.client.SseParser;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimProfiles;
import io.unibench.sim.SimServer;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Timestamp lag of a client against the simulator's send stamps (issue 7, "timing accuracy").
 *
 * <p>The simulator runs with {@code debug-send-times}: every streamed chunk starts with
 * {@code {"unibench_sent_ns":N,...}}, its System.nanoTime() when written. Both ends are on one host, so they read the
 * same monotonic clock (CLOCK_MONOTONIC, also across processes). N keep-alive connections stream chat completions back
 * to back (closed loop). The client has the shape of unibench's LlmClient: one NIO event loop per core, the arrival
 * stamp taken in the first pipeline handler when a read arrives (as LlmClient's ArrivalStamp does), then Netty's HTTP
 * codec, unibench's SseParser, and a full Jackson streaming parse of every event (at least the per-event work of the
 * client's own chunk decoder, which the JMH figures put at about half of this). Lag = arrival stamp - send stamp,
 * per chunk, after a warm-up.
 *
 * <p>Run: ./unibench --version >/dev/null; java -cp target/unibench.jar bench/accuracy/TimingLagBench.java
 *          STREAMS [SECONDS=20] [ITL_MS=50] [MAX_TOKENS=200] [SIM_URL]
 * Without SIM_URL the simulator runs in this process (instant profile + the ITL given); with it, start one with
 * {@code ./unibench sim --profile instant --itl-ms 50 --decode-ms-per-seq 0 --max-num-seqs 10000 --debug-send-times true}.
 */
public class TimingLagBench {
    static final byte[] STAMP = "{\"unibench_sent_ns\":".getBytes(StandardCharsets.US_ASCII);
    static final JsonFactory JSON = new JsonFactory();
    static final List<long[][]> ALL_LAGS = new CopyOnWriteArrayList<>();
    static volatile boolean recording;
    /** -Ddecode=false: no JSON parse per event (the floor of this client shape). */
    static final boolean DECODE = !"false".equals(System.getProperty("decode"));
    static final LongAdder events = new LongAdder(), stamped = new LongAdder(), completed = new LongAdder();

    public static void main(String[] args) throws Exception {
        int streams = Integer.parseInt(args[0]);
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        double itl = args.length > 2 ? Double.parseDouble(args[2]) : 50;
        int maxTokens = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        String url = args.length > 4 ? args[4] : null;
        SimServer sim = null;
        String host = "127.0.0.1";
        int port;
        if (url == null) {
            SimConfig c = SimConfig.defaults().with(SimProfiles.knobs("instant")).with(java.util.Map.of(
                    "itl-ms", itl, "decode-ms-per-seq", 0, "max-num-seqs", Math.max(streams, 256),
                    "max-queue", Math.max(streams, 10_000), "debug-send-times", true));
            sim = SimServer.start(c);
            port = sim.port();
        } else {
            java.net.URI u = java.net.URI.create(url);
            host = u.getHost();
            port = u.getPort();
        }
        byte[] body = ("{\"model\":\"unibench-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"timing lag\"}],"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":" + maxTokens
                + ",\"ignore_eos\":true}").getBytes(StandardCharsets.UTF_8);
        int cores = Runtime.getRuntime().availableProcessors();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(cores, new DefaultThreadFactory("lag-client", true),
                NioIoHandler.newFactory());
        AtomicLong connected = new AtomicLong();
        final String h = host;
        final int p = port;
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override protected void initChannel(SocketChannel ch) {
                        Conn conn = new Conn(body, h + ":" + p);
                        ch.pipeline().addLast(conn.arrival, new HttpClientCodec(), conn);
                        connected.incrementAndGet();
                    }
                });
        for (int i = 0; i < streams; i++) {
            b.connect(host, port);
            if (i % 500 == 499) Thread.sleep(50); // let the accept backlog drain
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (connected.get() < streams && System.nanoTime() < deadline) Thread.sleep(50);
        // warm-up: at least one full reply per stream (ramp, JIT), at most 30 s
        long warmEnd = System.nanoTime() + 30_000_000_000L;
        Thread.sleep(2000);
        while (completed.sum() < streams && System.nanoTime() < warmEnd) Thread.sleep(100);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime(), ev0 = events.sum(), st0 = stamped.sum(), co0 = completed.sum();
        long gcCount0 = gcCount(), gcTime0 = gcMillis();
        long t0 = System.nanoTime();
        recording = true;
        // the machine's own scheduling delay, for context: a platform thread asks to wake every 1 ms
        long[] oversleep = new long[seconds * 1000 + 10];
        int probes = 0;
        while (System.nanoTime() - t0 < seconds * 1_000_000_000L && probes < oversleep.length) {
            long before = System.nanoTime();
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
            oversleep[probes++] = System.nanoTime() - before - 1_000_000L;
        }
        recording = false;
        long gcs = gcCount() - gcCount0, gcMs = gcMillis() - gcTime0;
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long cpu = os.getProcessCpuTime() - cpu0;
        long n = 0;
        for (long[][] a : ALL_LAGS) n += a[1][0];
        long[] lags = new long[(int) n];
        int k = 0;
        for (long[][] a : ALL_LAGS) { System.arraycopy(a[0], 0, lags, k, (int) a[1][0]); k += (int) a[1][0]; }
        Arrays.sort(lags);
        double load = os.getSystemLoadAverage();
        System.out.printf("streams %d (connected %d), itl %.1f ms, max_tokens %d, sim %s, %.1f s measured, load avg %.2f%n",
                streams, connected.get(), itl, maxTokens, url == null ? "in-process" : url, elapsed, load);
        System.out.printf("events/s %.0f, stamped chunks/s %.0f, replies/s %.1f; process CPU %.2f cores of %d%n",
                (events.sum() - ev0) / elapsed, (stamped.sum() - st0) / elapsed, (completed.sum() - co0) / elapsed,
                cpu / 1e9 / elapsed, cores);
        if (lags.length == 0) { System.out.println("no samples"); System.exit(1); }
        System.out.printf("lag ms over %d chunks: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (min %.3f)%n",
                lags.length, q(lags, 0.5), q(lags, 0.9), q(lags, 0.99), q(lags, 0.999), lags[lags.length - 1] / 1e6,
                lags[0] / 1e6);
        String episodesFile = System.getProperty("lag.episodes");
        if (episodesFile != null) printOutsideEpisodes(Path.of(episodesFile), t0);
        String dump = System.getProperty("lag.dump"); // debug: "arrival_ns lag_ns" per chunk, for offline analysis
        if (dump != null) {
            try (var out = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(Path.of(dump)))) {
                for (long[][] a : ALL_LAGS) for (int i = 0; i < a[1][0]; i++) out.println(a[2][i] + " " + a[0][i]);
            }
        }
        long[] over = Arrays.copyOf(oversleep, probes);
        Arrays.sort(over);
        System.out.printf("context: a 1 ms park overslept p50 %.3f p99 %.3f max %.3f ms (machine scheduling); "
                + "client GC: %d collections, %d ms in the window%n", q(over, 0.5), q(over, 0.99),
                over[over.length - 1] / 1e6, gcs, gcMs);
        group.shutdownGracefully();
        if (sim != null) sim.close();
        System.exit(0);
    }

    /**
     * The lag of the chunks that arrived outside the machine's vCPU slow episodes, as logged by
     * {@code bench/accuracy/vcpu-speed} running alongside (lines {@code episode real R mono M dur D ms speed S}; mono is
     * CLOCK_MONOTONIC, the clock of System.nanoTime on Linux). An episode is extended by 20 ms for the backlog it
     * leaves. This separates the client's own lag from the host running the VM's CPUs slowly (bench/README.md).
     */
    static void printOutsideEpisodes(Path file, long windowStart) throws java.io.IOException {
        List<long[]> episodes = new java.util.ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(file)) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !f[0].equals("episode")) continue;
            long start = (long) (Double.parseDouble(f[4]) * 1e9);
            long end = start + (long) (Double.parseDouble(f[6]) * 1e6) + 20_000_000L;
            episodes.add(new long[] {start, end});
        }
        long windowEnd = System.nanoTime();
        long covered = 0;
        int inWindow = 0;
        for (long[] e : episodes) {
            long a = Math.max(e[0], windowStart), b = Math.min(e[1], windowEnd);
            if (b > a) { covered += b - a; inWindow++; }
        }
        long n = 0;
        for (long[][] a : ALL_LAGS) n += a[1][0];
        long[] clean = new long[(int) n];
        int k = 0;
        for (long[][] a : ALL_LAGS) {
            for (int i = 0; i < a[1][0]; i++) {
                long arrival = a[2][i];
                boolean hit = false;
                for (long[] e : episodes) if (arrival >= e[0] && arrival <= e[1]) { hit = true; break; }
                if (!hit) clean[k++] = a[0][i];
            }
        }
        long[] lags = Arrays.copyOf(clean, k);
        Arrays.sort(lags);
        System.out.printf("vCPU slow episodes in the window: %d, %.1f%% of it (+20 ms each); lag ms of the %d chunks "
                        + "outside them: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f%n", inWindow,
                100.0 * covered / Math.max(1, windowEnd - windowStart), lags.length,
                lags.length == 0 ? Double.NaN : q(lags, 0.5), lags.length == 0 ? Double.NaN : q(lags, 0.9),
                lags.length == 0 ? Double.NaN : q(lags, 0.99), lags.length == 0 ? Double.NaN : q(lags, 0.999),
                lags.length == 0 ? Double.NaN : lags[lags.length - 1] / 1e6);
    }

    static long gcCount() {
        long n = 0;
        for (var g : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, g.getCollectionCount());
        return n;
    }

    static long gcMillis() {
        long n = 0;
        for (var g : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, g.getCollectionTime());
        return n;
    }

    static double q(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))] / 1e6;
    }

    /** One connection: closed loop of streamed requests; lags go to its event loop's array. */
    static final class Conn extends SimpleChannelInboundHandler<HttpObject> {
        final byte[] body;
        final String hostHeader;
        long arrivalNanos;
        final ChannelInboundHandlerAdapter arrival = new ChannelInboundHandlerAdapter() {
            @Override public void channelRead(ChannelHandlerContext ctx, Object msg) {
                arrivalNanos = System.nanoTime();
                ctx.fireChannelRead(msg);
            }
        };
        SseParser sse;
        long[][] lags; // per event loop: [0] = values, [1][0] = count

        Conn(byte[] body, String hostHeader) {
            this.body = body;
            this.hostHeader = hostHeader;
        }

        @Override public void channelActive(ChannelHandlerContext ctx) {
            lags = LOOP_LAGS.get();
            send(ctx.channel());
        }

        @Override protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof io.netty.handler.codec.http.HttpResponse) sse = new SseParser(this::onEvent);
            if (msg instanceof HttpContent c) {
                ByteBufArrays.forEachPiece(c.content(), c.content().readerIndex(), c.content().readableBytes(), sse::feed);
                if (msg instanceof LastHttpContent) {
                    completed.increment();
                    send(ctx.channel());
                }
            }
        }

        void onEvent(byte[] buf, int off, int len) {
            events.increment();
            if (DECODE) try (JsonParser p = JSON.createParser(buf, off, len)) { // the decode work a client does per event
                while (p.nextToken() != null) { }
            } catch (java.io.IOException e) {
                // [DONE] is not JSON; a broken chunk would show up as missing samples
            }
            if (len <= STAMP.length || !Arrays.equals(buf, off, off + STAMP.length, STAMP, 0, STAMP.length)) return;
            long sent = 0;
            for (int i = off + STAMP.length; i < off + len && buf[i] >= '0' && buf[i] <= '9'; i++) sent = sent * 10 + (buf[i] - '0');
            stamped.increment();
            if (!recording) return;
            long[] values = lags[0];
            int n = (int) lags[1][0];
            if (n == values.length) {
                lags[0] = values = Arrays.copyOf(values, n * 2);
                lags[2] = Arrays.copyOf(lags[2], n * 2);
            }
            values[n] = arrivalNanos - sent;
            lags[2][n] = arrivalNanos;
            lags[1][0] = n + 1;
        }

        void send(Channel ch) {
            DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                    "/v1/chat/completions", Unpooled.wrappedBuffer(body));
            req.headers().set(HttpHeaderNames.HOST, hostHeader);
            req.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            req.headers().set(HttpHeaderNames.ACCEPT, "text/event-stream");
            req.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            ch.writeAndFlush(req);
        }
    }

    static final ThreadLocal<long[][]> LOOP_LAGS = ThreadLocal.withInitial(() -> {
        long[][] a = {new long[1 << 16], {0}, new long[1 << 16]}; // lags, count, arrival stamps
        ALL_LAGS.add(a);
        return a;
    });
}
