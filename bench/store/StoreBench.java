// Run history benchmark: store size per 100,000 requests, time to list 1,000 runs, time to compare (and to
// re-report) two runs of 100,000 requests each. Synthetic but realistic records (streamed, N text chunks each).
//
//   mvn -q -DskipTests package
//   java -cp target/unibench.jar bench/store/StoreBench.java [--db JDBC_URL_OR_FILE] [--requests 100000] [--chunks 128]
//
// Without --db it uses a new SQLite file in a temporary folder (deleted at the end).
import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.report.RunComparisonReport;
import io.unibench.store.Owner;
import io.unibench.store.RunComparison;
import io.unibench.store.RunFilter;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredReports;
import io.unibench.store.StoredRun;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

public class StoreBench {
    static final long BASE = 1_000_000_000_000L;

    public static void main(String[] args) throws Exception {
        String db = null;
        int requests = 100_000;
        int chunks = 128;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> db = args[++i];
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--chunks" -> chunks = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(args[i]);
            }
        }
        Path tmp = null;
        StoreLocation loc;
        if (db == null) {
            tmp = Files.createTempDirectory("storebench");
            loc = StoreLocation.sqlite(tmp.resolve("unibench.db"));
        } else {
            loc = StoreLocation.resolve(db, System.getenv());
        }
        System.out.printf(Locale.ROOT, "store: %s, %d requests per run, %d text chunks per request%n",
                loc.display(), requests, chunks);
        ObjectMapper json = new ObjectMapper();
        Owner me = Owner.current();
        RunInfo info = new RunInfo("parallel_64_number_" + requests, 64, -1, requests);
        try (RunStore store = RunStore.open(loc)) {
            long sizeBefore = size(loc);
            String[] big = new String[2];
            for (int run = 0; run < 2; run++) {
                var config = json.createObjectNode().put("model", "bench").put("url", "http://bench/v1").put("number", requests);
                big[run] = store.createRun(new RunStart("big" + run, List.of("bench"), "bench", "http://bench/v1", config,
                        Map.of()), me, System.currentTimeMillis());
                store.addPoint(big[run], 0, info, System.currentTimeMillis());
                RunMetrics metrics = new RunMetrics();
                long t0 = System.nanoTime();
                SplittableRandom rnd = new SplittableRandom(run);
                List<RequestRecord> batch = new ArrayList<>(2000);
                for (int i = 0; i < requests; i++) {
                    RequestRecord r = record(i, chunks, rnd, run == 0 ? 1.0 : 1.05);
                    metrics.accept(r);
                    batch.add(r);
                    if (batch.size() == 2000) {
                        store.insertRequests(big[run], 0, BASE, batch, System.currentTimeMillis());
                        batch.clear();
                    }
                }
                if (!batch.isEmpty()) store.insertRequests(big[run], 0, BASE, batch, System.currentTimeMillis());
                store.savePointResult(big[run], 0, metrics.result(info));
                store.finishRun(big[run], "finished", System.currentTimeMillis());
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "write run %d: %.1f s (%.0f requests/s, batches of 2000)%n", run, s,
                        requests / s);
            }
            long sizeAfter = size(loc);
            if (sizeAfter >= 0) {
                double perRun = (sizeAfter - sizeBefore) / 2.0;
                System.out.printf(Locale.ROOT, "store size: %.1f MB per run of %d requests = %.1f MB per 100,000 "
                        + "requests (%.0f bytes a request)%n", perRun / 1e6, requests, perRun / requests * 100_000 / 1e6,
                        perRun / requests);
            }

            for (int i = 0; i < 1000; i++) {
                var config = json.createObjectNode().put("model", "m" + (i % 7)).put("url", "http://h" + (i % 3) + "/v1");
                String id = store.createRun(new RunStart("small" + i, List.of("t" + (i % 5), "bench"), "m" + (i % 7),
                        "http://h" + (i % 3) + "/v1", config, Map.of("java_version", "21")), me, System.currentTimeMillis());
                store.finishRun(id, "finished", System.currentTimeMillis());
            }
            for (int rep = 0; rep < 3; rep++) {
                long t0 = System.nanoTime();
                int n = store.list(RunFilter.all(1000)).size();
                System.out.printf(Locale.ROOT, "list %d runs (with tags): %.1f ms%n", n, (System.nanoTime() - t0) / 1e6);
            }
            for (int rep = 0; rep < 2; rep++) {
                long t0 = System.nanoTime();
                StoredRun a = store.run(big[0]);
                StoredRun b = store.run(big[1]);
                RunComparison.Result r = RunComparison.compare(store, a, b);
                var p = r.pairs().getFirst();
                String text = RunComparisonReport.render(a.row().label(), List.of(new RunComparisonReport.Side("B",
                        b.row().label(), p.rows(), p.onlyBaseline(), p.onlyCandidate())), RunComparison.METHOD);
                System.out.printf(Locale.ROOT, "compare two runs of %d requests (stored summaries, %d rows): %.1f ms%n",
                        requests, r.rows().size(), (System.nanoTime() - t0) / 1e6);
                if (rep == 1 && text.isEmpty()) throw new AssertionError();
            }
            for (int rep = 0; rep < 2; rep++) {
                long t0 = System.nanoTime();
                int points = StoredReports.results(store, store.run(big[0])).size()
                        + StoredReports.results(store, store.run(big[1])).size();
                System.out.printf(Locale.ROOT, "recompute both reports from the %d stored requests (%d points): %.1f s%n",
                        2 * requests, points, (System.nanoTime() - t0) / 1e9);
            }
            for (String id : big) store.deleteRun(id, false);
        }
        if (tmp != null) {
            try (var walk = Files.walk(tmp)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** SQLite: file + WAL after a checkpoint; PostgreSQL: the database size. -1 when unknown. */
    static long size(StoreLocation loc) throws Exception {
        if (loc.file() != null) {
            try (var c = DriverManager.getConnection(loc.jdbcUrl(), loc.properties()); var st = c.createStatement()) {
                st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
            Path wal = Path.of(loc.file() + "-wal");
            return Files.size(loc.file()) + (Files.exists(wal) ? Files.size(wal) : 0);
        }
        try (var c = DriverManager.getConnection(loc.jdbcUrl(), loc.properties()); var st = c.createStatement();
             var rs = st.executeQuery("SELECT pg_database_size(current_database())")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static RequestRecord record(int i, int chunks, SplittableRandom rnd, double slow) {
        long start = BASE + i * 2_000_000L;
        long[] t = new long[chunks];
        long at = start + (long) ((30_000_000L + rnd.nextLong(20_000_000L)) * slow);
        for (int k = 0; k < chunks; k++) {
            t[k] = at;
            at += (long) ((8_000_000L + rnd.nextLong(4_000_000L)) * slow);
        }
        boolean ok = i % 100 != 99;
        return new RequestRecord(new Position(i, "bench-" + Integer.toString(i, 36) + "-" + i, null, 0, true),
                new Timing(true, 1_760_000_000_000L + i * 2L, Moments.ABSENT, start, start + 5_000_000L,
                        t[0] - 100_000L, t[0], at, t),
                new Tokens(512 + rnd.nextInt(512), chunks, rnd.nextInt(256), RequestRecord.CacheSource.SERVER,
                        RequestRecord.TokenSource.SERVER, -1, -1),
                ok ? Outcome.ok(200, "length") : Outcome.failed("http_5xx", 503, "Service Unavailable"),
                PhaseTimes.NONE, null);
    }
}
