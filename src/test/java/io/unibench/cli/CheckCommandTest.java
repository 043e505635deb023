package io.unibench.cli;

import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code unibench check} end to end: the real CLI against the simulator on loopback. */
class CheckCommandTest {

    private static CliHarness.Run check(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new CheckCommand().forTest(env)), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute(args);
        return new CliHarness.Run(exit, out.toString(), err.toString());
    }

    @Test
    void theEmbeddedSimulatorPassesTheWholeBattery(@TempDir Path dir) throws IOException {
        Path report = dir.resolve("r.json");
        CliHarness.Run r = check(Map.of(), "--allow-load", "--settle", "3", "--report", "json",
                "--report-file", report.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("12 passed, 0 failed, 0 skipped").doesNotContain("FAIL ");
        for (String id : io.unibench.check.CheckSuite.ids()) assertThat(r.out()).containsPattern("PASS\\s+" + id + " ");
        String json = Files.readString(report);
        assertThat(json).contains("\"passed\" : 12", "\"check\" : \"recovery\"", "\"status\" : \"PASS\"",
                "\"probe\" : \"unknown model\"");
    }

    @Test
    void aFailedCheckExitsFourAndLoadChecksAreSkippedWithoutAllowLoad(@TempDir Path dir) throws IOException {
        SimConfig bad = SimConfig.defaults().withModel("m").with(Map.of("misbehave-buffer-stream", true));
        try (SimServer sim = SimServer.start(bad)) {
            Path report = dir.resolve("r.md");
            CliHarness.Run r = check(Map.of("KEY", "sk-secret-value-123"), "--url", sim.baseUrl(), "--model", "m",
                    "--api-key-env", "KEY", "--skip", "errors-are-errors", "--report", "md",
                    "--report-file", report.toString());
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(4);
            assertThat(r.out()).containsPattern("FAIL\\s+stream-incremental .*burst")
                    .containsPattern("SKIP\\s+overload-bounded .*--allow-load")
                    .containsPattern("PASS\\s+stream-format ")
                    .doesNotContain("errors-are-errors");
            String md = Files.readString(report);
            assertThat(md).contains("| stream-incremental | FAIL |").doesNotContain("sk-secret-value-123");
            assertThat(r.out() + r.err()).doesNotContain("sk-secret-value-123");
        }
    }

    /**
     * {@code ./unibench sim} then {@code ./unibench check} against it (issue 27): the simulator's default serves any
     * model name, as llama.cpp and SGLang do; the check agrees out of the box (WARN, exit 0), and with the served
     * models declared it fails (exit 4). Before: {@code FAIL errors-are-errors unknown model: HTTP 200}, exit 4.
     */
    @Test
    void theSimulatorsDefaultPassesTheCheckAndDeclaredServedModelsAreJudged() throws IOException {
        try (SimServer sim = SimServer.start(SimConfig.defaults())) {
            String model = SimConfig.defaults().model();
            CliHarness.Run r = check(Map.of(), "--url", sim.baseUrl(), "--model", model);
            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).containsPattern("WARN\\s+errors-are-errors\\s+3 probes: 2 passed, 1 warned")
                    .containsPattern("\\n      PASS  malformed body: → 400")
                    .containsPattern("\\n      WARN  unknown model: HTTP 200")
                    .containsPattern("\\n      PASS  oversize prompt: → 400 \\(\\d+ words, /v1/models max_model_len")
                    .contains("7 passed, 0 failed, 4 skipped, 1 warned").doesNotContain("FAIL ");
            CliHarness.Run declared = check(Map.of(), "--url", sim.baseUrl(), "--model", model, "--served-models", model,
                    "--only", "errors-are-errors");
            assertThat(declared.exit()).as(declared.out() + declared.err()).isEqualTo(4);
            assertThat(declared.out()).containsPattern("\\n      FAIL  unknown model: HTTP 200 as if it succeeded");
            CliHarness.Run wrong = check(Map.of(), "--url", sim.baseUrl(), "--model", model, "--served-models", "a,b");
            assertThat(wrong.exit()).isEqualTo(2);
            assertThat(wrong.err().strip()).isEqualTo("unibench: --served-models a,b: does not name --model " + model);
        }
    }

    @Test
    void aWarnedCheckExitsZeroAndIsCountedInTheReport(@TempDir Path dir) throws IOException {
        SimConfig warns = SimConfig.defaults().withModel("m").with(Map.of("misbehave-nondeterministic", true,
                "misbehave-rotate-fingerprint", true));
        try (SimServer sim = SimServer.start(warns)) {
            Path report = dir.resolve("r.json");
            CliHarness.Run r = check(Map.of(), "--url", sim.baseUrl(), "--model", "m", "--only", "determinism",
                    "--report", "json", "--report-file", report.toString());
            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).containsPattern("WARN\\s+determinism .*system_fingerprint changed")
                    .contains("0 passed, 0 failed, 0 skipped, 1 warned");
            assertThat(Files.readString(report)).contains("\"warned\" : 1", "\"status\" : \"WARN\"");
        }
    }

    @Test
    void anUnreachableTargetExitsThree() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliHarness.Run r = check(Map.of(), "--url", "http://127.0.0.1:" + port, "--model", "m");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).contains("cannot reach").contains("connection_refused");
    }

    @Test
    void badInputIsOneLineNamingTheFlag() {
        for (List<String> args : List.of(List.of("--only", "stream-format,nope"), List.of("--skip", "nope"),
                List.of("--url", "http://127.0.0.1:1"), List.of("--url", "ftp://h", "--model", "m"),
                List.of("--url", "http://h/some/path", "--model", "m"), List.of("--timeout", "0"),
                List.of("--settle", "-1"), List.of("--concurrency-limit", "0"), List.of("--report", "html"),
                List.of("--api-key-env", "UNSET_VAR"), List.of("--server-metrics", "nope://x"))) {
            CliHarness.Run r = check(Map.of(), args.toArray(String[]::new));
            assertThat(r.exit()).as(args + ": " + r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines()).as(args.toString()).hasSize(1);
            assertThat(r.err()).as(args.toString()).contains(args.getFirst());
        }
    }

    @Test
    void theUrlMayBeTheBaseTheV1OrTheEndpoint() {
        assertThat(CheckCommand.endpoint("http://h:8000").toString()).isEqualTo("http://h:8000/v1/chat/completions");
        assertThat(CheckCommand.endpoint("http://h:8000/v1/").toString()).isEqualTo("http://h:8000/v1/chat/completions");
        assertThat(CheckCommand.endpoint("https://h/x/v1/chat/completions").toString())
                .isEqualTo("https://h/x/v1/chat/completions");
    }
}
