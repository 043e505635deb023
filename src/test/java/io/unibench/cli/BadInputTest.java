package io.unibench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of bad input: one line on stderr, exit code 2, no stack trace. */
class BadInputTest {
    @TempDir
    Path dir;

    private void assertOneLineError(CliHarness.Run run, String expected) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).contains(expected).doesNotContain("\n").doesNotContain("Exception")
                .doesNotContain("\tat ");
    }

    /** Flags whose values are enums: picocli refuses others in one line that lists the candidates. */
    @Test
    void enumFlagsNameTheirCandidates() {
        String db = dir.resolve("h.db").toString();
        assertOneLineError(CliHarness.main("runs", "list", "--status", "done", "--db", db),
                "--status");
        assertThat(CliHarness.main("runs", "list", "--status", "done", "--db", db).err())
                .contains("running, finished, failed, interrupted").contains("'done'");
        assertOneLineError(CliHarness.main("runs", "export", "x", "--format", "xml", "--db", db), "--format");
        assertOneLineError(CliHarness.main("run", "--config", dir.resolve("none.yaml").toString(), "--report", "pdf"),
                "--report");
        assertThat(CliHarness.main("run", "--help").out()).contains("json, csv, html");
    }

    @Test
    void unknownFlag() {
        assertOneLineError(CliHarness.main("perf", "--no-such-flag"), "--no-such-flag");
    }

    @Test
    void badUrl() {
        assertOneLineError(CliHarness.main("perf", "--url", "ftp://x/y", "--model", "m"), "--url 'ftp://x/y'");
    }

    @Test
    void unreachableHost() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliHarness.Run run = CliHarness.main("perf", "--url", "http://127.0.0.1:" + port + "/v1", "--model", "m",
                "--number", "1", "--outputs-dir", dir.toString());
        assertOneLineError(run, "connection_refused");
    }

    @Test
    void unknownDataset() {
        assertOneLineError(CliHarness.main("perf", "--dataset", "nope", "--number", "1", "--parallel", "1",
                "--outputs-dir", dir.toString()), "unknown dataset 'nope'");
    }

    @Test
    void invalidExtraArgs() {
        assertOneLineError(CliHarness.main("perf", "--extra-args", "{bad"), "--extra-args");
    }

    @Test
    void missingDatasetFile() {
        assertOneLineError(CliHarness.main("perf", "--dataset", "openqa", "--dataset-path",
                dir.resolve("missing.jsonl").toString(), "--number", "1", "--parallel", "1",
                "--outputs-dir", dir.toString()), "missing.jsonl");
    }

    @Test
    void malformedDatasetLineIsNamed() throws IOException {
        Path file = dir.resolve("qa.jsonl");
        Files.writeString(file, "{\"question\": \"hi\"}\n{\"q\": 1}\n");
        assertOneLineError(CliHarness.main("perf", "--dataset", "openqa", "--dataset-path", file.toString(),
                "--number", "2", "--parallel", "1", "--outputs-dir", dir.toString()), "qa.jsonl:2");
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        CliHarness.Run run = CliHarness.main("perf", "--help");
        assertThat(run.exit()).isZero();
        picocli.CommandLine perf = new picocli.CommandLine(new Main()).getSubcommands().get("perf");
        for (picocli.CommandLine.Model.OptionSpec option : perf.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) continue;
            String shown = option.negatable() ? "--[no-]" + option.longestName().substring(2) : option.longestName();
            assertThat(run.out()).contains(shown);
            assertThat(String.join(" ", option.description())).as(option.longestName()).contains("Default");
        }
    }
}
