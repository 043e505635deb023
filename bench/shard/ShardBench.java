// Sharded-run benchmark (issue 21): the per-shard write rate of stored requests (the path perf's RunRecorder takes:
// RunStore.insertRequests, batches of 2,000 in one transaction, PostgreSQL's reWriteBatchedInserts), then
// `runs merge` of the group (GroupMerge.merge: every shard streamed from its own connection, k-way merged into one
// RunMetrics). Synthetic but realistic records: streamed successes with N text chunks, every 20th a 429.
//
//   mvn -q -DskipTests package
//   java -Xmx512m -cp target/unibench.jar bench/shard/ShardBench.java --db jdbc:postgresql://127.0.0.1:5432/db?user=u \
//       [--shards 4] [--requests 250000] [--chunks 16] [--concurrent]
//
// Without --db it uses a new SQLite file in a temporary folder. --concurrent writes the shards at once (one thread
// each) instead of one after the other. The merge runs in the same JVM, so -Xmx512m bounds the merge's heap too.
//
//   java -Xmx1g -cp target/unibench.jar bench/shard/ShardBench.java --in-memory [--shards 1] --requests 4000000
//
// --in-memory skips the store: the shards' records go straight into one RunMetrics (what a run of that many
// requests, or the merge, aggregates), then its report: the heap and time of exact percentiles at that size.
import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.store.ClockOffset;
import io.unibench.store.GroupMerge;
import io.unibench.store.MergedGroup;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.ShardRegistry;
import io.unibench.store.StoreLocation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

public class ShardBench {
    static final int BATCH = 2000;
    static final long ORIGIN_MS = 1_780_000_000_000L;

