import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.client.SseParser;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP client candidates on the same static SSE body (issue 7): closed loop at concurrency C, N measured requests
 * after a warm-up, the process's CPU-seconds per 1,000 requests and requests/s.
 *
 * <ul>
 *   <li>{@code netty}: unibench's LlmClient as shipped (Netty NIO loops, arrival stamp per read, SseParser, its chunk
 *       decoder, a ClientResult per request); the next request is sent from the completion callback.</li>
 *   <li>{@code jdk}: java.net.http.HttpClient (HTTP/1.1) with one virtual thread per stream blocking on the body's
 *       InputStream (16 KiB reads); per read an arrival stamp, unibench's SseParser, and per event a minimal decode
 *       (find {@code "content":"}, note the event's arrival in a growing long[]) — less work per event than
 *       LlmClient's decoder does (which also reads usage, finish_reason and errors), so this flatters the JDK.</li>
 * </ul>
 * Only the client: no RunMetrics, no requests.jsonl (unlike `unibench perf` in client-load.sh).
 *
 * <p>Run: bench/static-target/setup.sh; ./unibench --version >/dev/null;
 * java -cp target/unibench.jar bench/clients/ClientCompareBench.java netty|jdk CONCURRENCY [N=5000] [WARMUP=2000] [URL]
 */
public class ClientCompareBench {
    static final byte[] CONTENT = "\"content\":\"".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        String which = args[0];
        int conc = Integer.parseInt(args[1]);
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
        int warm = args.length > 3 ? Integer.parseInt(args[3]) : 2000;
        String url = args.length > 4 ? args[4] : "http://127.0.0.1:18080/v1/chat/completions";
        byte[] body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}"
                .getBytes(StandardCharsets.UTF_8);
        Runner runner = which.equals("netty") ? new NettyRunner(url, conc, body) : new JdkRunner(url, body);
        runner.run(conc, warm); // warm-up (JIT, connections)
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long[] counts = runner.run(conc, n);
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
        System.out.printf("%s c=%d n=%d: %.0f req/s, %.0f events/s, %.3f CPU-s per 1,000 req (%.2f us/event), "
                        + "%.2f cores; failures %d; load avg %.2f%n", which, conc, n, n / wall, counts[1] / wall,
                cpu * 1000 / n, cpu * 1e6 / Math.max(1, counts[1]), cpu / wall, counts[0], os.getSystemLoadAverage());
        runner.close();
        System.exit(0);
    }

    interface Runner extends AutoCloseable {
        /** Sends {@code total} requests, {@code conc} at a time; returns {failures, token events}. */
        long[] run(int conc, int total) throws Exception;
    }

    static final class NettyRunner implements Runner {
        final LlmClient client;
        final byte[] body;

        NettyRunner(String url, int conc, byte[] body) {
            this.client = new LlmClient(new ClientConfig(URI.create(url), Map.of(), Duration.ofSeconds(10),
                    Duration.ofSeconds(30), null, conc + 16, false));
            this.body = body;
        }

        public long[] run(int conc, int total) throws Exception {
            AtomicLong issued = new AtomicLong();
            LongAdder failures = new LongAdder(), events = new LongAdder();
            CountDownLatch done = new CountDownLatch(total);
            for (int i = 0; i < conc; i++) next(issued, total, failures, events, done);
            done.await();
            return new long[]{failures.sum(), events.sum()};
        }

        void next(AtomicLong issued, int total, LongAdder failures, LongAdder events, CountDownLatch done) {
            if (issued.incrementAndGet() > total) return;
            client.send(body, true, null).thenAccept(r -> {
                if (!r.success()) failures.increment();
                events.add(r.tokenChunkNanos().length);
                done.countDown();
                next(issued, total, failures, events, done);
            });
        }

        public void close() { client.close(); }
    }

    static final class JdkRunner implements Runner {
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newVirtualThreadPerTaskExecutor()).connectTimeout(Duration.ofSeconds(10)).build();
        final HttpRequest request;

        JdkRunner(String url, byte[] body) {
            request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                    .header("Accept", "text/event-stream").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        }

        public long[] run(int conc, int total) throws Exception {
            AtomicLong issued = new AtomicLong();
            LongAdder failures = new LongAdder(), events = new LongAdder();
            try (var vt = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < conc; i++) {
                    vt.submit(() -> {
                        byte[] buf = new byte[16 * 1024];
                        while (issued.incrementAndGet() <= total) {
                            try {
                                events.add(one(buf));
                            } catch (Exception e) {
                                failures.increment();
                            }
                        }
                        return null;
                    });
                }
            }
            return new long[]{failures.sum(), events.sum()};
        }

        /** One request: every read stamped, every event framed by SseParser and minimally decoded. */
        int one(byte[] buf) throws Exception {
            HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) throw new IllegalStateException("HTTP " + r.statusCode());
            long[][] times = {new long[64]};
            int[] count = {0};
            long[] arrival = {0};
            SseParser sse = new SseParser((b, off, len) -> {
                if (indexOf(b, off, len, CONTENT) < 0) return;
                if (count[0] == times[0].length) times[0] = Arrays.copyOf(times[0], count[0] * 2);
                times[0][count[0]++] = arrival[0];
            });
            try (InputStream in = r.body()) {
                int k;
                while ((k = in.read(buf)) > 0) {
                    arrival[0] = System.nanoTime();
                    sse.feed(buf, 0, k);
                }
            }
            sse.finish();
            return count[0];
        }

        static int indexOf(byte[] b, int off, int len, byte[] needle) {
            outer:
            for (int i = off, end = off + len - needle.length; i <= end; i++) {
                for (int j = 0; j < needle.length; j++) if (b[i + j] != needle[j]) continue outer;
                return i;
            }
            return -1;
        }

        public void close() { http.close(); }
    }
}
