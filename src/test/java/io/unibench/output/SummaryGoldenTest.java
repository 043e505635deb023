package io.unibench.output;

import static io.unibench.metrics.TestRecords.ms;
import static io.unibench.metrics.TestRecords.record;

import io.unibench.Golden;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.report.TerminalReport;
import io.unibench.store.TestStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code benchmark_summary.json} as written, and the terminal report of the same points, whole, against golden files:
 * every key of the summary (evalscope's, the optional multi-turn, cache, speculative-decoding, reasoning and
 * scheduled-run keys, the intervals), its order, its value and its JSON number form, and every table and note that
 * reads the summary, stay byte for byte as they are.
 */
class SummaryGoldenTest {
    @TempDir
    Path dir;

    /** A scheduled multi-turn point with failures, a cancellation, cached, estimated and speculative figures. */
    static RunResult scheduledMultiTurn() {
        RunMetrics m = new RunMetrics();
        TestStores.records(40, ms(0), 7).forEach(m::accept);
        m.accept(record().index(40).startMs(5).endMs(9).failed(Outcome.CANCELLED, 0, "stopped").build());
        m.accept(record().index(41).conversation("conv-0", 1).lastTurn().scheduledMs(9).startMs(10).firstChunkMs(15)
                .chunksMs(20, 30, 40).endMs(40).tokens(120, 5).estimatedCached(105).build());
        return m.result(new RunInfo("rate_8_number_42", 8, 8, 42));
    }

    /** A closed-loop point of a reasoning model: TTFCT, answer TPOT and reasoning tokens; one reply not streamed. */
    static RunResult reasoning() {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 6; i++) {
            double s = 10.0 * i;
            RequestRecord r = record().index(i).startMs(s).firstChunkMs(s + 8).chunksMs(s + 12, s + 19, s + 27, s + 40,
                    s + 44 + i).endMs(s + 50 + i).tokens(200 + i, 30 + 2 * i).build();
            Timing t = r.timing();
            // the answer starts at the fourth chunk, after reasoning; the server counted the reasoning tokens
            r = r.withTiming(new Timing(true, t.startEpochMillis(), t.scheduledNanos(), t.startNanos(),
                    t.headersNanos(), t.firstChunkNanos(), t.firstTokenNanos(), t.endNanos(), t.tokenChunkNanos(),
                    ms(s + 40)));
            Tokens k = r.tokens();
            r = r.withTokens(new Tokens(k.prompt(), k.completion(), k.cached(), k.cachedSource(), k.source(),
                    k.promptTarget(), k.promptSynth(), k.cachedField(), 20 + i));
            m.accept(r);
        }
        m.accept(record().index(6).nonStream().startMs(70).endMs(130).tokens(150, 12).build());
        m.accept(record().index(7).startMs(80).endMs(90).failed("timeout_read", 0, "read timed out").build());
        return m.result(new RunInfo("parallel_2_number_8", 2, -1, 8));
    }

    /** An embeddings point: input only, the report's other table. */
    static RunResult inputOnly() {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 5; i++) {
            m.accept(record().index(i).nonStream().startMs(5.0 * i).endMs(5.0 * i + 12 + i).tokens(64 + i, 0).build());
        }
        return m.result(new RunInfo("parallel_1_number_5", 1, -1, 5));
    }

    private String summaryFile(String name, RunResult r) throws IOException {
        Path run = dir.resolve(name);
        EvalscopeFiles.write(run, r);
        return Files.readString(run.resolve(EvalscopeFiles.SUMMARY), StandardCharsets.UTF_8);
    }

    @Test
    void theScheduledMultiTurnSummaryFileIsTheGoldenFile() throws IOException {
        Golden.assertMatches("benchmark_summary-scheduled.json", summaryFile("a", scheduledMultiTurn()));
    }

    @Test
    void theReasoningSummaryFileIsTheGoldenFile() throws IOException {
        Golden.assertMatches("benchmark_summary-reasoning.json", summaryFile("b", reasoning()));
    }

    @Test
    void theInputOnlySummaryFileIsTheGoldenFile() throws IOException {
        Golden.assertMatches("benchmark_summary-input-only.json", summaryFile("c", inputOnly()));
    }

    @Test
    void theTerminalReportIsTheGoldenFile() {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("Model", "m");
        info.put("API URL", "http://127.0.0.1:1/v1/chat/completions");
        Golden.assertMatches("terminal-report.txt",
                TerminalReport.render(List.of(scheduledMultiTurn(), reasoning()), info));
        Golden.assertMatches("terminal-report-input-only.txt", TerminalReport.render(List.of(inputOnly()), info));
    }
}
