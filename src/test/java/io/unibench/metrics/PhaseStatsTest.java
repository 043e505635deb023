package io.unibench.metrics;

import io.unibench.Moments;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The connections of a run in words, with what the stale retries cost; a failed streamed request stays streamed. */
class PhaseStatsTest {
    private static final long MS = 1_000_000L;

    /** A request whose (second) attempt started at {@code start} ms on a new connection; stale first attempt at {@code stale}. */
    private static RequestRecord record(long start, long stale, boolean success) {
        long s = start * MS;
        return new RequestRecord(Position.single(0, "r"),
                new Timing(true, 0, Moments.ABSENT, s, s + 2 * MS, s + 3 * MS, s + 3 * MS, s + 5 * MS,
                        new long[]{s + 3 * MS}),
                Tokens.counted(10, 1, RequestRecord.TokenSource.SERVER),
                new Outcome(success, success ? null : "http_500", success ? 200 : 500, null, null, null),
                PhaseTimes.NONE, null)
                .withPhases(new PhaseTimes(s, s, s, Moments.ABSENT, s, s, s + 2 * MS,
                        stale < 0 ? Moments.ABSENT : stale * MS));
    }

    @Test
    void theStaleRetriesSayWhatTheirWastedAttemptsCost() {
        PhaseStats stats = new PhaseStats();
        stats.accept(record(100, 96, true));   // 4 ms wasted
        stats.accept(record(200, 198, false)); // 2 ms wasted, a failure: still counted
        stats.accept(record(300, -1, true));
        PhaseSummary p = stats.summary();
        assertThat(p.retriedStale()).isEqualTo(2);
        assertThat(p.staleWasted().n()).isEqualTo(2);
        assertThat(p.staleWasted().avg()).isEqualTo(3.0);
        assertThat(p.connectionsLine()).isEqualTo("2 opened, 0 reused; 2 sent again after a stale pooled connection"
                + " (counted as opened), the wasted attempts 3.0 ms each on average, 6.0 ms in all");
    }

    @Test
    void withoutStaleRetriesTheLineIsJustTheCounts() {
        PhaseStats stats = new PhaseStats();
        stats.accept(record(100, -1, true));
        assertThat(stats.summary().connectionsLine()).isEqualTo("1 opened, 0 reused");
        assertThat(stats.summary().staleWasted()).isNull();
    }
}
