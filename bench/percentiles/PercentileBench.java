// Exact percentiles past the old 262,144-sample cap (issue 21): heap and time of one RunMetrics fed N requests
// (streamed successes with C text chunks each, every 20th a 429, as bench/shard/ShardBench.java builds them), then
// its report (RunMetrics.result: every column sorted once and read at the 11 ranks).
//
//   mvn -q -DskipTests package
//   java -Xmx1g -cp target/unibench.jar bench/percentiles/PercentileBench.java [--requests 1000000] [--chunks 16]
//
// Prints the accept and report times, the heap peak (sum of the heap pools' peaks since the first record: an upper
// bound of what was held at once), the live heap after the report, and the Percentile Method the summary names.
import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import java.util.SplittableRandom;

public class PercentileBench {
    public static void main(String[] args) {
        int requests = 1_000_000;
        int chunks = 16;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--chunks" -> chunks = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) p.resetPeakUsage();
        RunMetrics m = new RunMetrics();
        SplittableRandom rnd = new SplittableRandom(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < requests; i++) m.accept(record(i, chunks, rnd));
        double acceptSeconds = (System.nanoTime() - t0) / 1e9;
        long t1 = System.nanoTime();
        RunResult r = m.result(new RunInfo("parallel_64_number_" + requests, 64, -1, requests));
        double reportSeconds = (System.nanoTime() - t1) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) peak += p.getPeakUsage().getUsed();
        }
        System.gc();
        long live = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.printf(Locale.ROOT, "%,d requests x %d chunks (heap max %d MiB): accept %.2f s (%,.0f/s), report "
                        + "%.2f s; heap peak %d MiB, live after the report %d MiB (RunMetrics and the result held)%n",
                requests, chunks, Runtime.getRuntime().maxMemory() >> 20, acceptSeconds, requests / acceptSeconds,
                reportSeconds, peak >> 20, live >> 20);
        System.out.println("Percentile Method: " + r.summary().percentileMethod());
        System.out.println("p99 latency " + r.percentile("99%", "Latency (s)") + " s, p99 TTFT "
                + r.percentile("99%", "TTFT (ms)") + " ms, " + m.total() + " records");
    }

    static RequestRecord record(int i, int chunks, SplittableRandom rnd) {
        long start = i * 200_000L + rnd.nextLong(100_000);
        boolean ok = i % 20 != 19;
        long[] times = new long[ok ? chunks : 0];
        long t = start + 20_000_000L + rnd.nextLong(5_000_000L);
        for (int k = 0; k < times.length; k++) {
            times[k] = t;
            t += 4_000_000L + rnd.nextLong(2_000_000L);
        }
        long end = ok ? t : start + 1_000_000L;
        return new RequestRecord(new Position(i, "r-" + i, null, 0, false),
                new Timing(true, 1_780_000_000_000L + start / 1_000_000, Moments.ABSENT, start, start + 10_000_000L,
                        ok ? times[0] : Moments.ABSENT, ok ? times[0] : Moments.ABSENT, end, times),
                new Tokens(500 + rnd.nextInt(100), ok ? chunks : -1, ok ? rnd.nextInt(200) : -1,
                        ok ? RequestRecord.CacheSource.SERVER : null, RequestRecord.TokenSource.SERVER, -1, -1),
                new Outcome(ok, ok ? null : "http_429", ok ? 200 : 429, ok ? null : "slow down", null,
                        ok ? "length" : null),
                PhaseTimes.NONE, null);
    }
}
