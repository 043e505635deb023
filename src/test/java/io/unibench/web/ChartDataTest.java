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
                .containsEntry("x", List.of()).doesNotContainKey("knee");
    }

    @Test
    void rateLevelsAreOnTheirOwnCurvesByOfferedRateNotAtConcurrencyMinusOne() {
        // a run of both kinds: two closed-loop levels, three open-loop rates (concurrency -1), one bounded rate
        // level (max_concurrency 8) and a trace replay (paced at its mean rate)
        List<StoredPoint> run = List.of(point(0, 1, -1, 10), point(1, 4, -1, 30), point(2, -1, 5, 5),
                point(3, -1, 10, 9.8), point(4, -1, 20, 15), point(5, 8, 40, 16), traceAt(6, 3.2));
        Map<String, Object> closed = ChartData.levels(run, 10);
        assertThat(closed).containsEntry("x_label", "concurrency").containsEntry("x", List.of(1.0, 4.0));
        assertThat(closed.get("output_tok_s")).isEqualTo(List.of(80.0, 240.0));
        Map<String, Object> rates = ChartData.rateLevels(run);
        assertThat(rates).containsEntry("x_label", "offered rate (req/s)").containsEntry("x", List.of(5.0, 10.0, 20.0, 40.0));
        assertThat(rates.get("output_tok_s")).isEqualTo(List.of(40.0, 78.4, 120.0, 128.0));
        assertThat(ChartData.rateLevels(run.subList(0, 2))).containsEntry("x", List.of());
    }

    private static StoredPoint traceAt(int index, double rate) {
        StoredPoint p = point(index, -1, rate, rate);
        return new StoredPoint(index, "p/mooncake/trace", -1, rate, 10, 0, p.summary(), null, null, null, null);
    }

    @Test
    void theServersCountersBecomeRatesPerScrapeAndARestartIsNoNegativeRate() throws Exception {
        // two points; the second one's generation counter falls (a restart): its increase is the new value
        var first = JSON.readTree("""
                {"engine": "vLLM", "series": [
                  {"timestamp_ms": 1000, "running": 0, "waiting": 0, "kv_cache_usage": 0.0, "prefix_cache_hits": 0,
                   "prefix_cache_queries": 0, "generation_tokens": 100},
                  {"timestamp_ms": 2000, "running": 3, "waiting": 1, "kv_cache_usage": 0.25, "prefix_cache_hits": 30,
                   "prefix_cache_queries": 120, "generation_tokens": 300}]}""");
        var second = JSON.readTree("""
                {"engine": "vLLM", "series": [
                  {"timestamp_ms": 4000, "running": 2, "generation_tokens": 500},
                  {"timestamp_ms": 4500, "running": 1, "generation_tokens": 40}]}""");
        Map<String, Object> m = ChartData.server(List.of(first, second), 500);
        assertThat(m).containsEntry("engine", "vLLM");
        assertThat(m.get("t_s")).isEqualTo(List.of(0.5, 1.5, 3.5, 4.0));
        assertThat(m.get("running")).isEqualTo(List.of(0.0, 3.0, 2.0, 1.0));
        assertThat(m.get("waiting")).isEqualTo(java.util.Arrays.asList(0.0, 1.0, null, null));
        assertThat(m.get("kv_cache_pct")).isEqualTo(java.util.Arrays.asList(0.0, 25.0, null, null));
        assertThat(m.get("prefix_hit_pct")).isEqualTo(java.util.Arrays.asList(null, 25.0, null, null));
        // a point's first scrape has no rate; 200 tokens in 1 s; after the restart 40 tokens in 0.5 s
        assertThat(m.get("generated_tok_s")).isEqualTo(java.util.Arrays.asList(null, 200.0, null, 80.0));
        assertThat(ChartData.server(List.of(), 0)).isNull();
    }
}
