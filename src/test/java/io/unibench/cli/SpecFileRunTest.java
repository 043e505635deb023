package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.RunSpecJson;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code unibench run FILE} on a run spec (issue 28's "done when"): {@code perf --dry-run FLAGS} saved to a file and
 * run gives the same points, request counts, files and summary keys as {@code perf FLAGS}, against the embedded
 * simulator the spec names, which starts as perf starts it.
 */
class SpecFileRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aDryRunsSpecRunsAsPerfRunsTheFlags() throws Exception {
        List<String> flags = List.of("--url", "sim", "--parallel", "1", "2", "--number", "3", "4", "--max-tokens", "4",
                "--sleep-interval", "0", "--no-db", "--no-timestamp", "--name", "same", "--no-client-warmup",
                "--enable-progress-tracker");
        Path viaSpec = dir.resolve("spec-out");
        Path spec = dir.resolve("saved.json");
        Files.writeString(spec, dryRun(flags, viaSpec));

        CliHarness.Run ran = CliHarness.run(spec.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        assertThat(ran.err()).contains("Target: embedded simulator at http://127.0.0.1:");

        Path viaPerf = dir.resolve("perf-out");
        List<String> perfFlags = new ArrayList<>(flags);
        perfFlags.addAll(List.of("--outputs-dir", viaPerf.toString()));
        CliHarness.Run perf = CliHarness.perf(new PerfCommand(), perfFlags.toArray(String[]::new));
        assertThat(perf.exit()).as(perf.err()).isZero();

        assertSameRun(viaSpec.resolve("same"), viaPerf.resolve("same"), List.of("parallel_1_number_3", "parallel_2_number_4"));
    }

    @Test
    void aYamlSpecOfConversationsRunsAsPerfRunsIt() throws Exception {
        List<String> flags = List.of("--url", "sim", "--multi-turn", "--parallel", "2", "--number", "3",
                "--max-turns", "2", "--max-tokens", "4", "--sleep-interval", "0", "--no-db", "--no-timestamp",
                "--name", "conv", "--no-client-warmup");
        Path viaSpec = dir.resolve("spec-out");
        Path spec = dir.resolve("saved.yaml");
        Files.writeString(spec, RunSpecJson.toYaml(RunSpecJson.read(dryRun(flags, viaSpec), "stdout")));

        CliHarness.Run ran = CliHarness.run(spec.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        Path viaPerf = dir.resolve("perf-out");
        List<String> perfFlags = new ArrayList<>(flags);
        perfFlags.addAll(List.of("--outputs-dir", viaPerf.toString()));
        CliHarness.Run perf = CliHarness.perf(new PerfCommand(), perfFlags.toArray(String[]::new));
        assertThat(perf.exit()).as(perf.err()).isZero();
        assertSameRun(viaSpec.resolve("conv"), viaPerf.resolve("conv"), List.of("parallel_2_number_3"));
    }

    /**
     * A scenario's spec carries what its points send and check (issue 28): its system message and other composition,
     * its {@code validate} rules and its {@code rate_limit} are the spec's, and a spec file runs them as
     * {@code run --config} runs the scenario: every reply that breaks a rule is a {@code validation_error}.
     */
    @Test
    void aScenariosSpecCarriesItsValidateRulesAndRateLimitAndRunsThem() throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, """
                provider: {name: p, base_url: sim, model: m, simulator: {ttft_ms: 1, itl_ms: 1}}
                generation: {max_tokens: 4}
                concurrency: {start: 1, peak: 2, step: 1, requests_per_level: 3}
                rate_limit: 5000
                scenarios:
                  - {name: s, type: chat, prompt: hello, system: be brief, validate: {content_regex: "^never matches$"}}
                """);
        CliHarness.Run printed = CliHarness.run("--config", file.toString(), "--dry-run", "--outputs-dir",
                dir.resolve("spec-out").toString(), "--no-db");
        assertThat(printed.exit()).as(printed.err()).isZero();
        RunSpec spec = RunSpecJson.read(printed.out(), "stdout");
        RunSpec.Workload w = spec.workloads().getFirst();
        assertThat(w.composition().system()).isEqualTo("be brief");
        assertThat(w.validate()).isEqualTo(new RunSpec.Validate(false, "^never matches$", false, null));
        assertThat(spec.limits().starts()).isEqualTo(new RunSpec.Starts(5000, spec.limits().starts().burst(), false));

        Path saved = dir.resolve("scenario-spec.json");
        Files.writeString(saved, printed.out());
        CliHarness.Run ran = CliHarness.run(saved.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isEqualTo(3); // every reply broke the rule: none succeeded
        CliHarness.Run scenario = CliHarness.run("--config", file.toString(), "--outputs-dir",
                dir.resolve("run-out").toString(), "--no-db", "--no-client-warmup");
        assertThat(scenario.exit()).as(scenario.err()).isEqualTo(3);
        for (String level : List.of("parallel_1", "parallel_2")) {
            Path point = spec.outputs().root().resolve("p").resolve("s").resolve(level);
            List<String> lines = Files.readAllLines(point.resolve("requests.jsonl"));
            assertThat(lines).as(level).hasSize(3);
            for (String line : lines) {
                assertThat(JSON.readTree(line).path("error_class").asText()).as(line).isEqualTo("validation_error");
            }
            assertThat(summary(point).path("Failed Requests").asInt()).as(level).isEqualTo(3);
        }
    }

    /**
     * One spec, one engine (issue 28): a scenario's composed conversations (a system message, cache-busting nonces,
     * synthesized history) printed by {@code run --config --dry-run} and run as a spec file send the same requests as
     * {@code run --config} runs them, into the scenario's folders (refused as a spec file before).
     */
    @Test
    void aScenariosComposedConversationsRunFromItsSpecFileAsFromTheScenario() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withPrefillMsPerToken(0).withItlMs(1));
             CapturingProxy proxy = new CapturingProxy(sim.baseUrl())) {
            Path file = dir.resolve("conv.yaml");
            Files.writeString(file, """
                    name: conv
                    provider: {name: p, base_url: "%s/v1", model: m}
                    generation: {max_tokens: 3}
                    concurrency: {levels: [1, 2], requests_per_level: 2}
                    scenarios:
                      - {name: talk, type: multi_turn, prompt: "my order is late", system: be brief, cache_bust: true,
                         conversation_history: 2}
                    """.formatted(proxy.baseUrl()));
            Path specOut = dir.resolve("spec-out");
            CliHarness.Run printed = CliHarness.run("--config", file.toString(), "--dry-run", "--outputs-dir",
                    specOut.toString(), "--no-timestamp", "--no-db");
            assertThat(printed.exit()).as(printed.err()).isZero();
            Path saved = dir.resolve("conv-spec.json");
            Files.writeString(saved, printed.out());
            CliHarness.Run ran = CliHarness.run(saved.toString(), "--no-client-warmup");
            assertThat(ran.exit()).as(ran.err()).isZero();
            List<String> viaSpec = sent(proxy);
            proxy.clear();
            Path runOut = dir.resolve("run-out");
            CliHarness.Run scenario = CliHarness.run("--config", file.toString(), "--outputs-dir", runOut.toString(),
                    "--no-timestamp", "--no-db", "--no-client-warmup");
            assertThat(scenario.exit()).as(scenario.err()).isZero();
            List<String> viaScenario = sent(proxy);
            // 2 levels of 2 conversations of 3 turns, each turn with the system message and its nonce
            assertThat(viaSpec).hasSize(12).isEqualTo(viaScenario)
                    .allMatch(m -> m.contains("be brief") && m.contains("[nonce "));
            for (String level : List.of("parallel_1", "parallel_2")) {
                assertThat(Files.readAllLines(specOut.resolve("conv/p/talk").resolve(level).resolve("requests.jsonl")))
                        .as(level).hasSize(6);
                assertThat(Files.readAllLines(runOut.resolve("conv/p/talk").resolve(level).resolve("requests.jsonl")))
                        .as(level).hasSize(6);
            }
        }
    }

    /** The system and user messages of every benchmark request sent, sorted (the connection test's left out). */
    private static List<String> sent(CapturingProxy proxy) {
        List<String> out = new ArrayList<>();
        for (CapturingProxy.Captured c : proxy.requests()) {
            List<String> mine = new ArrayList<>();
            for (JsonNode m : c.body().path("messages")) {
                if (!m.path("role").asText().equals("assistant")) mine.add(m.path("role").asText() + ": " + m.path("content").asText());
            }
            String text = String.join(" | ", mine);
            if (!text.equals("user: hello")) out.add(c.body().path("model").asText() + " " + text);
        }
        out.sort(null);
        return out;
    }

    /** {@code tokenize_prompt}: the encoder is code, not data; the run makes it again from the workload's options. */
    @Test
    void aSpecOfTokenIdPromptsRebuildsItsEncoder() throws Exception {
        List<String> flags = List.of("--url", "sim", "--tokenize-prompt", "--parallel", "1", "--number", "2",
                "--max-tokens", "4", "--sleep-interval", "0", "--no-db", "--no-timestamp", "--name", "ids",
                "--no-client-warmup");
        Path viaSpec = dir.resolve("spec-out");
        String printed = dryRun(flags, viaSpec);
        assertThat(RunSpecJson.read(printed, "stdout").workloads().getFirst().options().tokenizePrompt()).isTrue();
        Path spec = dir.resolve("ids.json");
        Files.writeString(spec, printed);
        CliHarness.Run ran = CliHarness.run(spec.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        Path viaPerf = dir.resolve("perf-out");
        List<String> perfFlags = new ArrayList<>(flags);
        perfFlags.addAll(List.of("--outputs-dir", viaPerf.toString()));
        CliHarness.Run perf = CliHarness.perf(new PerfCommand(), perfFlags.toArray(String[]::new));
        assertThat(perf.exit()).as(perf.err()).isZero();
        assertSameRun(viaSpec.resolve("ids"), viaPerf.resolve("ids"), List.of("parallel_1_number_2"));
        assertThat(summary(viaSpec.resolve("ids").resolve("parallel_1_number_2")).get("Success Requests").asInt())
                .isEqualTo(2);
        String request = Files.readAllLines(viaSpec.resolve("ids").resolve("parallel_1_number_2")
                .resolve("requests.jsonl")).getFirst();
        String perfRequest = Files.readAllLines(viaPerf.resolve("ids").resolve("parallel_1_number_2")
                .resolve("requests.jsonl")).getFirst();
        assertThat(JSON.readTree(request).get("prompt_tokens")).isNotNull()
                .isEqualTo(JSON.readTree(perfRequest).get("prompt_tokens"));
    }

    /**
     * {@code tokenize_prompt} against a served model with no {@code tokenizer_path}: refused before anything starts, in
     * one line naming the file and the pointer (it was refused in perf's words, "--tokenize-prompt needs
     * --tokenizer-path", a flag the file does not have, with neither the file nor the field named).
     */
    @Test
    void tokenIdPromptsForAServedModelWithoutATokenizerAreOneLocatedLine() throws Exception {
        Path out = dir.resolve("o");
        ObjectNode doc = (ObjectNode) JSON.readTree(dryRun(List.of("--url", "sim", "--tokenize-prompt", "--number", "2",
                "--no-db", "--no-timestamp", "--name", "ids"), out));
        ((ObjectNode) doc.get("targets").get(0)).put("embedded_simulator", false)
                .put("url", "http://127.0.0.1:9/v1/completions");
        Path file = dir.resolve("ids.json");
        Files.writeString(file, JSON.writeValueAsString(doc));
        CliHarness.Run bad = CliHarness.run(file.toString(), "--no-client-warmup");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).isEqualTo("unibench: " + file + ": /workloads/0/options/tokenize_prompt: needs "
                + "/workloads/0/options/tokenizer_path: the ids must be the served model's (only the embedded "
                + "simulator's own tokenizer needs none)");
        assertThat(Files.exists(out)).as("nothing written").isFalse();
    }

    /** {@code simulator_tls}: the embedded simulator serves https with a certificate made at start, trusted as it is. */
    @Test
    void aSpecNamingTheSimulatorWithTlsStartsItAsPerfDoes() throws Exception {
        Path out = dir.resolve("out");
        String printed = dryRun(List.of("--url", "sim", "--sim-tls", "--parallel", "1", "--number", "2",
                "--max-tokens", "4", "--no-db", "--no-timestamp", "--name", "tls", "--no-client-warmup"), out);
        RunSpec spec = RunSpecJson.read(printed, "stdout");
        assertThat(spec.targets().getFirst().simulatorTls()).isTrue();
        Path file = dir.resolve("tls.json");
        Files.writeString(file, printed);
        CliHarness.Run ran = CliHarness.run("--config", file.toString(), "--no-client-warmup");
        assertThat(ran.exit()).as(ran.err()).isZero();
        assertThat(ran.err()).contains("Target: embedded simulator at https://127.0.0.1:");
        assertThat(summary(out.resolve("tls").resolve("parallel_1_number_2")).get("Total Requests").asInt()).isEqualTo(2);
    }

    @Test
    void aBadSpecIsOneLineWithTheFileAndThePointer() throws Exception {
        String printed = dryRun(List.of("--url", "sim", "--number", "2", "--no-db", "--no-timestamp"), dir.resolve("o"));
        ObjectNode doc = (ObjectNode) JSON.readTree(printed);
        ((ObjectNode) doc.get("points").get(0).get("plan")).put("parallel", "many");
        Path file = dir.resolve("bad.json");
        Files.writeString(file, JSON.writeValueAsString(doc));
        CliHarness.Run bad = CliHarness.run(file.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).contains("bad.json").contains("/points/0/plan/parallel").doesNotContain("\n");
        assertThat(Files.exists(dir.resolve("o"))).as("nothing written").isFalse();

        Path good = dir.resolve("good.json");
        Files.writeString(good, printed);
        CliHarness.Run outputs = CliHarness.run(good.toString(), "--outputs-dir", dir.resolve("x").toString());
        assertThat(outputs.exit()).isEqualTo(2);
        assertThat(outputs.err().strip()).contains("--outputs-dir: ").contains("good.json").doesNotContain("\n");
    }

    private static String dryRun(List<String> flags, Path outputs) {
        List<String> args = new ArrayList<>(List.of("--dry-run"));
        args.addAll(flags);
        args.addAll(List.of("--outputs-dir", outputs.toString()));
        CliHarness.Run printed = CliHarness.perf(new PerfCommand(), args.toArray(String[]::new));
        assertThat(printed.exit()).as(printed.err()).isZero();
        return printed.out();
    }

    /** The same files (relative names), the same summary keys and request counts per point. */
    private static void assertSameRun(Path a, Path b, List<String> points) throws IOException {
        assertThat(files(a)).isEqualTo(files(b));
        try (Stream<Path> folders = Files.list(a)) {
            assertThat(folders.filter(Files::isDirectory).map(f -> f.getFileName().toString()).sorted().toList())
                    .containsExactlyElementsOf(points);
        }
        for (String p : points) {
            JsonNode sa = summary(a.resolve(p));
            JsonNode sb = summary(b.resolve(p));
            List<String> ka = new ArrayList<>();
            sa.fieldNames().forEachRemaining(ka::add);
            List<String> kb = new ArrayList<>();
            sb.fieldNames().forEachRemaining(kb::add);
            assertThat(ka).as(p).isEqualTo(kb);
            assertThat(sa.get("Total Requests")).as(p).isEqualTo(sb.get("Total Requests"));
            assertThat(sa.get("Total Requests")).as(p).isNotNull();
            assertThat(sa.get("Success Requests")).as(p).isNotNull().isEqualTo(sb.get("Success Requests"));
            JsonNode argsA = JSON.readTree(a.resolve(p).resolve("benchmark_args.json").toFile());
            JsonNode argsB = JSON.readTree(b.resolve(p).resolve("benchmark_args.json").toFile());
            ((ObjectNode) argsA).remove(List.of("url", "outputs_dir"));
            ((ObjectNode) argsB).remove(List.of("url", "outputs_dir"));
            assertThat(argsA).as(p).isEqualTo(argsB);
        }
    }

    private static JsonNode summary(Path point) throws IOException {
        return JSON.readTree(point.resolve("benchmark_summary.json").toFile());
    }

    private static TreeMap<String, Boolean> files(Path root) throws IOException {
        TreeMap<String, Boolean> m = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile).forEach(f -> m.put(root.relativize(f).toString(), true));
        }
        return m;
    }
}
