package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code perf --dry-run} and {@code run --dry-run}: the run's spec on stdout, nothing sent, nothing written. */
class DryRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void perfPrintsTheSpecAndSendsNothing() {
        Path out = dir.resolve("out");
        // port 1 refuses: a connection test (or any request) would fail the command
        CliHarness.Run r = CliHarness.perf(new PerfCommand(), "--dry-run", "--url", "http://127.0.0.1:1/v1",
                "--model", "m", "--parallel", "2", "4", "--number", "6", "8", "--rate", "5", "--burstiness", "0.5",
                "--api-key", "sk-abcdefghijklmnop9876", "--outputs-dir", out.toString(), "--no-timestamp",
                "--goodput", "ttft:500", "--log-every-n-query", "7", "--tag", "nightly");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("sk-abcdefghijklmnop9876");
        assertThat(Files.exists(out)).as("nothing written").isFalse();
        // a key given as a value is printed masked, and such a spec is refused when read back: a spec names its key
        assertThat(r.out()).contains("\"value\" : \"sk-***");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RunSpecJson.read(r.out(), "stdout"))
                .hasMessageContaining("never the key itself");
        RunSpec spec = RunSpecJson.read(r.out().replaceFirst("\"value\" : \"sk-[^\"]*\"", "\"variable\" : \"K\""),
                "stdout");
        assertThat(spec.points()).extracting(RunSpec.Point::label)
                .containsExactly("parallel_2_number_6", "parallel_4_number_8");
        assertThat(spec.points().getFirst().plan().arrivals()).isEqualTo(ArrivalShape.gamma(0.5));
        assertThat(spec.points().get(1).plan().rate()).isEqualTo(5.0);
        RunSpec.Target t = spec.targets().getFirst();
        assertThat(t.url()).isEqualTo("http://127.0.0.1:1/v1/chat/completions");
        assertThat(spec.goodput().ttftMs()).isEqualTo(500.0);
        assertThat(spec.outputs().logEvery()).isEqualTo(7);
        assertThat(spec.outputs().root()).isEqualTo(out.resolve("m"));
        assertThat(spec.history().tags()).containsExactly("nightly");
        assertThat(spec.outputs().arguments().get("api_key").asText()).startsWith("sk-***");
    }

    @Test
    void aKeyFromTheEnvironmentIsNamedNotCopied() throws Exception {
        PerfCommand command = new PerfCommand();
        command.forTest(java.util.Map.of("OPENAI_API_KEY", "sk-fromtheenvironment12345"));
        java.io.StringWriter out = new java.io.StringWriter();
        int exit = Main.configure(new picocli.CommandLine(command), new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(new java.io.StringWriter(), true)).execute("--dry-run", "--url",
                "http://127.0.0.1:1", "--model", "m", "--outputs-dir", dir.resolve("o").toString());
        assertThat(exit).isZero();
        assertThat(out.toString()).doesNotContain("sk-fromtheenvironment12345");
        JsonNode key = JSON.readTree(out.toString()).get("targets").get(0).get("api_key");
        assertThat(key.get("variable").asText()).isEqualTo("OPENAI_API_KEY");
    }

    /** The printed points are the points the same flags run: labels, counts and the folders written. */
    @Test
    void theDryRunsPointsAreTheRunsPoints() throws Exception {
        String[] flags = {"--url", "sim", "--parallel", "1", "3", "--number", "3", "5", "--max-tokens", "4",
                "--sleep-interval", "0", "--no-db", "--no-timestamp", "--outputs-dir", dir.resolve("o").toString(),
                "--name", "same", "--no-client-warmup"};
        List<String> dry = new ArrayList<>(List.of("--dry-run"));
        dry.addAll(List.of(flags));
        CliHarness.Run printed = CliHarness.perf(new PerfCommand(), dry.toArray(String[]::new));
        assertThat(printed.exit()).as(printed.err()).isZero();
        RunSpec spec = RunSpecJson.read(printed.out(), "stdout");
        assertThat(spec.targets().getFirst().embeddedSimulator()).isTrue();
        assertThat(spec.targets().getFirst().url()).as("not started yet").isNull();

        CliHarness.Run ran = CliHarness.perf(new PerfCommand(), flags);
        assertThat(ran.exit()).as(ran.err()).isZero();
        Path root = spec.outputs().root();
        for (RunSpec.Point p : spec.points()) {
            JsonNode summary = JSON.readTree(root.resolve(p.label()).resolve("benchmark_summary.json").toFile());
            assertThat(summary.get("Total Requests").asInt()).as(p.label()).isEqualTo(p.plan().number());
            JsonNode args = JSON.readTree(root.resolve(p.label()).resolve("benchmark_args.json").toFile());
            assertThat(args.get("number").asInt()).isEqualTo(p.plan().number());
            assertThat(args.get("parallel").asInt()).isEqualTo(p.plan().parallel());
        }
        try (var folders = Files.list(root)) {
            assertThat(folders.filter(Files::isDirectory).map(f -> f.getFileName().toString()).sorted().toList())
                    .containsExactlyElementsOf(spec.points().stream().map(RunSpec.Point::label).sorted().toList());
        }
    }

    @Test
    void runPrintsAScenariosSpecAndRunsOneOfTwoTargetsEachAfterTheOther() throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, """
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 15, itl_ms: 1}}
                generation: {max_tokens: 4}
                concurrency: {start: 1, peak: 2, step: 1, requests_per_level: 4}
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """);
        Path out = dir.resolve("out");
        CliHarness.Run r = CliHarness.run("--config", file.toString(), "--dry-run", "--outputs-dir", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.exists(out)).isFalse();
        RunSpec spec = RunSpecJson.read(r.out(), "stdout");
        assertThat(spec.points()).extracting(RunSpec.Point::label).containsExactly("p/s/parallel_1", "p/s/parallel_2");
        assertThat(spec.points()).allSatisfy(p -> assertThat(p.plan().number()).isEqualTo(4));

        // a scenario of two providers is two targets: its spec runs each target after the other, the same files per
        // point as the scenario's folders (ROOT/PROVIDER/SCENARIO/LEVEL)
        Files.writeString(file, """
                providers:
                  - {name: p, base_url: sim, model: m}
                  - {name: q, base_url: sim, model: m}
                generation: {max_tokens: 4}
                concurrency: {start: 1, peak: 2, step: 1, requests_per_level: 4}
                scenarios:
                  - {name: s, type: chat, prompt: hello}
                """);
        CliHarness.Run two = CliHarness.run("--config", file.toString(), "--dry-run", "--outputs-dir", out.toString(),
                "--no-db");
        assertThat(two.exit()).as(two.err()).isZero();
        Path specFile = dir.resolve("spec.json");
        Files.writeString(specFile, two.out());
        CliHarness.Run ran = CliHarness.run(specFile.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        Path root = RunSpecJson.read(two.out(), "stdout").outputs().root();
        for (String provider : List.of("p", "q")) {
            for (String level : List.of("parallel_1", "parallel_2")) {
                Path point = root.resolve(provider).resolve("s").resolve(level);
                assertThat(point.resolve("requests.jsonl")).exists();
                assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(point.resolve(
                        "benchmark_summary.json").toFile()).path("Total Requests").asInt()).isEqualTo(4);
            }
        }
    }
}