    public static void main(String[] args) throws Exception {
        String db = null;
        int shards = 4;
        int requests = 250_000;
        int chunks = 16;
        boolean concurrent = false;
        boolean inMemory = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> db = args[++i];
                case "--shards" -> shards = Integer.parseInt(args[++i]);
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--chunks" -> chunks = Integer.parseInt(args[++i]);
                case "--concurrent" -> concurrent = true;
                case "--in-memory" -> inMemory = true;
                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        if (inMemory) {
            aggregate(shards, requests, chunks);
            return;
        }
        StoreLocation loc = db != null ? StoreLocation.resolve(db, System.getenv())
                : StoreLocation.sqlite(Files.createTempDirectory("shardbench").resolve("unibench.db"));
        String group = "bench-" + Long.toString(System.currentTimeMillis(), 36);
        System.out.printf(Locale.ROOT, "store: %s; group %s: %d shards x %d requests, %d text chunks each; heap max %d MiB%n",
                loc.display(), group, shards, requests, chunks, Runtime.getRuntime().maxMemory() >> 20);
        int n = requests;
        int c = chunks;
        List<Thread> writers = new ArrayList<>();
        double[] rates = new double[shards];
        long wallStart = System.nanoTime();
        for (int s = 0; s < shards; s++) {
            int shard = s;
            int count = shards;
            Runnable write = () -> rates[shard] = writeShard(loc, group, shard, count, n, c);
            if (concurrent) writers.add(Thread.ofPlatform().start(write));
            else write.run();
        }
        for (Thread t : writers) t.join();
        double wall = (System.nanoTime() - wallStart) / 1e9;
        for (int s = 0; s < shards; s++) System.out.printf(Locale.ROOT, "write shard %d: %,.0f requests/s%n", s, rates[s]);
        System.out.printf(Locale.ROOT, "write all (%s): %,d requests in %.1f s = %,.0f requests/s%n",
                concurrent ? "concurrent" : "one after the other", (long) shards * n, wall, shards * n / wall);

        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) p.resetPeakUsage();
        long t0 = System.nanoTime();
        MergedGroup g = GroupMerge.merge(loc, group);
        double mergeSeconds = (System.nanoTime() - t0) / 1e9;
        long peak = heapPeak();
        var summary = g.points().getFirst().result().summary();
        System.out.printf(Locale.ROOT, "merge: %,d requests (%,d successes) in %.2f s = %,.0f requests/s; heap peak %d MiB "
                        + "(sum of pool peaks, an upper bound); partial=%s%n", summary.requests().totalRequests(),
                summary.requests().successRequests(), mergeSeconds, summary.requests().totalRequests() / mergeSeconds, peak >> 20, g.partial());
    }

    /** Every shard's records into one RunMetrics, then its report; prints the time and heap of both. */
    static void aggregate(int shards, int n, int chunks) {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) p.resetPeakUsage();
        RunMetrics m = new RunMetrics();
        long t0 = System.nanoTime();
        for (int s = 0; s < shards; s++) {
            SplittableRandom rnd = new SplittableRandom(s);
            for (int i = 0; i < n; i++) m.accept(record(i, chunks, rnd));
        }
        double acceptSeconds = (System.nanoTime() - t0) / 1e9;
        long t1 = System.nanoTime();
        long total = (long) shards * n;
        RunResult r = m.result(new RunInfo("parallel_64_number_" + total, 64, -1, (int) total));
        double reportSeconds = (System.nanoTime() - t1) / 1e9;
        long peak = heapPeak();
        System.gc();
        long live = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.printf(Locale.ROOT, "in memory: %,d requests x %d chunks (heap max %d MiB): accept %.2f s, report "
                        + "%.2f s; heap peak %d MiB (sum of pool peaks, an upper bound), live after the report %d MiB%n",
                total, chunks, Runtime.getRuntime().maxMemory() >> 20, acceptSeconds, reportSeconds, peak >> 20,
                live >> 20);
        System.out.println("Percentile Method: " + r.summary().stats().percentileMethod());
        java.lang.ref.Reference.reachabilityFence(m); // "live" counts the metrics and the report held
        java.lang.ref.Reference.reachabilityFence(r);
    }

    static long heapPeak() {
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) peak += p.getPeakUsage().getUsed();
        }
        return peak;
    }

    /** One shard's run written as perf's recorder writes it; returns requests per second of the inserts. */
    static double writeShard(StoreLocation loc, String group, int shard, int count, int n, int chunks) {
        try (ShardRegistry r = ShardRegistry.open(loc); RunStore store = RunStore.open(loc)) {
            r.register(group, shard, count, (long) shard * n, new ClockOffset(0, 100), Owner.current());
            String run = store.createRun(new RunStart("shard-" + shard, List.of(), "m", "http://127.0.0.1:1/v1",
                    new ObjectMapper().createObjectNode(), Map.of()), Owner.current(), ORIGIN_MS);
            store.addPoint(run, 0, new RunInfo("parallel_64_number_" + n, 64, -1, n), ORIGIN_MS);
            SplittableRandom rnd = new SplittableRandom(shard);
            long t0 = System.nanoTime();
            List<RequestRecord> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < n; i++) {
                batch.add(record(i, chunks, rnd));
                if (batch.size() == BATCH || i == n - 1) {
                    store.insertRequests(run, 0, 0, batch, ORIGIN_MS);
                    batch.clear();
                }
            }
            double rate = n / ((System.nanoTime() - t0) / 1e9);
            store.finishRun(run, RunRow.FINISHED, ORIGIN_MS + 60_000);
            r.finish(group, shard, run, RunRow.FINISHED, "ok");
            return rate;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static RequestRecord record(int i, int chunks, SplittableRandom rnd) {
        long start = i * 200_000L + rnd.nextLong(100_000); // 5,000 requests/s per shard
        boolean ok = i % 20 != 19;
        long[] times = new long[ok ? chunks : 0];
        long t = start + 20_000_000L + rnd.nextLong(5_000_000L);
        for (int k = 0; k < times.length; k++) {
            times[k] = t;
            t += 4_000_000L + rnd.nextLong(2_000_000L);
        }
        long end = ok ? t : start + 1_000_000L;
        return new RequestRecord(new Position(i, "r-" + i, null, 0, false),
                new Timing(true, ORIGIN_MS + start / 1_000_000, Moments.ABSENT, start, start + 10_000_000L,
                        ok ? times[0] : Moments.ABSENT, ok ? times[0] : Moments.ABSENT, end, times),
                new Tokens(500 + rnd.nextInt(100), ok ? chunks : -1, ok ? rnd.nextInt(200) : -1,
                        ok ? RequestRecord.CacheSource.SERVER : null, RequestRecord.TokenSource.SERVER, -1, -1),
                new Outcome(ok, ok ? null : "http_429", ok ? 200 : 429, ok ? null : "slow down", null,
                        ok ? "length" : null),
                PhaseTimes.NONE, null);
    }
}
