// unibench serve benchmark (issue 17): a generated store of 10,000 small runs and one run of 1,000,000 requests,
// the service started over it in this JVM, then the time to answer the list API, the runs page and the detail
// page of the big run, the service's idle CPU and its heap.
//
//   mvn -q -DskipTests package
//   java -Xmx256m --enable-native-access=ALL-UNNAMED -cp target/unibench.jar bench/web/WebBench.java \
//       [--db FILE] [--runs 10000] [--requests 1000000] [--idle-seconds 30]
//
// With --db FILE an existing generated store is reused (made on the first run). Times are wall times of one
// request over loopback with the JDK HttpClient, after 5 warm-up requests: median and max of 20.
import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.store.Owner;
import io.unibench.store.RunFilter;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.cli.ScenarioLauncher;
import io.unibench.web.RunService;
import io.unibench.web.WebConfig;
import io.unibench.web.WebServer;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

public class WebBench {
    static final long BASE = 1_000_000_000_000L;

    public static void main(String[] args) throws Exception {
        Path db = null;
        int runs = 10_000;
        int requests = 1_000_000;
        int idleSeconds = 30;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> db = Path.of(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--idle-seconds" -> idleSeconds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        if (db == null) db = Files.createTempDirectory("webbench").resolve("unibench.db");
        StoreLocation loc = StoreLocation.sqlite(db);
        String big;
        try (RunStore store = RunStore.open(loc)) {
            big = store.list(new RunFilter(null, null, "big", List.of(), null, null, null, 1)).stream()
                    .map(r -> r.runId()).findFirst().orElse(null);
            if (big == null) {
                long t0 = System.nanoTime();
                big = bigRun(store, requests);
                System.out.printf(Locale.ROOT, "generated the run of %,d requests in %.1f s%n", requests,
                        (System.nanoTime() - t0) / 1e9);
                t0 = System.nanoTime();
                smallRuns(store, runs);
                System.out.printf(Locale.ROOT, "generated %,d small runs in %.1f s%n", runs, (System.nanoTime() - t0) / 1e9);
            }
            System.out.printf(Locale.ROOT, "store %s: %,d runs, %.0f MB%n", db, store.count(),
                    (Files.size(db) + (Files.exists(Path.of(db + "-wal")) ? Files.size(Path.of(db + "-wal")) : 0)) / 1e6);
        }
        try (RunStore store = RunStore.open(loc);
             WebServer server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, loc,
                     new RunService(new ScenarioLauncher(System.getenv(), Path.of("target", "webbench-outputs"),
                             new PrintWriter(System.err, true)), 1, System.getenv()), "bench",
                     new PrintWriter(System.err, true))) {
            String base = "http://127.0.0.1:" + server.port();
            HttpClient http = HttpClient.newHttpClient();
            time(http, base + "/api/runs", "list API, 50 runs with headline figures");
            time(http, base + "/api/runs?limit=500", "list API, 500 runs");
            time(http, base + "/", "runs page (50 runs, sparklines)");
            time(http, base + "/runs/" + big, "detail page of the 1M-request run");
            time(http, base + "/api/runs/" + big, "detail API of the 1M-request run");
            System.gc();
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            Thread.sleep(idleSeconds * 1000L);
            double cpu = (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - wall0);
            System.out.printf(Locale.ROOT, "idle for %d s: %.2f %% of one core (whole JVM)%n", idleSeconds, 100 * cpu);
            var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            System.out.printf(Locale.ROOT, "heap: %.0f MB used of %.0f MB max (-Xmx)%n", heap.getUsed() / 1e6,
                    heap.getMax() / 1e6);
        }
    }

