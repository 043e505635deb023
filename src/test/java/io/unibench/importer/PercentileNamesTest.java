package io.unibench.importer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.List;

/** Every format's statistic names read by the one rule ({@link ForeignPoints#percentileLabel}), rows ordered. */
class PercentileNamesTest {
    @Test
    void eachToolsNamesAreOurLabels() {
        // vLLM (p99, p99.9), AIPerf (p1 … p99), the Benchmark Report (p0p1, p99p9), GuideLLM (p001, p01, p05, p999)
        assertThat(List.of("min", "p0p1", "p001", "p1", "p01", "p5", "p05", "p50", "p99", "p99.9", "p99p9", "p999", "max")
                .stream().map(ForeignPoints::percentileLabel).toList())
                .containsExactly("min", "0.1%", "0.1%", "1%", "1%", "5%", "5%", "50%", "99%", "99.9%", "99.9%", "99.9%",
                        "max");
        // what names no percentile is not read as one
        for (String other : List.of("mean", "avg", "median", "stddev", "std", "units", "unit", "p", "p1000", "pp50")) {
            assertThat(ForeignPoints.percentileLabel(other)).as(other).isNull();
        }
        // every name the report's schema has is a label of ours
        BenchmarkReport.STATS.forEach(n -> assertThat(ForeignPoints.percentileLabel(n)).as(n).isNotNull());
    }

    @Test
    void rowsAreOrderedMinThenAscendingThenMax() {
        ForeignPoints.Rows rows = new ForeignPoints.Rows();
        for (String label : List.of("max", "99.9%", "50%", "0.1%", "min", "5%")) rows.put(label, "c", 1.0);
        assertThat(rows.list().stream().map(r -> r.get(io.unibench.metrics.PercentileRow.PERCENTILES)).toList())
                .containsExactly("min", "0.1%", "5%", "50%", "99.9%", "max");
    }
}
