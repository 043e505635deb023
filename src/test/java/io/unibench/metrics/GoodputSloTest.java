package io.unibench.metrics;

import io.unibench.Moments;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GoodputSloTest {
    private static final long MS = 1_000_000;

    /** A streamed record: first token at {@code ttftMs}, end at {@code latencyMs}, {@code tokens} output tokens. */
    private static RequestRecord record(boolean success, long ttftMs, long latencyMs, int tokens) {
        return new RequestRecord(new Position(0, "r", null, 0, false),
                new Timing(true, 0, Moments.ABSENT, 0, 0, ttftMs * MS, ttftMs * MS, latencyMs * MS, new long[0]),
                new Tokens(10, tokens, -1, null, RequestRecord.TokenSource.SERVER, -1, -1),
                new Outcome(success, success ? null : "http_500", success ? 200 : 500, null, null, null),
                PhaseTimes.NONE, null);
    }

    @Test
    void everyGivenObjectiveMustHoldAndFailuresAreNeverGood() {
        GoodputSlo slo = new GoodputSlo(100.0, 10.0, 500.0);
        assertThat(slo.met(record(true, 100, 190, 10))).isTrue(); // ttft 100, tpot 10, e2el 190: on the bounds
        assertThat(slo.met(record(true, 101, 190, 10))).isFalse(); // ttft over
        assertThat(slo.met(record(true, 50, 150, 10))).isFalse(); // tpot 11.1 over
        assertThat(slo.met(record(true, 50, 510, 100))).isFalse(); // e2el over, tpot 4.6 fine
        assertThat(slo.met(record(false, 10, 20, 3))).isFalse();
    }

    @Test
    void aOneTokenReplyMeetsTheTpotBoundAsInVllm() {
        GoodputSlo tpotOnly = new GoodputSlo(null, 1.0, null);
        assertThat(tpotOnly.met(record(true, 400, 900, 1))).isTrue();
        assertThat(tpotOnly.met(record(true, 400, 900, 2))).isFalse();
    }

    @Test
    void describesInVllmsSpellingAndNeedsAnObjective() {
        assertThat(new GoodputSlo(500.0, null, 1500.5).describe()).isEqualTo("ttft:500 e2el:1500.5");
        assertThatThrownBy(() -> new GoodputSlo(null, null, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
