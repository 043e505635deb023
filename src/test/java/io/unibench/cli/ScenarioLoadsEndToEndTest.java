package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.ArrivalSchedule;
import io.unibench.engine.ArrivalShape;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A scenario file's open-loop levels, rate ramp, trace replay and SLA auto-tune through {@code unibench run} against
 * simulators: the schedule each level put on the wire (requests.jsonl), what its files report, and the same answers
 * as {@code perf}'s flags give.
 */
class ScenarioLoadsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer fast;
    private static SimServer fourSlots;

    @TempDir
    Path dir;

    @BeforeAll
    static void startSimulators() {
        fast = SimServer.start(SimConfig.defaults().withTtftMs(1).withPrefillMsPerToken(0).withItlMs(1));
        // 4 sequences at once, a 9-token reply ≈ 440 ms (twice that for a fifth request, which waits for a slot), so
        // p99 <= 0.66 s holds up to 4 with ~220 ms to spare either side (a 200 ms reply and 0.3 s left 100 ms: a loaded
        // machine's stall once made a point at parallel 4 miss it)
        SimConfig.Scheduling four = new SimConfig.Scheduling(4, 8192, 131_072, 10_000, 60_000, 1, 0, 0, true, List.of());
        fourSlots = SimServer.start(SimConfig.defaults().withTtftMs(40).withPrefillMsPerToken(0).withItlMs(50)
                .withScheduling(four));
    }

    @AfterAll
    static void stopSimulators() {
        fast.close();
        fourSlots.close();
    }

    private CliHarness.Run run(String yaml) throws IOException {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, yaml);
        return CliHarness.run("--config", file.toString(), "--outputs-dir", dir.resolve("out").toString(),
                "--no-timestamp", "--no-db");
    }

    private Path level(String name) {
        return dir.resolve("out/bench/p/s").resolve(name);
    }

    private static List<JsonNode> rows(Path level) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(level.resolve("requests.jsonl"))) rows.add(JSON.readTree(line));
        rows.sort(Comparator.comparingLong(r -> r.get("index").asLong()));
        return rows;
    }

    /** Send times from the level's first request, by index. */
    private static List<Double> scheduled(Path level) throws IOException {
        List<JsonNode> rows = rows(level);
        double first = rows.getFirst().get("scheduled_s").asDouble();
        return rows.stream().map(r -> r.get("scheduled_s").asDouble() - first).toList();
    }

    private static JsonNode summary(Path level) throws IOException {
        return JSON.readTree(level.resolve("benchmark_summary.json").toFile());
    }

    /** The seed of level {@code li}'s measured phase: the series' (file seed, scenario name), + level, + 1. */
    private static SplittableRandom measuredRng(long fileSeed, String scenario, int li) {
        return new SplittableRandom(fileSeed * 1_000_003L + scenario.hashCode() + li + 1);
    }

    private static void assertSentOn(ArrivalSchedule expected, List<Double> got) {
        assertThat(got).hasSize(expected.size());
        for (int i = 0; i < got.size(); i++) {
            double want = (expected.offsetNanos(i) - expected.offsetNanos(0)) / 1e9;
            assertThat(got.get(i)).as("request %d", i).isCloseTo(want, within(2e-6));
        }
    }

    /** Coefficient of variation of the gaps between successive sends. */
    private static double gapCv(List<Double> times) {
        double[] gaps = new double[times.size() - 1];
        for (int i = 1; i < times.size(); i++) gaps[i - 1] = times.get(i) - times.get(i - 1);
        double mean = java.util.Arrays.stream(gaps).average().orElseThrow();
        double var = java.util.Arrays.stream(gaps).map(g -> (g - mean) * (g - mean)).sum() / (gaps.length - 1);
        return Math.sqrt(var) / mean;
    }

    private static String rateFile(String requestRate) {
        return """
                seed: 3
                provider: {name: p, base_url: %s/v1, model: m}
                generation: {max_tokens: 2}
                request_rate: %s
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """.formatted(fast.baseUrl(), requestRate);
    }

    @Test
    void rateLevelsWithBurstinessSendTheGammaScheduleOfTheSeed() throws IOException {
        CliHarness.Run r = run(rateFile("{levels: [100, 200], burstiness: 0.25, requests_per_level: 120}"));
        assertThat(r.exit()).as(r.err()).isZero();
        double[] rates = {100, 200};
        for (int li = 0; li < 2; li++) {
            Path level = level(li == 0 ? "rate_100" : "rate_200");
            List<Double> sent = scheduled(level);
            assertSentOn(ArrivalShape.gamma(0.25).schedule(0, 120, rates[li], measuredRng(3, "s", li)), sent);
            // shape 0.25: CV 1/sqrt(0.25) = 2 (Poisson's is 1)
            assertThat(gapCv(sent)).as("send-time CV at %s req/s", rates[li]).isGreaterThan(1.5);
            JsonNode sum = summary(level);
            assertThat(sum.get("Request Rate (req/s)").asDouble()).isEqualTo(rates[li]);
            assertThat(sum.get("Burstiness").asDouble()).isEqualTo(0.25);
            assertThat(sum.get("Concurrency").asInt()).as("an open loop").isEqualTo(-1);
            assertThat(sum.get("Total Requests").asInt()).isEqualTo(120);
            assertThat(sum.get("Avg Queue Delay (ms)").isNumber()).as("the schedule lag is reported").isTrue();
        }
        assertThat(r.err()).contains("[p/s] rate 100 req/s: 120 requests", "[p/s] rate 200 req/s: 120 requests");
        assertThat(r.out()).as("the level table names the rate levels").contains("rate_100", "rate_200")
                .contains("of request_rate [100.0, 200.0] req/s");
        // the level table's first column and the phases table name rates, not concurrency (−1: "INF" twice)
        assertThat(r.out()).containsPattern("│\\s+Level │ Requests │").containsPattern("│\\s+100 req/s │ Queue")
                .containsPattern("│\\s+200 req/s │ Queue").doesNotContain("│   INF │");
    }

    @Test
    void evenBurstinessAndAConcurrencyBound() throws IOException {
        CliHarness.Run r = run(rateFile("{levels: [150], burstiness: 16, max_concurrency: 3, requests_per_level: 60}"));
        assertThat(r.exit()).as(r.err()).isZero();
        List<Double> sent = scheduled(level("rate_150"));
        assertSentOn(ArrivalShape.gamma(16).schedule(0, 60, 150, measuredRng(3, "s", 0)), sent);
        assertThat(gapCv(sent)).as("shape 16: CV 0.25").isLessThan(0.5);
        JsonNode sum = summary(level("rate_150"));
        assertThat(sum.get("Concurrency").asInt()).as("max_concurrency bounds the open loop").isEqualTo(3);
        assertThat(r.err()).contains("rate 150 req/s (at most 3 in flight)");
    }

    @Test
    void aRampSendsAtRisingRates() throws IOException {
        CliHarness.Run r = run(rateFile("{ramp_up: {strategy: linear, start_rps: 20, end_rps: 300}, "
                + "requests_per_level: 80}"));
        assertThat(r.exit()).as(r.err()).isZero();
        Path level = level("ramp_linear_20_300");
        List<Double> sent = scheduled(level);
        ArrivalShape.Ramp ramp = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.linear, 20, 300);
        assertSentOn(ArrivalShape.ramp(ramp, 1).schedule(0, 80, 300, measuredRng(3, "s", 0)), sent);
        // the rate rises: each quarter of the requests takes less time than the one before
        double previous = Double.MAX_VALUE;
        for (int q = 0; q < 4; q++) {
            double span = sent.get(Math.min(79, (q + 1) * 20)) - sent.get(q * 20);
            assertThat(span).as("quarter %d", q).isLessThan(previous);
            previous = span;
        }
        JsonNode sum = summary(level);
        assertThat(sum.get("Ramp-Up Strategy").asText()).isEqualTo("linear");
        assertThat(sum.get("Ramp-Up Start RPS").asDouble()).isEqualTo(20);
        assertThat(sum.get("Ramp-Up End RPS").asDouble()).isEqualTo(300);
        assertThat(sum.get("Request Rate (req/s)").asDouble()).isEqualTo(300);
    }

    @Test
    void aTraceScenarioReplaysItsTimesAndItsPrefixSharingAsPerfDoes() throws IOException {
        Path trace = dir.resolve("trace.jsonl");
        Files.write(trace, MooncakeTraceEndToEndTest.TRACE);
        // base_url sim: a simulator of its own, so no other request shares its prefix cache
        CliHarness.Run r = run("""
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 2, itl_ms: 1, prefill_ms_per_token: 0}}
                scenarios:
                  - {name: s, type: chat, dataset: mooncake_trace, dataset_path: %s, trace_speedup: 2}
                """.formatted(trace));
        assertThat(r.exit()).as(r.err()).isZero();
        List<JsonNode> rows = rows(level("trace"));
        assertThat(rows).hasSize(5).allMatch(x -> x.get("success").asBoolean());
        List<Double> sent = scheduled(level("trace"));
        for (int i = 0; i < 5; i++) {
            assertThat(sent.get(i)).as("sent at timestamp / 2, %d", i).isCloseTo(i * 0.05, within(2e-6));
        }
        JsonNode sum = summary(level("trace"));
        assertThat(sum.get("Trace Speedup").asDouble()).isEqualTo(2.0);
        // the progress line says the rate is the trace's mean, rounded (was "rate 73.84615384615384 req/s")
        assertThat(r.err()).containsPattern("\\[p/s] trace replay \\(mean \\d+(\\.\\d{1,2})? req/s\\): 5 requests");
        assertThat(sum.get("Concurrency").asInt()).isEqualTo(-1);

        // perf's replay of the same trace over the same API (a fresh simulator, another seed): the same tokens
        try (SimServer own = SimServer.start(SimConfig.defaults().withTtftMs(2).withPrefillMsPerToken(0).withItlMs(1))) {
            CliHarness.Run perf = CliHarness.main("perf", "--url", own.baseUrl() + "/v1/chat/completions", "--model", "m",
                    "--outputs-dir", dir.resolve("perf").toString(), "--no-timestamp", "--name", "mc", "--no-db",
                    "--dataset", "mooncake_trace", "--dataset-path", trace.toString(), "--trace-speedup", "2",
                    "--seed", "91");
            assertThat(perf.exit()).as(perf.err()).isZero();
            List<JsonNode> expected = rows(dir.resolve("perf/mc/rate_25.0_number_5"));
            int[] output = {4, 6, 3, 5, 2};
            for (int i = 0; i < 5; i++) {
                for (String key : List.of("prompt_tokens", "completion_tokens", "cached_tokens")) {
                    assertThat(rows.get(i).get(key).asInt()).as("%s of %d", key, i).isEqualTo(expected.get(i).get(key).asInt());
                }
                assertThat(rows.get(i).get("completion_tokens").asInt()).isEqualTo(output[i]);
            }
            assertThat(rows.get(1).get("cached_tokens").asInt()).as("#1 shares #0's blocks").isPositive();
            assertThat(rows.get(2).get("cached_tokens").asInt()).as("#2 starts with a new block").isZero();
        }
    }

    @Test
    void theSlaBlockFindsWhatPerfsFlagsFind() throws IOException {
        CliHarness.Run r = run("""
                provider: {name: p, base_url: %s/v1, model: m}
                generation: {max_tokens: 9, ignore_eos: true}
                sleep_between_levels_sec: 0
                sla_auto_tune:
                  params: {p99_latency: "<=0.66"}
                  num_runs: 2
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """.formatted(fourSlots.baseUrl()));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode scenario = JSON.readTree(dir.resolve("out/bench/p/s/sla_summary.json").toFile());
        CliHarness.Run perf = CliHarness.main("perf", "--url", fourSlots.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", dir.resolve("perf").toString(), "--no-timestamp", "--name", "sla",
                "--sleep-interval", "0", "--no-db", "--max-tokens", "9", "--extra-args", "{\"ignore_eos\": true}",
                "--min-prompt-length", "16", "--max-prompt-length", "16", "--sla-auto-tune", "--sla-params",
                "{\"p99_latency\": \"<=0.66\"}", "--sla-num-runs", "2");
        assertThat(perf.exit()).as(perf.err()).isZero();
        JsonNode flags = JSON.readTree(dir.resolve("perf/sla/sla_summary.json").toFile());
        assertThat(scenario.at("/selections/0/max_satisfied").asInt()).as(scenario.toPrettyString())
                .isEqualTo(flags.at("/selections/0/max_satisfied").asInt()).isEqualTo(4);
        assertThat(scenario.at("/selections/0/criteria").asText()).isEqualTo("p99_latency <= 0.66 s");
        // the same probes, each run twice with 2 × value requests, into sla_tuning/
        for (int v : new int[] {1, 2, 4, 5, 6, 8}) {
            assertThat(scenario.get("parallel_" + v).get("total_requests").asInt()).as("parallel_%d", v).isEqualTo(4 * v);
            JsonNode point = summary(level("sla_tuning/sla_parallel_" + v + "_run_1"));
            assertThat(point.get("Concurrency").asInt()).isEqualTo(v);
            assertThat(point.get("Total Requests").asInt()).isEqualTo(2 * v);
        }
        assertThat(scenario.has("parallel_3")).isFalse();
        assertThat(r.err()).contains("[p/s] SLA auto-tune: p99_latency <= 0.66 s → max parallel 4");
        // each probe says where the search is: its count is not known in advance, so no "point i of n"
        assertThat(r.err()).contains("[p/s] SLA auto-tune probe 1: parallel 1, run 1 of 2; 0 value(s) done; none held "
                        + "yet, none failed yet: the limit is in [1, ",
                "[p/s] SLA auto-tune probe 12: parallel 5, run 2 of 2; 5 value(s) done; holds at 4, fails at 6: the "
                        + "limit is in [4, 5] (10 requests)");
    }

    @Test
    void theSlaBlockTunesTheRateAtTheFixedConcurrency() throws IOException {
        CliHarness.Run r = run("""
                provider: {name: p, base_url: %s/v1, model: m}
                generation: {max_tokens: 2}
                sla_auto_tune: {variable: rate, params: {avg_latency: "<=10s"}, num_runs: 1, upper_bound: 4,
                                fixed_parallel: 3, number_multiplier: 1}
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """.formatted(fast.baseUrl()));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode tuned = JSON.readTree(dir.resolve("out/bench/p/s/sla_summary.json").toFile());
        assertThat(tuned.at("/selections/0/max_satisfied").asInt()).isEqualTo(4);
        assertThat(tuned.at("/selections/0/variable").asText()).isEqualTo("rate");
        JsonNode point = summary(level("sla_tuning/sla_rate_4_run_0"));
        assertThat(point.get("Request Rate (req/s)").asDouble()).isEqualTo(4.0);
        assertThat(point.get("Concurrency").asInt()).as("fixed_parallel bounds the probe").isEqualTo(3);
        assertThat(point.get("Total Requests").asInt()).as("4 × number_multiplier 1").isEqualTo(4);
    }

    /**
     * sla_auto_tune is the spec's (issue 28): the dry run prints one search per provider × scenario, and that spec run
     * as a spec file probes the same values into the same folders and finds the same answers as run --config.
     */
    @Test
    void theSlaBlocksSpecRunAsASpecFileDoesTheSameSearches() throws IOException {
        String yaml = """
                provider: {name: p, base_url: %s/v1, model: m}
                generation: {max_tokens: 2}
                sla_auto_tune: {params: {avg_latency: "<=10s"}, num_runs: 1, upper_bound: 3, number_multiplier: 1}
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                  - {name: t, type: chat, prompt: bye}
                """.formatted(fast.baseUrl());
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, yaml);
        CliHarness.Run printed = CliHarness.run("--config", file.toString(), "--dry-run", "--outputs-dir",
                dir.resolve("spec-out").toString(), "--no-timestamp", "--no-db");
        assertThat(printed.exit()).as(printed.err()).isZero();
        io.unibench.engine.spec.RunSpec spec = io.unibench.engine.spec.RunSpecJson.read(printed.out(), "stdout");
        assertThat(spec.sla()).extracting(io.unibench.engine.spec.Sla::workload).containsExactly(0, 1);
        assertThat(spec.points()).isEmpty();
        Path saved = dir.resolve("sla-spec.json");
        Files.writeString(saved, printed.out());
        CliHarness.Run bySpec = CliHarness.run(saved.toString(), "--no-client-warmup");
        assertThat(bySpec.exit()).as(bySpec.err()).isZero();
        CliHarness.Run byFile = run(yaml);
        assertThat(byFile.exit()).as(byFile.err()).isZero();
        for (String scenario : List.of("s", "t")) {
            Path a = dir.resolve("spec-out/bench/p").resolve(scenario);
            Path b = dir.resolve("out/bench/p").resolve(scenario);
            try (var probesA = Files.list(a.resolve("sla_tuning")); var probesB = Files.list(b.resolve("sla_tuning"))) {
                assertThat(probesA.map(f -> f.getFileName().toString()).sorted().toList()).as(scenario)
                        .containsExactly("sla_parallel_1_run_0", "sla_parallel_2_run_0", "sla_parallel_3_run_0")
                        .isEqualTo(probesB.map(f -> f.getFileName().toString()).sorted().toList());
            }
            JsonNode tunedA = JSON.readTree(a.resolve("sla_summary.json").toFile());
            JsonNode tunedB = JSON.readTree(b.resolve("sla_summary.json").toFile());
            assertThat(tunedA.at("/selections/0/max_satisfied").asInt()).as(scenario).isEqualTo(3)
                    .isEqualTo(tunedB.at("/selections/0/max_satisfied").asInt());
        }
        assertThat(bySpec.err()).contains("[p/t] SLA auto-tune: avg_latency <= 10 s → max parallel 3");
        assertThat(byFile.err()).contains("[p/t] SLA auto-tune: avg_latency <= 10 s → max parallel 3");
    }

    @Test
    void theShippedExamplesValidateAndCheckSaysWhatWillRun() {
        CliHarness.Run rates = CliHarness.run("--config", "examples/open-loop-rates.yaml", "--check");
        assertThat(rates.exit()).as(rates.err()).isZero();
        assertThat(rates.out()).contains(": valid (1 provider(s), 2 scenario(s), request rate levels [5, 10, 20] req/s "
                        + "(open loop), burstiness 0.5 (gamma gaps), no bound in flight, 60 requests per level)")
                .contains("  scenario mooncake: trace replay of examples/data/mooncake/mooncake_trace_sample.jsonl, "
                        + "24 requests at their timestamps / 20")
                .doesNotContain("levels [1]");
        CliHarness.Run sla = CliHarness.run("--config", "examples/sla-auto-tune.yaml", "--check");
        assertThat(sla.exit()).as(sla.err()).isZero();
        assertThat(sla.out()).contains(": valid (1 provider(s), 1 scenario(s), SLA auto-tune of parallel (concurrency) "
                        + "in [1, 64], criteria p99_tpot <= 5.2 ms, 2 run(s) per probe of max(1, round(value × 2)) "
                        + "requests; the probes are chosen by the search)")
                .doesNotContain("levels [1]");
    }

    @Test
    void checkSaysARampsRatesAndItsBound() throws IOException {
        Path f = dir.resolve("ramp.yaml");
        Files.writeString(f, """
                provider: {name: p, base_url: sim, model: m}
                request_rate:
                  ramp_up: {strategy: exponential, start_rps: 2, end_rps: 40}
                  max_concurrency: 8
                  requests_per_level: 30
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """);
        CliHarness.Run r = CliHarness.run("--config", f.toString(), "--check");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("request rate ramp exponential 2 → 40 req/s (one level), burstiness 1 (Poisson), "
                + "at most 8 in flight, 30 requests per level");
    }

    @Test
    void badLoadValuesAreOneLocatedLineAndExit2() throws IOException {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n");
        String head = "provider: {name: p, base_url: sim, model: m}\n";
        String chat = "scenarios:\n  - {name: s, type: chat, prompt: hi}\n";
        // {document, its line, the key named}
        String[][] cases = {
                {head + "request_rate: 0\n" + chat, "2", "request_rate: must be > 0, got 0"},
                {head + "request_rate: {levels: [2], burstiness: 0}\n" + chat, "2", "request_rate.burstiness: must be > 0"},
                {head + "concurrency: 4\nrequest_rate: [2]\n" + chat, "3", "request_rate: give concurrency"},
                {head + "request_rate:\n  levels: [2]\n  ramp_up: {strategy: linear, start_rps: 1, end_rps: 4}\n" + chat,
                        "4", "request_rate.ramp_up: give levels or ramp_up"},
                {head + "request_rate: {ramp_up: {strategy: sideways, start_rps: 1, end_rps: 4}}\n" + chat, "2",
                        "request_rate.ramp_up.strategy: must be one of linear, exponential"},
                {head + "request_rate: {burstiness: 2}\n" + chat, "2", "request_rate: needs levels"},
                {head + "sla_auto_tune: {params: {p98_latency: \"<=1\"}}\n" + chat, "2",
                        "sla_auto_tune.params: unknown metric 'p98_latency'"},
                {head + "sla_auto_tune:\n  params:\n    p99_latency: fast\n" + chat, "4",
                        "sla_auto_tune.params.p99_latency: 'fast': expected <=X"},
                {head + "sla_auto_tune: {params: {rps: max}, lower_bound: 8, upper_bound: 4}\n" + chat, "2",
                        "sla_auto_tune.upper_bound: 4: must be ≥ sla_auto_tune.lower_bound 8"},
                {head + "sla_auto_tune: {params: {goodput: max}}\n" + chat, "2", "sla_auto_tune.params: goodput"},
                {head + "concurrency: 2\nsla_auto_tune: {params: {rps: max}}\n" + chat, "3",
                        "sla_auto_tune: the search sets every level's load: drop concurrency"},
                {head + "scenarios:\n  - {name: s, type: chat, prompt: hi, trace_speedup: 2}\n", "3",
                        "scenarios[0].trace_speedup: applies to dataset: mooncake_trace only"},
                {head + "scenarios:\n  - {name: s, type: chat, dataset: mooncake_trace, dataset_path: " + trace
                        + ", trace_speedup: 0}\n", "3", "scenarios[0].trace_speedup: must be > 0"},
                {head + "scenarios:\n  - {name: s, type: chat, dataset: mooncake_trace, dataset_path: " + trace
                        + ", rounds: 2}\n", "3", "scenarios[0].rounds: 2: " + trace + " has 1 requests"},
                {head + "request_rate: 3\nscenarios:\n  - {name: s, type: multi_turn, conversation_history: 1}\n", "4",
                        "scenarios[0].type: multi_turn runs closed-loop conversations"}};
        for (String[] c : cases) {
            CliHarness.Run r = run(c[0]);
            assertThat(r.exit()).as(c[0]).isEqualTo(2);
            assertThat(r.err().strip()).as(c[0]).startsWith("unibench: bench.yaml:" + c[1] + ": " + c[2]).doesNotContain("\n")
                    .doesNotContain("Exception");
            assertThat(dir.resolve("out")).as("nothing ran").doesNotExist();
        }
    }
}
