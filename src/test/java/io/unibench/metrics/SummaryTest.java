package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SummaryTest {
    /** Every value a summary always has; the optional ones are null, the flags false, nothing cancelled. */
    private static Summary required() {
        return new Summary(new Summary.Load(2, 4, -1), new Summary.Requests(10, 9, 1, 0, 10, 0, null),
                new Summary.Throughput(4.5, 45, 495, null), new Summary.Latency(0.5, null, null, null, null, null),
                new Summary.TokenCounts(100, 10, 900, 90, null), new Summary.MultiTurn(null, null, null, null),
                new Summary.Cache(null, null, null, null), new Summary.Speculative(null, null),
                new Summary.Reasoning(false, null, null, null), new Summary.Queueing(false, null, null, null),
                new Summary.Statistics(null, null));
    }

    @Test
    void unsetOptionalValuesAreAbsentKeys() {
        Summary s = required();
        assertThat(s.queueing().scheduled()).isFalse();
        assertThat(s.requests().cancelledRequests()).isZero();
        assertThat(s.toMap()).doesNotContainKeys(Summary.AVG_TURNS, Summary.CANCELLED_REQUESTS,
                Summary.AVG_QUEUE_DELAY, Summary.COMPLETED_TRACES).containsEntry(Summary.AVG_TTFT, null)
                .containsEntry(Summary.AVG_LATENCY, 0.5).containsEntry(Summary.TOTAL_THROUGHPUT, 495.0);
    }

    @Test
    void aMissingGroupIsNamed() {
        Summary s = required();
        assertThatThrownBy(() -> new Summary(s.load(), null, s.throughput(), s.latency(), s.tokens(), s.multiTurn(),
                s.cache(), s.speculative(), s.reasoning(), s.queueing(), s.stats()))
                .isInstanceOf(NullPointerException.class).hasMessage("Summary.requests");
        assertThatThrownBy(() -> new Summary(null, null, null, null, null, null, null, null, null, null, null))
                .hasMessage("Summary.load");
    }
}
