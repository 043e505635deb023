package io.unibench.report;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalReportTest {

    /** Closed loop, all fine, server counts, cache reported. */
    static RunResult cleanRun() {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 10; i++) {
            double s = i * 100;
            m.accept(record().index(i).startMs(s).firstChunkMs(s + 10).chunksMs(s + 20, s + 60, s + 100).endMs(s + 100)
                    .tokens(1000 + i, 3).cached(500).build());
        }
        return m.result(new RunInfo("parallel_8_number_10", 8, -1, 10));
    }

    /** Open loop with a schedule, two failures, token counts estimated. */
    static RunResult troubledRun() {
        RunMetrics m = new RunMetrics();
        for (int i = 0; i < 4; i++) {
            double s = i * 200;
            m.accept(record().index(i).scheduledMs(s - 5).startMs(s).chunksMs(s + 30, s + 90).endMs(s + 90)
                    .tokens(20, 2).source(RequestRecord.TokenSource.ESTIMATE).build());
        }
        m.accept(record().index(4).startMs(0).endMs(50).failed("http_429", 429, "Too many\nrequests").build());
        m.accept(record().index(5).startMs(0).endMs(5000).failed("timeout_read", 0, "x".repeat(200)).build());
        return m.result(new RunInfo("rate_2.5_number_6", -1, 2.5, 6));
    }

    static Map<String, String> basicInfo() {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("Model", "qwen2.5-7b");
        info.put("Target", "http://127.0.0.1:8000/v1/chat/completions");
        info.put("Total Generated", "38 tokens");
        return info;
    }

    @Test
    void layoutHasEverySectionAndAlignedColumns() {
        String text = TerminalReport.render(List.of(cleanRun(), troubledRun()), basicInfo());
        assertThat(text).doesNotContain("\u001b"); // no ANSI
        assertThat(text).contains("Basic Information", "Performance Overview", "Per-Request Metrics", "Errors",
                "Model", "qwen2.5-7b");

        List<String> overview = table(text, "Performance Overview");
        assertThat(cells(overview.get(1))).containsExactly("Conc.", "Rate", "Num", "RPS", "Gen/s", "Success");
        assertThat(cells(overview.get(3))).containsExactly("8", "-", "10", "10", "30", "100.0%");
        // rate run: 4 successes over 5 s wall → 0.8 req/s, 8 tokens / 5 s = 1.6 tok/s
        assertThat(cells(overview.get(4))).containsExactly("INF", "2.5", "6", "0.8", "1.6", "66.7%");

        List<String> perRequest = table(text, "Per-Request Metrics");
        assertThat(cells(perRequest.get(1))).containsExactly("Conc.", "Rate", "Metric", "avg", "p50", "p99", "max");
        List<String> metrics = perRequest.stream().filter(l -> l.startsWith("│")).skip(1)
                .map(l -> cells(l).get(2)).toList();
        assertThat(metrics).containsSubsequence("Latency (s)", "TTFT (ms)", "TPOT (ms)", "ITL (ms)", "Input Tokens",
                "Output Tokens", "Cache Hit (%)", "Latency (s)", "TTFT (ms)", "TPOT (ms, estimated)", "ITL (ms)",
                "Input Tokens (estimated)", "Output Tokens (estimated)", "Queue Delay (ms)", "Latency incl. Queue (s)", "TTFT incl. Queue (ms)");
        // cache hit only for the run whose server reported cached tokens
        assertThat(metrics.stream().filter(m -> m.equals("Cache Hit (%)"))).hasSize(1);
        String latency = perRequest.stream().filter(l -> l.contains("Latency (s)")).findFirst().orElseThrow();
        // 10 requests: the p50 carries its 95% interval, the p99 has too few requests for one (and none is faked)
        assertThat(cells(latency)).containsExactly("8", "-", "Latency (s)", "0.1", "0.1 [0.1, 0.1]", "0.1", "0.1");
        assertThat(text).contains(TerminalReport.INTERVAL_NOTE).contains("a p50 needs 6, a p99 368");
        String input = perRequest.stream().filter(l -> l.contains("Input Tokens")).findFirst().orElseThrow();
        assertThat(cells(input)).containsExactly("", "", "Input Tokens", "1004.5", "1005", "1009", "1009");
        String cache = perRequest.stream().filter(l -> l.contains("Cache Hit")).findFirst().orElseThrow();
        assertThat(cells(cache)).containsExactly("", "", "Cache Hit (%)", "49.8", "-", "-", "-"); // 5000 / 10045

        List<String> errors = table(text, "Errors");
        assertThat(cells(errors.get(1))).containsExactly("Conc.", "Rate", "Error class", "Count", "Sample message");
        assertThat(cells(errors.get(3))).containsExactly("INF", "2.5", "http_429", "1", "Too many requests");
        assertThat(cells(errors.get(4)).get(4)).hasSize(80).endsWith("…");

        assertThat(text).contains("Note: rate_2.5_number_6: token counts are estimated from characters");
        assertThat(text).doesNotContain("Note: parallel_8_number_10");

        for (String section : List.of("Basic Information", "Performance Overview", "Per-Request Metrics",
                "Workload Throughput", "Errors")) {
            assertAligned(table(text, section));
        }
    }

    @Test
    void noErrorsSectionOrNoteWhenAllIsWell() {
        String text = TerminalReport.render(List.of(cleanRun()), Map.of());
        assertThat(text).doesNotContain("Errors").doesNotContain("Note:").doesNotContain("Basic Information");
        assertThat(text).contains("Performance Overview");
    }

    @Test
    void numbersAreRightAlignedAndMissingShownAsDash() {
        RunMetrics m = new RunMetrics();
        m.accept(record().index(0).nonStream().startMs(0).firstChunkMs(100).endMs(100).tokens(5, 7).build());
        String text = TerminalReport.render(List.of(m.result(new RunInfo("p", 1, -1, 1))), Map.of());
        String tpot = table(text, "Per-Request Metrics").stream().filter(l -> l.contains("TPOT")).findFirst().orElseThrow();
        assertThat(cells(tpot)).containsExactly("", "", "TPOT (ms)", "—", "—", "—", "—");
        List<String> overview = table(text, "Performance Overview");
        // right alignment: the value ends right before the closing " │" of a wider header column
        String header = overview.get(1);
        String row = overview.get(3);
        int successEnd = header.lastIndexOf("Success") + "Success".length();
        assertThat(row.substring(0, successEnd)).endsWith("100.0%");
    }

    @Test
    void displayNumbersRoundHalfUpAndStripZeros() {
        assertThat(DisplayNumbers.format(2.675, 2)).isEqualTo("2.68");
        assertThat(DisplayNumbers.format(1.5, 0)).isEqualTo("2");
        assertThat(DisplayNumbers.format(10.0, 2)).isEqualTo("10");
        assertThat(DisplayNumbers.format(0.1234, 3)).isEqualTo("0.123");
        assertThat(DisplayNumbers.format(-0.0001, 2)).isEqualTo("0");
        assertThat(DisplayNumbers.format(null, 2)).isEqualTo("—");
        assertThat(DisplayNumbers.format(Double.NaN, 2)).isEqualTo("—");
        assertThat(DisplayNumbers.formatAvailable(-1.0, 2)).isEqualTo("—");
    }

    @Test
    void textTableCountsWideCharactersAsTwoColumns() {
        String t = new TextTable(List.of("名称", "n"), TextTable.Align.LEFT, TextTable.Align.RIGHT)
                .row("模型", "1").row("abcdef", "22").render();
        List<String> lines = t.lines().toList();
        assertThat(lines.getFirst()).isEqualTo("┌────────┬────┐");
        assertThat(lines.get(3)).isEqualTo("│ 模型   │  1 │");
        assertThat(lines.get(4)).isEqualTo("│ abcdef │ 22 │");
        assertThat(lines.getLast()).isEqualTo("└────────┴────┘");
    }

    /** The lines of the table printed under a section title (title excluded). */
    private static List<String> table(String text, String title) {
        List<String> lines = text.lines().toList();
        int i = lines.indexOf(title);
        assertThat(i).as("section " + title).isNotNegative();
        List<String> out = new ArrayList<>();
        for (int j = i + 1; j < lines.size() && !lines.get(j).isEmpty(); j++) out.add(lines.get(j));
        assertThat(out.getFirst()).startsWith("┌");
        assertThat(out.getLast()).startsWith("└");
        return out;
    }

    private static List<String> cells(String line) {
        String inner = line.substring(1, line.length() - 1);
        List<String> out = new ArrayList<>();
        for (String c : inner.split("│", -1)) out.add(c.trim());
        return out;
    }

    /** Every line has the same width and the column borders sit at the same positions. */
    private static void assertAligned(List<String> lines) {
        String top = lines.getFirst();
        List<Integer> borders = new ArrayList<>();
        for (int i = 0; i < top.length(); i++) if (top.charAt(i) == '┬') borders.add(i);
        for (String l : lines) {
            assertThat(TextTable.width(l)).as(l).isEqualTo(TextTable.width(top));
            for (int b : borders) assertThat("┬┼┴│").as(l).contains(String.valueOf(l.charAt(b)));
        }
    }
}
