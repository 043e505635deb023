package io.unibench.report;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MultiTurnReportTest {
    private static RunResult run(boolean estimated) {
        RunMetrics m = new RunMetrics();
        var t1 = record().index(0).conversation("A", 0).startMs(0).chunksMs(100, 110).endMs(110).tokens(100, 2);
        var t2 = record().index(1).conversation("A", 1).lastTurn().startMs(200).chunksMs(220, 230).endMs(230)
                .tokens(150, 2);
        m.accept((estimated ? t1.estimatedCached(0) : t1.cached(0)).build());
        m.accept((estimated ? t2.estimatedCached(102) : t2.cached(96)).build());
        return m.result(new RunInfo("parallel_1_number_1", 1, -1, 1));
    }

    @Test
    void multiTurnRowsTablesAndTheEstimateLabel() {
        String text = TerminalReport.render(List.of(run(true)), Map.of());
        assertThat(text).contains("Per-Trace Metrics", "Per-Turn-Position Metrics", "│ Traces │",
                "Turns/Req", "First-Turn TTFT (ms)", "Subsequent-Turn TTFT (ms)", "Cache Hit (%, estimated)",
                "Cache Hit is the client's estimate");
        // turn 2: 102 of 150 prompt tokens → 68 %
        String turn2 = text.lines().filter(l -> l.matches("│\\s+│\\s+│\\s+2 │.*")).findFirst().orElseThrow();
        assertThat(turn2).contains("│            68 │");
        String server = TerminalReport.render(List.of(run(false)), Map.of());
        assertThat(server).contains("Cache Hit (%)").doesNotContain("estimated");
    }
}
