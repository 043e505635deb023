package io.unibench.metrics;

import io.unibench.Moments;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of aggregating one finished streamed request of 256 token chunks into the run's metrics
 * ({@link RunMetrics#accept}); a fresh RunMetrics per iteration keeps its growth (exact percentiles keep every
 * value) inside the measurement, as in a real run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RunMetricsBench {
    private RunMetrics metrics;
    private RequestRecord[] records;
    private int next;

    @Setup(org.openjdk.jmh.annotations.Level.Iteration)
    public void setup() {
        metrics = new RunMetrics();
        records = new RequestRecord[1024];
        long base = 1_000_000_000_000L;
        for (int i = 0; i < records.length; i++) {
            long start = base + i * 1_000_000L;
            long[] chunks = new long[256];
            for (int c = 0; c < chunks.length; c++) chunks[c] = start + 200_000L + c * 20_000L + (i * 7919L + c) % 5_000L;
            records[i] = new RequestRecord(new Position(i, "req-" + i, null, 0, true),
                    new Timing(true, 1_700_000_000_000L + i, Moments.ABSENT, start, start + 100_000L,
                            start + 150_000L, chunks[0], chunks[255] + 10_000L, chunks),
                    new Tokens(9, 256, 0, RequestRecord.CacheSource.SERVER, RequestRecord.TokenSource.SERVER, -1, -1),
                    Outcome.ok(200, "length"), PhaseTimes.NONE, null);
        }
    }

    @Benchmark
    public RunMetrics accept() {
        metrics.accept(records[next++ & (records.length - 1)]);
        return metrics;
    }
}
