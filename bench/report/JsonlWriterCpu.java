import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.output.RequestsJsonlWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU of {@code requests.jsonl} writing alone: 60,000 streamed records of 256 text chunks (the c=256 bench's shape),
 * six rounds, the writing thread's CPU per round. Run:
 * {@code java -XX:TieredStopAtLevel=1 -cp target/unibench.jar bench/report/JsonlWriterCpu.java} (under the bench
 * lock); the first rounds include the JIT's warm-up.
 */
public class JsonlWriterCpu {
    public static void main(String[] a) throws Exception {
        RequestRecord[] recs = new RequestRecord[1024];
        long base = 1_000_000_000_000L;
        for (int i = 0; i < recs.length; i++) {
            long start = base + i * 1_000_000L;
            long[] chunks = new long[256];
            for (int c = 0; c < 256; c++) chunks[c] = start + 200_000L + c * 20_000L + (i * 7919L + c) % 5_000L;
            recs[i] = new RequestRecord(new Position(i, "chatcmpl-" + i, null, 0, false),
                    new Timing(true, 1_700_000_000_000L + i, Moments.ABSENT, start, start + 100_000L, start + 150_000L,
                            chunks[0], chunks[255] + 10_000L, chunks),
                    new Tokens(9, 256, 0, RequestRecord.CacheSource.SERVER, RequestRecord.TokenSource.SERVER, -1, -1),
                    Outcome.ok(200, "length"), new PhaseTimes(Moments.ABSENT, Moments.ABSENT, Moments.ABSENT,
                            Moments.ABSENT, start + 1000, start + 5000, start + 90_000), null);
        }
        run(recs);
    }
    static void run(RequestRecord[] recs) throws Exception {
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 6; round++) {
            Path f = Files.createTempFile("wb", ".jsonl");
            long c0 = bean.getCurrentThreadCpuTime();
            try (RequestsJsonlWriter w = new RequestsJsonlWriter(f, 999_000_000_000L)) {
                for (int i = 0; i < 60000; i++) w.accept(recs[i & 1023]);
            }
            long c1 = bean.getCurrentThreadCpuTime();
            System.out.printf("round %d: %.3f CPU-s per 60,000 (%d bytes)%n", round, (c1 - c0) / 1e9, Files.size(f));
            Files.delete(f);
        }
    }
}
