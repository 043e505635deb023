package io.unibench.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyModelTest {
    @Test
    void firstTokenChargesOnlyUncachedPromptTokens() {
        LatencyModel m = new LatencyModel(20, 0.5, 5);
        assertThat(m.firstTokenDelayNanos(100, 0)).isEqualTo(70_000_000L);
        assertThat(m.firstTokenDelayNanos(100, 96)).isEqualTo(22_000_000L);
        assertThat(m.interTokenDelayNanos()).isEqualTo(5_000_000L);
        assertThat(m.totalNanos(100, 96, 10)).isEqualTo(22_000_000L + 9 * 5_000_000L);
        assertThat(m.totalNanos(100, 96, 1)).isEqualTo(22_000_000L);
    }
}
