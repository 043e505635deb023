package io.unibench.store;

import io.unibench.Moments;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.ServerTimings;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Stores for tests: a SQLite file in a temporary folder, or a fresh schema on the PostgreSQL server named by
 * {@code UNIBENCH_TEST_PG_URL} ({@code .ci/run} starts one); without that variable PostgreSQL tests are skipped.
 */
public final class TestStores {
    public static final String PG_ENV = "UNIBENCH_TEST_PG_URL";

    private TestStores() {}

    /** A store location and how to remove it. */
    public record Backend(StoreLocation location, AutoCloseable cleanup) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            cleanup.close();
        }
    }

    /** {@code sqlite} (a file in {@code dir}) or {@code postgres}: the parameter of the tests run on both stores. */
    public static Backend of(String kind, Path dir) throws SQLException {
        return kind.equals("sqlite") ? sqlite(dir) : postgres();
    }

    public static Backend sqlite(Path dir) {
        return new Backend(StoreLocation.sqlite(dir.resolve("unibench.db")), () -> { });
    }

    /** A new empty schema on the test server; skipped (assumption) when there is none. */
    public static Backend postgres() throws SQLException {
        String url = System.getenv(PG_ENV);
        assumeTrue(url != null && !url.isBlank(), PG_ENV + " not set: no PostgreSQL server for this test");
        String schema = "t_" + Long.toHexString(System.nanoTime()) + "_" + Integer.toHexString(new Object().hashCode());
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        String scoped = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        StoreLocation location = StoreLocation.resolve(scoped, Map.of());
        return new Backend(location, () -> {
            try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        });
    }

    /**
     * {@code n} realistic records of one point starting at {@code base}: streamed successes with chunk times,
     * every fifth a failure without first token, every seventh without cached tokens, conversation ids on some.
     */
    public static List<RequestRecord> records(int n, long base, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<RequestRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long start = base + i * 3_000_000L + rnd.nextLong(1000);
            boolean ok = i % 5 != 4;
            int completion = ok ? 1 + rnd.nextInt(40) : -1;
            long[] chunks = new long[ok ? completion : 0];
            long t = start + 20_000_000L + rnd.nextLong(5_000_000L);
            for (int k = 0; k < chunks.length; k++) {
                chunks[k] = t;
                t += 4_000_000L + rnd.nextLong(3_000_000L);
            }
            long end = ok ? t : start + 1_000_000L;
            int prompt = 100 + rnd.nextInt(50);
            int cached = ok && i % 7 != 0 ? rnd.nextInt(64) : -1;
            out.add(new RequestRecord(
                    new Position(i, "req-" + i, i % 3 == 0 ? "conv-" + (i / 3) : null, i % 3, i % 3 == 2),
                    new Timing(true, 1_760_000_000_000L + i, i % 2 == 0 ? start - 500_000L : Moments.ABSENT, start,
                            start + 10_000_000L, ok ? chunks[0] - 1000 : Moments.ABSENT,
                            ok ? chunks[0] : Moments.ABSENT, end, chunks),
                    new Tokens(prompt, completion, cached,
                            cached < 0 ? null : i % 5 == 0 ? RequestRecord.CacheSource.ESTIMATE
                                    : RequestRecord.CacheSource.SERVER,
                            i % 11 == 0 ? RequestRecord.TokenSource.ESTIMATE : RequestRecord.TokenSource.SERVER, -1, -1),
                    new Outcome(ok, ok ? null : "http_429", ok ? 200 : 429,
                            ok ? null : "Too Many Requests, \"quoted\",\nsecond line",
                            !ok && i % 10 == 4 ? "rate_limit_exceeded" : null, ok ? "length" : null),
                    PhaseTimes.NONE,
                    // the server's words: llama.cpp timings on some successes (one without prompt_ms)
                    ok && i % 3 == 1 ? new ServerTimings(90, i % 6 == 1 ? Double.NaN : 12.5 + i,
                            completion, 4.25 * completion, 10) : null));
            if (i % 4 == 1) { // sent twice: a stale pooled connection, then a new one
                out.set(i, out.get(i).withPhases(new PhaseTimes(start + 1000, start + 2000, start + 90_000,
                        Moments.ABSENT, start + 91_000, start + 95_000, start + 9_000_000, start - 400_000)));
            }
        }
        return out;
    }
}
