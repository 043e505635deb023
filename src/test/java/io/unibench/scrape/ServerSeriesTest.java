package io.unibench.scrape;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ServerSeriesTest {
    private static final double N = Double.NaN;

    private static ServerSample at(long ms, double running, double waiting, double hits, double queries, double gen) {
        return new ServerSample(ms, running, waiting, 0.5, hits, queries, N, gen, N);
    }

    @Test
    void gaugesAveragedCountersIncreasedHitRateOverTheWindow() {
        ServerSeries s = new ServerSeries("vLLM", List.of(at(0, 2, 0, 100, 1000, 50), at(1000, 4, 2, 400, 2000, 150),
                at(2000, 6, 4, 700, 3000, 250)));
        ServerSeries.Summary m = s.summary();
        assertThat(m.runningMean()).isEqualTo(4);
        assertThat(m.runningMax()).isEqualTo(6);
        assertThat(m.waitingMax()).isEqualTo(4);
        assertThat(m.prefixHitRate()).isCloseTo(0.3, within(1e-12));
        assertThat(m.generatedTokens()).isEqualTo(200);
        assertThat(m.generatedTokensPerSecond()).isEqualTo(100);
        assertThat(m.resets()).isZero();
        assertThat(m.toMap()).containsEntry("Server Running Mean", 4.0).containsEntry("Server Prefix Cache Hit Rate", 0.3)
                .doesNotContainKey("Server Counter Resets");
    }

    @Test
    void aCounterThatFallsIsARestartItsNewValueIsTheIncrease() {
        ServerSeries s = new ServerSeries("vLLM", List.of(at(0, 0, 0, N, N, 1000), at(1000, 0, 0, N, N, 1100),
                at(2000, 0, 0, N, N, 30), at(3000, 0, 0, N, N, 80)));
        ServerSeries.Summary m = s.summary();
        assertThat(m.generatedTokens()).isEqualTo(100 + 30 + 50);
        assertThat(m.resets()).isEqualTo(1);
        assertThat(m.prefixHitRate()).isNaN();
        assertThat(m.toMap()).containsEntry("Server Counter Resets", 1).doesNotContainKey("Server Prefix Cache Hit Rate");
    }

    @Test
    void withoutCountersTheEnginesOwnHitRateGaugeIsAveraged() {
        ServerSeries s = new ServerSeries("SGLang", List.of(new ServerSample(0, 1, 0, 0.2, N, N, 0.4, N, N),
                new ServerSample(1000, 1, 0, 0.2, N, N, 0.6, N, N)));
        assertThat(s.summary().prefixHitRate()).isCloseTo(0.5, within(1e-12));
        assertThat(s.summary().generatedTokens()).isNaN();
    }

    @Test
    void oneScrapeHasGaugesButNoIncrease() {
        ServerSeries.Summary m = new ServerSeries("vLLM", List.of(at(0, 3, 1, 5, 10, 7))).summary();
        assertThat(m.runningMean()).isEqualTo(3);
        assertThat(m.generatedTokens()).isNaN();
        assertThat(m.generatedTokensPerSecond()).isNaN();
    }
}