    static void time(HttpClient http, String url, String what) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).build();
        long bytes = 0;
        for (int i = 0; i < 5; i++) bytes = http.send(req, HttpResponse.BodyHandlers.ofByteArray()).body().length;
        double[] ms = new double[20];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            ms[i] = (System.nanoTime() - t0) / 1e6;
            if (r.statusCode() != 200) throw new IllegalStateException(url + ": " + r.statusCode());
        }
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "%-45s median %7.1f ms, max %7.1f ms (%,d bytes)%n", what, ms[ms.length / 2],
                ms[ms.length - 1], bytes);
    }

    /** One point of {@code n} streamed requests (32 chunks each, 1% failures), its result saved as perf does. */
    static String bigRun(RunStore store, int n) throws Exception {
        ObjectMapper json = new ObjectMapper();
        RunInfo info = new RunInfo("parallel_256_number_" + n, 256, -1, n);
        String id = store.createRun(new RunStart("big", List.of("bench"), "bench-model", "http://bench/v1",
                json.createObjectNode().put("model", "bench-model").put("number", n), Map.of("java_version", "25")),
                Owner.current(), System.currentTimeMillis());
        store.addPoint(id, 0, info, System.currentTimeMillis());
        RunMetrics metrics = new RunMetrics();
        SplittableRandom rnd = new SplittableRandom(1);
        List<RequestRecord> batch = new ArrayList<>(5000);
        for (int i = 0; i < n; i++) {
            RequestRecord r = record(i, 32, rnd);
            metrics.accept(r);
            batch.add(r);
            if (batch.size() == 5000) {
                store.insertRequests(id, 0, BASE, batch, System.currentTimeMillis());
                batch.clear();
            }
        }
        if (!batch.isEmpty()) store.insertRequests(id, 0, BASE, batch, System.currentTimeMillis());
        store.savePointResult(id, 0, metrics.result(info));
        store.finishRun(id, "finished", System.currentTimeMillis());
        return id;
    }

    /** {@code n} runs of 20 requests over 12 targets, each with its stored result (what the list reads). */
    static void smallRuns(RunStore store, int n) throws Exception {
        ObjectMapper json = new ObjectMapper();
        SplittableRandom rnd = new SplittableRandom(2);
        for (int k = 0; k < n; k++) {
            String model = "m" + (k % 4);
            String url = "http://h" + (k % 3) + "/v1";
            RunInfo info = new RunInfo("parallel_4_number_20", 4, -1, 20);
            String id = store.createRun(new RunStart("small" + k, List.of("t" + (k % 5)), model, url,
                    json.createObjectNode().put("model", model).put("url", url), Map.of("java_version", "25")),
                    Owner.current(), System.currentTimeMillis());
            store.addPoint(id, 0, info, System.currentTimeMillis());
            RunMetrics metrics = new RunMetrics();
            List<RequestRecord> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                RequestRecord r = record(i, 8, rnd);
                metrics.accept(r);
                batch.add(r);
            }
            store.insertRequests(id, 0, BASE, batch, System.currentTimeMillis());
            store.savePointResult(id, 0, metrics.result(info));
            store.finishRun(id, "finished", System.currentTimeMillis());
        }
    }

    static RequestRecord record(int i, int chunks, SplittableRandom rnd) {
        long start = BASE + i * 250_000L;
        long[] t = new long[chunks];
        long at = start + 30_000_000L + rnd.nextLong(20_000_000L);
        for (int k = 0; k < chunks; k++) {
            t[k] = at;
            at += 8_000_000L + rnd.nextLong(4_000_000L);
        }
        boolean ok = i % 100 != 99;
        return new RequestRecord(new Position(i, "bench-" + i, null, 0, true),
                new Timing(true, 1_760_000_000_000L + i / 4, Moments.ABSENT, start, start + 5_000_000L,
                        t[0] - 100_000L, t[0], at, t),
                new Tokens(512 + rnd.nextInt(512), chunks, rnd.nextInt(256), RequestRecord.CacheSource.SERVER,
                        RequestRecord.TokenSource.SERVER, -1, -1),
                ok ? Outcome.ok(200, "length") : Outcome.failed("http_5xx", 503, "Service Unavailable"),
                PhaseTimes.NONE, null);
    }
}
