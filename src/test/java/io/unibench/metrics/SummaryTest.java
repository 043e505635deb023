package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SummaryTest {
    /** Every value a summary always has, by name; the optional ones stay unset. */
    private static Summary.Builder required() {
        return Summary.builder().testDurationSeconds(2).concurrency(4).requestRate(-1).totalRequests(10)
                .successRequests(9).failedRequests(1).streamRequests(10).nonStreamRequests(0).reqThroughput(4.5)
                .avgLatencySeconds(0.5).avgInputTokens(100).outputThroughput(45).totalThroughput(495)
                .avgOutputTokens(10).inputThroughput(0).totalInputTokens(900).totalOutputTokens(90);
    }

    @Test
    void unsetOptionalValuesAreAbsentKeys() {
        Summary s = required().build();
        assertThat(s.scheduled()).isFalse();
        assertThat(s.cancelledRequests()).isZero();
        assertThat(s.toMap()).doesNotContainKeys(Summary.AVG_TURNS, Summary.CANCELLED_REQUESTS,
                Summary.AVG_QUEUE_DELAY, Summary.COMPLETED_TRACES).containsEntry(Summary.AVG_TTFT, null)
                .containsEntry(Summary.AVG_LATENCY, 0.5).containsEntry(Summary.TOTAL_THROUGHPUT, 495.0);
    }

    @Test
    void aRequiredValueLeftUnsetIsNamed() {
        assertThatThrownBy(() -> Summary.builder().testDurationSeconds(1).build())
                .isInstanceOf(IllegalStateException.class).hasMessage("Summary.concurrency was not set");
        assertThatThrownBy(() -> Summary.builder().build()).hasMessage("Summary.testDurationSeconds was not set");
    }
}
