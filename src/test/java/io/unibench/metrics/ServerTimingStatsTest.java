package io.unibench.metrics;

import io.unibench.Moments;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The Server vs Client comparison: never a client count against the server's figure, and replies not streamed. */
class ServerTimingStatsTest {
    private static final long MS = 1_000_000L;

    /** A success started at 0 whose first token came at 100 ms and last at 100 + 10 × (tokens − 1) ms. */
    private static RequestRecord record(boolean stream, int tokens, RequestRecord.TokenSource source) {
        long[] chunks = new long[stream ? tokens : 0];
        for (int k = 0; k < chunks.length; k++) chunks[k] = (100 + 10L * k) * MS;
        long end = (100 + 10L * (tokens - 1)) * MS;
        return new RequestRecord(Position.single(0, "r"),
                new Timing(stream, 0, Moments.ABSENT, 0, 50 * MS, stream ? 100 * MS : Moments.ABSENT,
                        stream ? 100 * MS : Moments.ABSENT, end, chunks),
                Tokens.counted(20, tokens, source), new Outcome(true, null, 200, null, null, "length"),
                PhaseTimes.NONE, new ServerTimings(20, 60.0, tokens, 8.0 * (tokens - 1), 0));
    }

    @Test
    void aTpotFromTheClientsCountIsLeftOutOfTheComparison() {
        ServerTimingStats stats = new ServerTimingStats();
        stats.accept(record(true, 11, RequestRecord.TokenSource.SERVER));
        // an estimate that miscounted the same reply: its TPOT would be 100 / 20 = 5 ms against the server's 8
        stats.accept(record(true, 11, RequestRecord.TokenSource.ESTIMATE).withTokens(
                Tokens.counted(20, 21, RequestRecord.TokenSource.ESTIMATE)));
        ServerVsClient c = stats.summary();
        assertThat(c.requests()).isEqualTo(2);
        assertThat(c.estimatedLeftOut()).isEqualTo(1);
        assertThat(c.row(ServerVsClient.TPOT_MINUS_DECODE).n()).isEqualTo(1);
        assertThat(c.row(ServerVsClient.TPOT_MINUS_DECODE).mean()).isEqualTo(2.0); // 10 − 8, the exact one only
        assertThat(c.row(ServerVsClient.TTFT_MINUS_PREFILL).n()).isEqualTo(2); // TTFT needs no count
    }

    @Test
    void aReplyNotStreamedShowsItsLatencyAndTheServersWholeDecodeNotATtft() {
        ServerTimingStats stats = new ServerTimingStats();
        stats.accept(record(false, 11, RequestRecord.TokenSource.SERVER));
        ServerVsClient c = stats.summary();
        assertThat(c.row(ServerVsClient.TTFT_MINUS_PREFILL)).isNull();
        assertThat(c.row(ServerVsClient.CLIENT_TTFT)).isNull();
        assertThat(c.row(ServerVsClient.SERVER_DECODE_WHOLE).mean()).isEqualTo(80.0);
        assertThat(c.row(ServerVsClient.CLIENT_LATENCY_NO_STREAM).mean()).isEqualTo(200.0);
        assertThat(c.row(ServerVsClient.LATENCY_MINUS_SERVER).mean()).isEqualTo(60.0); // 200 − 60 − 80
    }
}
