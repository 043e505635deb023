// CPU of the run-history writer alone: the thread CPU (Java + SQLite's native code) that RunStore.insertRequests
// spends on N streamed requests of K text chunks, in batches as RunRecorder hands them over. Run with the launcher's
// JIT mode (C1 only) to match `unibench perf`:
//
//   mvn -q -DskipTests package
//   java -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED -cp target/unibench.jar \
//       bench/store/WriterCpu.java [--db FILE_OR_URL] [--requests 60000] [--chunks 256] [--batch 2000] [--rounds 3]
//       [--pragma cache_size=-16384 ...]
//
// Chunk gaps are those of the static nginx target (a few µs; 1-2 varint bytes each). Without --db: a new SQLite
// file in a temporary folder. Prints CPU-s per 1,000 requests per round (the first includes JIT warm-up).
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.store.Owner;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

public class WriterCpu {
    public static void main(String[] args) throws Exception {
        String db = null;
        List<String> pragmas = new ArrayList<>();
        int requests = 60_000, chunks = 256, batchSize = 2000, rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> db = args[++i];
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--chunks" -> chunks = Integer.parseInt(args[++i]);
                case "--batch" -> batchSize = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--pragma" -> pragmas.add(args[++i]); // name=value, a sqlite-jdbc connection property

                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        Path tmp = db == null ? Files.createTempDirectory("writercpu") : null;
        StoreLocation loc = db == null ? StoreLocation.sqlite(tmp.resolve("unibench.db")) : StoreLocation.resolve(db, System.getenv());
        for (String p : pragmas) loc.properties().setProperty(p.substring(0, p.indexOf('=')), p.substring(p.indexOf('=') + 1));
        var mx = ManagementFactory.getThreadMXBean();
        long base = 1_000_000_000_000L;
        try (RunStore store = RunStore.open(loc)) {
            for (int round = 0; round < rounds; round++) {
                var config = new ObjectMapper().createObjectNode().put("model", "m");
                String id = store.createRun(new RunStart("w" + round, List.of(), "m", "http://x/v1", config, Map.of()),
                        Owner.current(), System.currentTimeMillis());
                store.addPoint(id, 0, new RunInfo("parallel_256_number_" + requests, 256, -1, requests), System.currentTimeMillis());
                SplittableRandom rnd = new SplittableRandom(round);
                List<RequestRecord> all = new ArrayList<>(requests);
                for (int i = 0; i < requests; i++) all.add(record(base, i, chunks, rnd));
                long cpu0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime();
                for (int from = 0; from < requests; from += batchSize) {
                    store.insertRequests(id, 0, base, all.subList(from, Math.min(requests, from + batchSize)), System.currentTimeMillis());
                }
                double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9, wall = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "round %d: %d requests, writer CPU %.3f s (%.4f CPU-s per 1,000), wall %.2f s%n",
                        round, requests, cpu, cpu / requests * 1000, wall);
                store.finishRun(id, "finished", System.currentTimeMillis());
                store.deleteRun(id, false);
            }
        }
        if (tmp != null) try (var walk = Files.walk(tmp)) { walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete()); }
    }

    static RequestRecord record(long base, int i, int chunks, SplittableRandom rnd) {
        long start = base + i * 90_000L;
        long[] t = new long[chunks];
        long at = start + 200_000L + rnd.nextLong(100_000L);
        for (int k = 0; k < chunks; k++) { t[k] = at; at += 2_000L + rnd.nextLong(40_000L); }
        return new RequestRecord(new Position(i, "chatcmpl-" + i, null, 0, true),
                new Timing(true, 1_760_000_000_000L + i, start, start, start + 150_000L, t[0] - 1_000L, t[0], at, t),
                new Tokens(9, chunks, 0, null, RequestRecord.TokenSource.SERVER, -1, -1), Outcome.ok(200, "length"),
                PhaseTimes.NONE, null);
    }
}
