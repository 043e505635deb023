package io.unibench.cli;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunVerdictTest {

    /** A point of {@code n} requests of which {@code failed} failed, labelled as the SLA's repeated runs are. */
    private static RunResult point(String label, int n, int failed) {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < n; i++) {
            double s = i * 10;
            var b = record().index(i).startMs(s).firstChunkMs(s + 1).chunksMs(s + 2).endMs(s + 2).tokens(10, 1);
            m.accept(i < failed ? b.failed("http_500", 500, "boom").build() : b.build());
        }
        return m.result(new RunInfo(label, 4, -1, n));
    }

    @Test
    void repeatedLabelsAreAllKept() {
        Map<String, RunResult> points = RunVerdict.byLabel(List.of(
                point("parallel_4_number_10", 10, 0), point("parallel_4_number_10", 10, 10),
                point("parallel_4_number_10", 10, 0)));
        assertThat(points).containsOnlyKeys("parallel_4_number_10", "parallel_4_number_10 #2",
                "parallel_4_number_10 #3");
    }

    @Test
    void aFailingRepeatedRunStillCountsAgainstTheErrorLimit() {
        // the second run of the same value failed all its requests: keeping only the last run would pass
        Map<String, RunResult> points = RunVerdict.byLabel(List.of(
                point("parallel_4_number_10", 10, 10), point("parallel_4_number_10", 10, 0)));
        StringWriter err = new StringWriter();
        int code = RunVerdict.exitCode(points, 50.0, false, new PrintWriter(err, true));
        assertThat(code).isEqualTo(RunVerdict.EXIT_FAILED_REQUESTS);
        assertThat(err.toString()).contains("parallel_4_number_10");
    }
}
