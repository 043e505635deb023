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
import io.unibench.output.EvalscopeFiles;
import io.unibench.report.TerminalReport;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Report generation at scale (issue 7): feeds N synthetic streamed RequestRecords (CHUNKS token chunks each, TTFT and
 * ITL drawn around 50 ms / 20 ms) into RunMetrics one at a time, as a run does, then times result(), the evalscope
 * files and the terminal report, and reports heap: retained after the feed (after a full GC) and peak during the
 * report phase (sum of the heap pools' peaks, reset just before it).
 *
 * <p>Run: ./unibench --version >/dev/null; java -Xmx6g -cp target/unibench.jar bench/report/ReportGenBench.java N [CHUNKS=256]
 */
public class ReportGenBench {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long heap0 = usedAfterGc();
        RunMetrics metrics = new RunMetrics();
        SplittableRandom rnd = new SplittableRandom(7);
        long t0 = System.nanoTime();
        long base = 1_000_000_000L;
        for (int i = 0; i < n; i++) {
            long start = base + i * 1_000_000L; // 1,000 req/s
            long first = start + 40_000_000L + rnd.nextLong(20_000_000L);
            long[] token = new long[chunks];
            long t = first;
            for (int c = 0; c < chunks; c++) {
                token[c] = t;
                t += 15_000_000L + rnd.nextLong(10_000_000L);
            }
            long end = token[chunks - 1] + 100_000L;
            metrics.accept(new RequestRecord(new Position(i, "req-" + i, null, 0, true),
                    new Timing(true, 1_700_000_000_000L + i, Moments.ABSENT, start, start + 1_000_000L, first - 1_000L,
                            first, end, token),
                    Tokens.counted(100 + rnd.nextInt(900), chunks, RequestRecord.TokenSource.SERVER),
                    Outcome.ok(200, "length"), PhaseTimes.NONE, null));
        }
        double feedS = (System.nanoTime() - t0) / 1e9;
        long retained = usedAfterGc() - heap0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) p.resetPeakUsage();
        long cpu0 = os.getProcessCpuTime();
        long r0 = System.nanoTime();
        RunResult result = metrics.result(new RunInfo("bench", 256, -1, n));
        long r1 = System.nanoTime();
        Path dir = Files.createTempDirectory("report-bench");
        EvalscopeFiles.write(dir, result);
        long r2 = System.nanoTime();
        String text = TerminalReport.render(List.of(result), Map.of("Model", "bench"));
        long r3 = System.nanoTime();
        long cpu = os.getProcessCpuTime() - cpu0;
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) peak += p.getPeakUsage().getUsed();
        }
        System.out.printf("requests %,d x %d chunks (%,d ITL samples); max heap %d MiB; load avg %.2f%n", n, chunks,
                (long) n * (chunks - 1), Runtime.getRuntime().maxMemory() >> 20, os.getSystemLoadAverage());
        System.out.printf("feed (RunMetrics.accept, as during a run): %.2f s (%.2f us/request)%n", feedS, feedS * 1e6 / n);
        System.out.printf("report: result() %.2f s + evalscope files %.2f s + terminal report %.3f s = %.2f s wall, %.2f CPU-s%n",
                (r1 - r0) / 1e9, (r2 - r1) / 1e9, (r3 - r2) / 1e9, (r3 - r0) / 1e9, cpu / 1e9);
        System.out.printf("heap retained by RunMetrics after the feed: %,d MiB (%,.0f bytes/request); peak heap in the report phase: %,d MiB%n",
                retained >> 20, (double) retained / n, peak >> 20);
        System.out.println(text.lines().filter(l -> l.contains("Request") || l.contains("ITL")).limit(4).toList());
        try (var files = Files.list(dir)) { files.forEach(f -> f.toFile().delete()); }
        Files.delete(dir);
    }

    static long usedAfterGc() {
        System.gc();
        System.gc();
        var m = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return m.getUsed();
    }
}
