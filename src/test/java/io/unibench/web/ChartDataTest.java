package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.store.StoredPoint;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/** The per-level curves' knee: the level after which the next raises successful req/s by less than the rule's gain. */
class ChartDataTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static StoredPoint point(int index, int concurrency, double rate, double reqPerSecond) {
        return new StoredPoint(index, "p" + index, concurrency, rate, 10, 0,
                JSON.valueToTree(Map.of("Req Throughput (req/s)", reqPerSecond, "Output Throughput (tok/s)", 8 * reqPerSecond)),
                null, null, null, null);
    }

    @Test
    void theKneeIsTheLastLevelThatStillPaid() {
        List<StoredPoint> ramp = List.of(point(0, 1, -1, 10), point(1, 4, -1, 38), point(2, 16, -1, 40),
                point(3, 32, -1, 41));
        Map<String, Object> levels = ChartData.levels(ramp, 10);
        @SuppressWarnings("unchecked")
        Map<String, Object> knee = (Map<String, Object>) levels.get("knee");
        assertThat(knee.get("x")).isEqualTo(4);
        assertThat((String) knee.get("reason")).isEqualTo("throughput +5.3% from concurrency 4 to 16 (below 10%)");
        assertThat(ChartData.levels(ramp, 5).get("knee")).isEqualTo(Map.of("x", 16,
                "reason", "throughput +2.5% from concurrency 16 to 32 (below 5%)"));
    }

    @Test
    void aCurveThatKeepsPayingOrARateSweepHasNoKnee() {
        assertThat(ChartData.levels(List.of(point(0, 1, -1, 10), point(1, 2, -1, 19), point(2, 4, -1, 37)), 10))
                .doesNotContainKey("knee");
        assertThat(ChartData.levels(List.of(point(0, 8, 5, 5), point(1, 8, 10, 5.1)), 10))
                .containsEntry("x_label", "request rate (req/s)").doesNotContainKey("knee");
    }
}
