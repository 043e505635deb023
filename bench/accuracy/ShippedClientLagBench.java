import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Timestamp lag of the shipped client (issue 7): unibench's own LlmClient, unmodified, against a simulator started
 * with {@code --debug-send-times-in-text true}, where every token's text is the simulator's System.nanoTime() when it
 * wrote the chunk. Each reply's content therefore holds the send stamps, and the client's ClientResult holds its own
 * arrival stamp per token chunk (taken when the read reached the pipeline): lag = arrival − send, same host, same
 * monotonic clock. STREAMS keep-alive streams run back to back; each stream's first reply is warm-up.
 *
 * <p>Run: start the simulator (see run-lag.sh, with --debug-send-times-in-text true), then
 * java -XX:TieredStopAtLevel=1 -cp target/unibench.jar bench/accuracy/ShippedClientLagBench.java STREAMS SECONDS URL [MAX_TOKENS=100]
 */
public class ShippedClientLagBench {
    public static void main(String[] args) throws Exception {
        // as the CLI runs (cli.Main): the leak detector's sampled stack traces are not the shipped client's cost
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        int streams = Integer.parseInt(args[0]);
        long seconds = Long.parseLong(args[1]);
        String url = args[2];
        int maxTokens = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        byte[] body = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,"
                + "\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}").getBytes(StandardCharsets.UTF_8);
        LlmClient client = new LlmClient(new ClientConfig(URI.create(url), Map.of(), Duration.ofSeconds(10),
                Duration.ofSeconds(120), null, streams + 16, false));
        long[][] lags = {new long[1 << 20], new long[1 << 20]}; // lag, arrival
        AtomicLong count = new AtomicLong();
        AtomicLong mismatched = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean(true);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        CountDownLatch done = new CountDownLatch(streams);
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        java.util.Queue<ClientResult> results = new java.util.concurrent.ConcurrentLinkedQueue<>();
        for (int s = 0; s < streams; s++) loop(client, body, true, end, results, failures, done);
        done.await();
        long cpu = os.getProcessCpuTime() - cpu0;
        client.close();
        for (ClientResult r : results) record(r, lags, count, mismatched);
        int n = (int) count.get();
        long[] v = Arrays.copyOf(lags[0], n);
        long[] arrivals = Arrays.copyOf(lags[1], n);
        Arrays.sort(v);
        System.out.printf("streams %d, %d s, chunks measured %,d (%.0f/s), failures %d, unpaired replies %d, client CPU %.2f cores, load %.2f%n",
                streams, seconds, n, n / (double) seconds, failures.get(), mismatched.get(), cpu / 1e9 / seconds,
                os.getSystemLoadAverage());
        if (n == 0) return;
        System.out.printf("lag ms: min %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f%n", v[0] / 1e6,
                v[(int) (n * 0.5)] / 1e6, v[(int) (n * 0.9)] / 1e6, v[(int) (n * 0.99)] / 1e6,
                v[(int) Math.min(n - 1, n * 0.999)] / 1e6, v[n - 1] / 1e6);
        long gcCount = 0, gcMillis = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        System.out.printf("client GC: %d collections, %d ms in total (pauses and concurrent work, whole process)%n",
                gcCount, gcMillis);
        String episodesFile = System.getProperty("lag.episodes");
        if (episodesFile != null) printOutsideEpisodes(java.nio.file.Path.of(episodesFile), lags[0], arrivals, n);
        String dump = System.getProperty("lag.dump");
        if (dump != null) {
            try (var w = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(java.nio.file.Path.of(dump)))) {
                for (int i = 0; i < n; i++) w.println((arrivals[i] - lags[0][i]) + " " + arrivals[i]);
            }
        }
        System.exit(0);
    }

    /**
     * One stream: replies back to back on the event loop that completes each. The callback only keeps the result;
     * pairing its stamps (string splitting and parsing) waits until the run has ended, so the bench adds no work to
     * the event loop whose lag it measures.
     */
    static void loop(LlmClient client, byte[] body, boolean warmup, long end, java.util.Queue<ClientResult> results,
                     AtomicLong failures, CountDownLatch done) {
        if (System.nanoTime() >= end) {
            done.countDown();
            return;
        }
        client.send(body, true, null).whenComplete((r, e) -> {
            if (e != null || r == null || !r.success()) failures.incrementAndGet();
            else if (!warmup) results.add(r);
            loop(client, body, false, end, results, failures, done);
        });
    }

    /** Pairs the i-th stamp of the content with the i-th token-chunk arrival. */
    static void record(ClientResult r, long[][] lags, AtomicLong count, AtomicLong mismatched) {
        String[] stamps = r.content().trim().split(" ");
        long[] arrivals = r.tokenChunkNanos();
        if (stamps.length != arrivals.length) {
            mismatched.incrementAndGet();
            return;
        }
        synchronized (lags) {
            for (int i = 0; i < arrivals.length; i++) {
                int at = (int) count.getAndIncrement();
                if (at >= lags[0].length) lags[0] = Arrays.copyOf(lags[0], lags[0].length * 2);
                if (at >= lags[1].length) lags[1] = Arrays.copyOf(lags[1], lags[1].length * 2);
                lags[0][at] = arrivals[i] - Long.parseLong(stamps[i]);
                lags[1][at] = arrivals[i];
            }
        }
    }

    /**
     * The lag of the chunks whose journey (send stamp to arrival) did not overlap a vCPU slow episode of the
     * machine, as logged by bench/accuracy/vcpu-speed running alongside (lines "episode real R mono M dur D ms ...";
     * mono is CLOCK_MONOTONIC, System.nanoTime's clock on Linux), each extended by 20 ms for the backlog it leaves.
     */
    static void printOutsideEpisodes(java.nio.file.Path file, long[] lag, long[] arrival, int n) throws Exception {
        java.util.List<long[]> episodes = new java.util.ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(file)) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !f[0].equals("episode")) continue;
            long start = (long) (Double.parseDouble(f[4]) * 1e9);
            episodes.add(new long[] {start, start + (long) (Double.parseDouble(f[6]) * 1e6) + 20_000_000L});
        }
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) { first = Math.min(first, arrival[i]); last = Math.max(last, arrival[i]); }
        long covered = 0;
        for (long[] e : episodes) covered += Math.max(0, Math.min(e[1], last) - Math.max(e[0], first));
        long[] clean = new long[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            long sent = arrival[i] - lag[i];
            boolean hit = false;
            for (long[] e : episodes) if (sent <= e[1] && arrival[i] >= e[0]) { hit = true; break; }
            if (!hit) clean[k++] = lag[i];
        }
        long[] c = Arrays.copyOf(clean, k);
        Arrays.sort(c);
        if (k == 0) return;
        System.out.printf("vCPU slow episodes: %.1f%% of the run (+20 ms each); lag ms of the %,d chunks (%.1f%%) outside "
                + "them: p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f%n", 100.0 * covered / Math.max(1, last - first),
                k, 100.0 * k / n, c[k / 2] / 1e6, c[(int) (k * 0.9)] / 1e6, c[(int) (k * 0.99)] / 1e6,
                c[(int) Math.min(k - 1, k * 0.999)] / 1e6, c[k - 1] / 1e6);
    }
}
