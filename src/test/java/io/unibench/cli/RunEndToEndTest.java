package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.report.scenario.Comparison;
import io.unibench.report.scenario.ScenarioResults;
import io.unibench.scenario.BenchConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code unibench run} end to end against embedded simulators started from the file (base_url: sim). */
class RunEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    record Outcome(int exit, String out, String err, ScenarioResults results, Path root) {}

    private Outcome run(String yaml, String... extra) throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, yaml);
        RunCommand command = new RunCommand().forTest(Map.of());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("--config", file.toString(), "--outputs-dir",
                dir.resolve("out").toString(), "--no-timestamp"));
        args.addAll(List.of(extra));
        int exit = Main.configure(new picocli.CommandLine(command), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute(args.toArray(String[]::new));
        return new Outcome(exit, out.toString(), err.toString(), command.lastResults(), dir.resolve("out").resolve("bench"));
    }

    @Test
    void twoProvidersAreRankedByLatencyAndCostIsExact() throws Exception {
        Outcome o = run("""
                providers:
                  - name: fast
                    base_url: sim
                    model: m
                    simulator: {ttft_ms: 10, itl_ms: 1}
                    price: {input: 2.0, cached_input: 0.5, output: 8.0}
                  - name: slow
                    base_url: sim
                    model: m
                    simulator: {ttft_ms: 150, itl_ms: 10}
                    price: {input: 0.3, output: 1.2}
                generation: {temperature: 0, max_tokens: 8, ignore_eos: true}
                concurrency: {levels: [1, 2], requests_per_level: 6}
                rate_limit: 1000
                scenarios:
                  - {name: qa, type: chat, stream: true, prompt: "Explain a database index in one sentence."}
                """, "--report", "json,csv,html");
        assertThat(o.exit()).as(o.err()).isZero();
        ScenarioResults r = o.results();
        assertThat(r.series()).hasSize(2);
        // each level's verdict heads the report (6 requests: too few for a p99's interval, whatever the machine did)
        assertThat(o.out()).containsPattern("\nVerdict \\[fast/qa/parallel_1\\]: [a-z; -]*too-few-samples");
        assertThat(o.out().indexOf("Verdict [")).isLessThan(o.out().indexOf("fast × qa ("));

        Comparison.Table t = Comparison.of("qa", r.series());
        assertThat(t.providers()).containsExactly("fast", "slow");
        for (String col : List.of("TTFT p50 (ms)", "TTFT p95 (ms)", "Latency p50 (ms)", "Latency p95 (ms)", "Peak tok/s")) {
            Comparison.Column c = column(t, col);
            assertThat(c.best(0)).as(col + "\n" + o.out()).isTrue();
            assertThat(c.best(1)).as(col).isFalse();
        }
        // slow: ≥ 150 ms TTFT + 7 × 10 ms inter-token by configuration; fast: 10 + 7 × 1
        assertThat(column(t, "Latency p50 (ms)").values()[1]).isGreaterThanOrEqualTo(150 + 7 * 10);
        assertThat(column(t, "Cost / 1k req").best(1)).as(o.out()).isTrue();
        assertThat(column(t, "Cost / 1M out tok").best(1)).isTrue();
        assertThat(column(t, "Success %").values()).containsExactly(100.0, 100.0);

        // cost recomputed independently from every requests.jsonl line
        for (int i = 0; i < 2; i++) {
            ScenarioResults.Series s = r.series().get(i);
            BenchConfig.Price price = (BenchConfig.Price) s.provider().price();
            long uncached = 0;
            long cached = 0;
            long output = 0;
            long ok = 0;
            for (int level : List.of(1, 2)) {
                Path jsonl = o.root().resolve(s.provider().name()).resolve("qa").resolve("parallel_" + level)
                        .resolve("requests.jsonl");
                for (String line : Files.readAllLines(jsonl)) {
                    JsonNode n = JSON.readTree(line);
                    assertThat(n.get("success").asBoolean()).isTrue();
                    assertThat(n.get("token_source").asText()).isEqualTo("server");
                    long prompt = n.get("prompt_tokens").asLong();
                    long c = n.get("cached_tokens").isNull() ? 0 : n.get("cached_tokens").asLong();
                    uncached += prompt - c;
                    cached += c;
                    output += n.get("completion_tokens").asLong();
                    ok++;
                }
            }
            assertThat(ok).isEqualTo(12);
            assertThat(output).isEqualTo(12 * 8); // ignore_eos: exactly max_tokens each
            double expected = (uncached * price.input() + cached * price.cachedInput() + output * price.output()) / 1e6;
            assertThat(s.tokens().cost(price)).isEqualTo(expected);
            assertThat(s.tokens().per1000Requests(price)).isEqualTo(expected / 12 * 1000);
            assertThat(s.tokens().perMillionOutput(price)).isEqualTo(expected / (12 * 8) * 1e6);
            // nothing failed: the cost per completed task is the plain cost per request
            assertThat(s.tokens().costIncludingFailures(price)).isEqualTo(expected);
            assertThat(s.tokens().perSuccessfulRequest(price)).isEqualTo(expected / 12);
            // the comparison's figure is the mean over the two levels of 6 requests each: the same, rounding aside
            assertThat(column(t, "Cost / 1k req").values()[i])
                    .isCloseTo(expected / 12 * 1000, org.assertj.core.api.Assertions.within(1e-12));
        }
        // the sim's prefix cache served the repeated prompt: cached input was billed at the cached price
        assertThat(r.series().get(0).tokens().cachedInput()).isPositive();

        assertThat(o.out()).contains("Provider Comparison: qa").contains("Phases").contains(" *");
        assertThat(o.out()).contains("Cost per completed task: ").contains("with the 0 unfinished requests");
        JsonNode report = JSON.readTree(o.root().resolve("scenario_report.json").toFile());
        assertThat(report.at("/comparisons/0/rows/0/best").toString()).contains("TTFT p50 (ms)");
        assertThat(report.at("/comparisons/0/levels").toString()).isEqualTo("[1,2]");
        assertThat(report.at("/comparisons/0/rows/0/levels_won/TTFT p50 (ms)").asInt()).isEqualTo(2);
        assertThat(report.at("/comparisons/0/per_level/1/concurrency").asInt()).isEqualTo(2);
        assertThat(o.out()).contains("At concurrency 1 (* best per column)", "At concurrency 2 (* best per column)");
        assertThat(Files.readAllLines(o.root().resolve("scenario_report.csv"))).hasSize(1 + 4);
        String html = Files.readString(o.root().resolve("scenario_report.html"));
        // the platform's charts over each provider's stored run, uPlot inlined (ReportBrowserTest draws them)
        assertThat(html).contains("id=\"p0-chart-levels\"", "id=\"p1-chart-levels\"", "id=\"chart-data-1\"",
                "uPlot").doesNotContain("<script src").doesNotContain("<link");
    }

    @Test
    void everyLevelHasTheServersOwnMetricsAndTheServerTable() throws Exception {
        Path db = dir.resolve("h.db");
        Outcome o = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 15, itl_ms: 1}}
                generation: {max_tokens: 4}
                concurrency: {start: 1, peak: 2, step: 1, requests_per_level: 4}
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """, "--db", db.toString());
        assertThat(o.exit()).as(o.err()).isZero();
        for (int level : List.of(1, 2)) {
            JsonNode m = JSON.readTree(o.root().resolve("p/s/parallel_" + level + "/server_metrics.json").toFile());
            assertThat(m.path("engine").asText()).isEqualTo("vLLM");
            assertThat(m.path("summary").path("Server Generated Tokens").asDouble()).isPositive();
        }
        assertThat(o.out()).contains("Server (vLLM /metrics", "p/s/parallel_2");
        try (io.unibench.store.RunStore store = io.unibench.store.RunStore.open(
                io.unibench.store.StoreLocation.resolve(db.toString(), Map.of()))) {
            String runId = store.list(io.unibench.store.RunFilter.all(5)).getFirst().runId();
            assertThat(store.pointServerMetrics(runId, 1).path("engine").asText()).isEqualTo("vLLM");
            assertThat(store.run(runId).points().get(1).summary().path("Server Engine").asText()).isEqualTo("vLLM");
        }
    }

    @Test
    void rampVisitsLevelsInOrderAndHoldsEachForItsRequests() throws Exception {
        Outcome o = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 15, itl_ms: 1}}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {start: 1, peak: 5, step: 2, requests_per_level: 10}
                rate_limit: 10000
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """);
        assertThat(o.exit()).as(o.err()).isZero();
        ScenarioResults.Series s = o.results().series().getFirst();
        assertThat(s.levels()).extracting(ScenarioResults.Level::concurrency).containsExactly(1, 3, 5);
        double previousEnd = Double.NEGATIVE_INFINITY;
        for (int level : List.of(1, 3, 5)) {
            List<double[]> spans = spans(o.root().resolve("p/s/parallel_" + level + "/requests.jsonl"));
            assertThat(spans).as("level " + level).hasSize(10);
            double firstStart = spans.stream().mapToDouble(x -> x[0]).min().orElseThrow();
            assertThat(firstStart).as("level %d starts after the previous level ended", level)
                    .isGreaterThanOrEqualTo(previousEnd);
            assertThat(maxOverlap(spans)).as("in flight at level " + level).isLessThanOrEqualTo(level);
            previousEnd = spans.stream().mapToDouble(x -> x[1]).max().orElseThrow();
        }
    }

    @Test
    void everyLevelCarriesTheClientSelfCheckAsPerfDoes() throws Exception {
        Outcome o = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {levels: [1, 2], requests_per_level: 4}
                rate_limit: 10000
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """);
        assertThat(o.exit()).as(o.err()).isZero();
        for (int level : List.of(1, 2)) {
            JsonNode summary = JSON.readTree(o.root().resolve("p/s/parallel_" + level + "/benchmark_summary.json").toFile());
            assertThat(summary.path("Total Requests").asInt()).isEqualTo(4);
            assertThat(summary.has("Client CPU (s)")).as("level " + level).isTrue();
            assertThat(summary.has("Client CPU Avg (%)")).isTrue();
        }
    }

    @Test
    void timeHeldLevelsRunForTheIntervalOnly() throws Exception {
        Outcome o = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 10, itl_ms: 1}}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: {levels: [1, 2], ramp_interval_sec: 0.3}
                rate_limit: 10000
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """);
        assertThat(o.exit()).as(o.err()).isZero();
        for (int level : List.of(1, 2)) {
            List<double[]> spans = spans(o.root().resolve("p/s/parallel_" + level + "/requests.jsonl"));
            double first = spans.stream().mapToDouble(x -> x[0]).min().orElseThrow();
            double last = spans.stream().mapToDouble(x -> x[0]).max().orElseThrow();
            // no request starts after the interval; requests are back to back, so more than one round ran. A worker
            // checks the deadline, then prepares and stamps its request: the margin covers a stall between the
            // two on a loaded machine (1.3 ms was seen), far below another 0.3 s interval.
            assertThat(last - first).isLessThan(0.3 + 0.1);
            assertThat(spans.size()).isGreaterThan(level);
        }
    }

    @Test
    void validationFailuresAreCountedAsValidationErrors() throws Exception {
        Outcome o = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                generation: {max_tokens: 4, ignore_eos: true}
                concurrency: 2
                rate_limit: 10000
                scenarios:
                  - name: wants_json
                    type: chat
                    prompt: give me JSON
                    rounds: 4
                    validate: {choices_non_empty: true, json_output: true}
                """);
        assertThat(o.exit()).as(o.err()).isEqualTo(3); // every request failed its validation: none succeeded
        ScenarioResults.Series s = o.results().series().getFirst();
        assertThat(s.overall().errors()).containsEntry("validation_error", 4L);
        assertThat(s.overall().sampleErrors().get("validation_error")).startsWith("json_output: content is not JSON");
        assertThat(o.out()).contains("validation_error × 4");
    }

    @Test
    void eachProviderIsStoredAsARunWhosePointsAreItsLevels() throws Exception {
        Path db = dir.resolve("history.db");
        Outcome o = run("""
                name: stored
                providers:
                  - {name: a, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}, headers: {X-Api-Key: sk-hidden-987654}}
                  - {name: b, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                generation: {max_tokens: 3, ignore_eos: true}
                concurrency: {levels: [1, 2], requests_per_level: 3}
                rate_limit: 10000
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """, "--db", db.toString(), "--tag", "nightly");
        assertThat(o.exit()).as(o.err()).isZero();
        CliHarness.Run list = CliHarness.main("runs", "list", "--db", db.toString(), "--tag", "nightly");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("stored/a").contains("stored/b").contains("finished");
        String id = o.err().lines().filter(l -> l.startsWith("Run history: run ")).findFirst().orElseThrow()
                .split(" ")[3];
        CliHarness.Run report = CliHarness.main("runs", "report", id, "--db", db.toString());
        assertThat(report.exit()).as(report.err()).isZero();
        assertThat(report.out()).contains("Performance Overview");
        assertThat(Files.readAllBytes(db)).asString(java.nio.charset.StandardCharsets.ISO_8859_1)
                .doesNotContain("sk-hidden-987654");
    }

    @Test
    void runsOfDifferentProvidersAndLevelListsCompareOnTheLevelsTheyShare() throws Exception {
        Path db = dir.resolve("compare.db");
        String[] ids = new String[3];
        String[][] runs = {{"DeepSeek", "[1, 4, 16]"}, {"Qwen", "[2, 4, 16]"}, {"Kimi", "[2, 8, 32]"}};
        for (int i = 0; i < runs.length; i++) {
            Outcome o = run("""
                    name: pick
                    providers:
                      - {name: %s, base_url: sim, model: m, simulator: {ttft_ms: 5, itl_ms: 1}}
                    generation: {max_tokens: 3, ignore_eos: true}
                    concurrency: {levels: %s, requests_per_level: 16}
                    rate_limit: 10000
                    scenarios:
                      - {name: chat, type: chat, prompt: hello}
                    """.formatted(runs[i][0], runs[i][1]), "--db", db.toString());
            assertThat(o.exit()).as(o.err()).isZero();
            ids[i] = o.err().lines().filter(l -> l.startsWith("Run history: run ")).findFirst().orElseThrow()
                    .split(" ")[3];
        }
        // DeepSeek vs Qwen: the levels both have, whatever the provider names; the others named
        CliHarness.Run two = CliHarness.main("runs", "compare", ids[0], ids[1], "--db", db.toString());
        assertThat(two.exit()).as(two.err()).isZero();
        assertThat(two.out()).contains("chat/parallel_4 — concurrency 4", "chat/parallel_16 — concurrency 16",
                "p95 TTFT (ms)", "Not compared: only in A, not in B: chat/parallel_1",
                "Not compared: only in B: chat/parallel_2", "16/16").doesNotContain("chat/parallel_1 —");
        // the quick start's "1 4 16" then "2 8 32": nothing in common, said so; three runs side by side
        CliHarness.Run three = CliHarness.main("runs", "compare", ids[0], ids[1], ids[2], "--db", db.toString());
        assertThat(three.exit()).as(three.err()).isZero();
        assertThat(three.out()).contains("A (baseline): " + ids[0], "C: " + ids[2], "Δ C [95%]",
                "Not compared: only in C: chat/parallel_2, chat/parallel_8, chat/parallel_32");
        CliHarness.Run none = CliHarness.main("runs", "compare", ids[0], ids[2], "--db", db.toString());
        assertThat(none.out()).contains("No level in common with A.");
        // a pinned baseline other than the first
        CliHarness.Run pinned = CliHarness.main("runs", "compare", ids[0], ids[1], "--baseline", ids[1], "--db",
                db.toString());
        assertThat(pinned.out()).startsWith("A (baseline): " + ids[1]);
    }

    @Test
    void shippedMultiTurnExampleRuns() throws Exception {
        Outcome o = run(Files.readString(Path.of("examples/multi-turn.yaml"))
                .replace("rounds: 8 ", "rounds: 2 ").replace("rounds: 6", "rounds: 2")
                .replace("concurrency: [2, 4]", "concurrency: [1, 2]"));
        assertThat(o.exit()).as(o.err()).isZero();
        ScenarioResults.Series s = o.results().series().getFirst();
        // conversation_history 4: every conversation has 5 turns, each successful
        assertThat(s.overall().summary().requests().successRequests()).isEqualTo(2 * 5 * 2);
        assertThat(s.overall().traces()).isNotNull();
    }

    @Test
    void theDefaultRateLimitPacesOnlyTheRampAndAnExplicitOneThatBitesIsFlagged() throws Exception {
        String yaml = """
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 1, itl_ms: 0}}
                generation: {temperature: 0, max_tokens: 2, ignore_eos: true}
                concurrency: {levels: [1, 2], requests_per_level: 6}
                %s
                scenarios:
                  - {name: qa, type: chat, stream: true, prompt: "hi"}
                """;
        // default (2 × peak = 4 starts/s): 6 replies of ~1 ms per level would take 1.25 s if every start were paced
        Outcome free = run(yaml.formatted(""), "--report", "json");
        assertThat(free.exit()).as(free.err()).isZero();
        assertThat(free.out()).contains("on each level's ramp").doesNotContain("rate-limited");
        for (ScenarioResults.Level l : free.results().series().getFirst().levels()) {
            assertThat(l.starts().starts()).isEqualTo(6);
            assertThat(l.starts().steadyWaited()).isZero();
        }
        // rate_limit: 5 starts/s, replies of ~1 ms: every start after the first waits on the limiter
        Outcome capped = run(yaml.formatted("rate_limit: 5"), "--report", "json");
        assertThat(capped.exit()).as(capped.err()).isZero();
        assertThat(capped.out()).contains("2 ←rate-limited", "Rate-limited: concurrency 1: 5 of 6 starts waited",
                "Rate-limited: concurrency 2:", "rate-limited: the limiter's knee, not the provider's");
        JsonNode level = JSON.readTree(capped.root().resolve("scenario_report.json").toFile())
                .at("/series/0/levels/0/rate_limiter");
        assertThat(level.get("capped").asBoolean()).isTrue();
        assertThat(level.get("steady_starts_waited").asLong()).isEqualTo(5);
    }

    private static Comparison.Column column(Comparison.Table t, String title) {
        return t.columns().stream().filter(c -> c.title().equals(title)).findFirst().orElseThrow();
    }

    private static List<double[]> spans(Path jsonl) throws Exception {
        List<double[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(jsonl)) {
            JsonNode n = JSON.readTree(line);
            out.add(new double[] {n.get("start_s").asDouble(), n.get("end_s").asDouble()});
        }
        return out;
    }

    /** Most requests in flight at once: a sweep over start (+1) and end (−1) events, ends first on ties. */
    private static int maxOverlap(List<double[]> spans) {
        List<double[]> events = new ArrayList<>();
        for (double[] s : spans) {
            events.add(new double[] {s[0], 1});
            events.add(new double[] {s[1], -1});
        }
        events.sort(Comparator.<double[]>comparingDouble(e -> e[0]).thenComparingDouble(e -> e[1]));
        int now = 0;
        int max = 0;
        for (double[] e : events) {
            now += (int) e[1];
            max = Math.max(max, now);
        }
        return max;
    }
}
