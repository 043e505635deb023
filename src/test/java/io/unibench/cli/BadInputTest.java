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

    @Test
    void simOnATakenPort() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertOneLineError(CliHarness.main("sim", "--port", Integer.toString(taken.getLocalPort())),
                    "cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void simOnAHostThatIsNoAddress() {
        assertOneLineError(CliHarness.main("sim", "--host", "999.1.1.1", "--port", "0"), "--host '999.1.1.1'");
    }

    @Test
    void outputsDirThatIsAFile() throws IOException {
        Path file = Files.writeString(dir.resolve("afile"), "");
        assertOneLineError(CliHarness.main("perf", "--outputs-dir", file.toString(), "--number", "1", "--no-db"),
                "--outputs-dir '" + file + "'");
    }

    @Test
    void exportAndCompareOfStoredRuns() throws IOException {
        String db = dir.resolve("runs.db").toString();
        CliHarness.Run perf = CliHarness.main("perf", "--number", "1", "--max-tokens", "2", "--db", db,
                "--outputs-dir", dir.resolve("out").toString());
        assertThat(perf.exit()).as(perf.err()).isZero();
        String id = CliHarness.main("runs", "list", "--db", db, "--json").out().replaceAll("(?s).*\"run_id\" : \"([^\"]+)\".*", "$1");
        Path file = Files.writeString(dir.resolve("afile"), "");
        assertOneLineError(CliHarness.main("runs", "export", id, "--format", "csv", "-o", file.resolve("x").toString(),
                "--db", db), "--output '" + file.resolve("x") + "'");
        assertOneLineError(CliHarness.main("runs", "export", id, "--format", "csv", "-o", file.toString(), "--db", db),
                "--output '" + file + "'");
        assertOneLineError(CliHarness.main("runs", "compare", id, id, "--db", db), "is named twice");
        assertOneLineError(CliHarness.main("runs", "compare", "A", "A", "--db", db), "run 'A': no such run");
        assertOneLineError(CliHarness.main("runs", "show", "", "--db", db), "run '': empty");
    }

    @Test
    void valuesAcceptedBeforeAreRefused() {
        assertOneLineError(CliHarness.main("perf", "--dataset-offset", "-1"), "--dataset-offset -1");
        assertOneLineError(CliHarness.main("perf", "--connect-timeout", "-1"), "--connect-timeout -1.0");
        assertOneLineError(CliHarness.main("perf", "--read-timeout", "0"), "--read-timeout 0.0");
        assertOneLineError(CliHarness.main("perf", "--model", ""), "--model '': must not be empty");
        assertOneLineError(CliHarness.main("perf", "--log-every-n-query", "0"), "--log-every-n-query 0");
        assertOneLineError(CliHarness.main("perf", "--top-p", "1.5"), "--top-p 1.5");
        assertOneLineError(CliHarness.main("perf", "--temperature", "-1"), "--temperature -1.0");
        assertOneLineError(CliHarness.main("perf", "--min-tokens", "-1"), "--min-tokens -1");
        assertOneLineError(CliHarness.main("perf", "--stop", ""), "--stop ''");
        assertOneLineError(CliHarness.main("perf", "--name", ""), "--name ''");
        assertOneLineError(CliHarness.main("perf", "--tag", " "), "--tag ' '");
        assertOneLineError(CliHarness.main("perf", "--db", ""), "--db ''");
        assertOneLineError(CliHarness.main("perf", "--dataset-args", "{bad"), "--dataset-args: invalid JSON");
        assertOneLineError(CliHarness.main("perf", "--chars-per-token", "0"), "--chars-per-token 0.0");
        assertOneLineError(CliHarness.main("perf", "--open-loop", "--multi-turn", "--rate", "5", "--max-turns", "2"),
                "--open-loop does not apply to --multi-turn");
        assertOneLineError(CliHarness.main("perf", "--query-template", "@" + dir.resolve("none.json")),
                "--query-template '@" + dir.resolve("none.json") + "': cannot read: no such file");
        assertOneLineError(CliHarness.main("perf", "--frequency-penalty", "3"), "--frequency-penalty 3.0: must be in [-2, 2]");
    }

    @Test
    void aMultiLineParserMessageBecomesOneLine() throws IOException {
        Path yaml = Files.writeString(dir.resolve("bad.yaml"), "not: [yaml\n");
        assertOneLineError(CliHarness.main("sim", "--config", yaml.toString(), "--port", "0"), "bad.yaml: cannot read");
    }

    /** picocli's @-file expansion is off: '@FILE' reaches --prompt whole, however many words the file holds. */
    @Test
    void promptFileWithSeveralWordsIsOnePrompt() throws IOException {
        Path prompt = Files.writeString(dir.resolve("p.txt"), "several words on\ntwo lines\n");
        CliHarness.Run run = CliHarness.main("perf", "--prompt", "@" + prompt, "--number", "1", "--max-tokens", "2",
                "--no-db", "--outputs-dir", dir.resolve("out").toString());
        assertThat(run.exit()).as(run.err()).isZero();
    }

    /** The whole dataset file is checked, not only the lines the run needs. */
    @Test
    void aBadLinePastNumberIsNamed() throws IOException {
        Path conversations = dir.resolve("conv.jsonl");
        Files.writeString(conversations, "[{\"role\": \"user\", \"content\": \"Hi\"}]\n\n"
                + "[{\"role\": \"user\", \"content\": \"Again\"}]\n[{\"role\": \"robot\", \"content\": \"x\"}]\n");
        assertOneLineError(CliHarness.main("perf", "--multi-turn", "--dataset", "custom_multi_turn", "--dataset-path",
                conversations.toString(), "--number", "1", "--outputs-dir", dir.toString()), "conv.jsonl:4: field '[0].role'");
        Path questions = dir.resolve("qa.jsonl");
        Files.writeString(questions, "{\"question\": \"hi\"}\n{\"question\": \"ho\"}\n{\"q\": 1}\n");
        assertOneLineError(CliHarness.main("perf", "--dataset", "openqa", "--dataset-path", questions.toString(),
                "--number", "1", "--outputs-dir", dir.toString()), "qa.jsonl:3");
    }

    /** Embedding and rerank files too: a bad record past --number is named, not left unread. */
    @Test
    void aBadEmbeddingOrRerankRecordPastNumberIsNamed() throws IOException {
        Path texts = dir.resolve("texts.jsonl");
        Files.writeString(texts, "{\"text\": \"a\"}\n{\"text\": \"b\"}\n{\"nope\": 1}\n");
        assertOneLineError(CliHarness.main("perf", "--api", "openai_embedding", "--dataset", "embedding",
                "--dataset-path", texts.toString(), "--number", "1", "--outputs-dir", dir.toString(), "--no-db"),
                "texts.jsonl:3: expected a string or an object with text");
        Path records = dir.resolve("rerank.jsonl");
        Files.writeString(records, "{\"query\": \"q\", \"documents\": [\"a\"]}\n{\"documents\": [\"a\"]}\n");
        assertOneLineError(CliHarness.main("perf", "--api", "openai_rerank", "--dataset", "rerank",
                "--dataset-path", records.toString(), "--number", "1", "--outputs-dir", dir.toString(), "--no-db"),
                "rerank.jsonl:2: field 'query'");
    }

    /** longalpaca's JSON array: a bad element past --number is named by the line it starts on. */
    @Test
    void aBadLongAlpacaElementIsNamedByItsLine() throws IOException {
        Path file = dir.resolve("alpaca.json");
        Files.writeString(file, "[\n  {\"instruction\": \"a\"},\n  {\"instruction\": \"b\"},\n  {\"input\": \"c\"}\n]\n");
        assertOneLineError(CliHarness.main("perf", "--dataset", "longalpaca", "--dataset-path", file.toString(),
                "--number", "1", "--outputs-dir", dir.toString(), "--no-db"), "alpaca.json:4: field 'instruction': missing");
        Files.writeString(file, "{\"instruction\": \"a\"}");
        assertOneLineError(CliHarness.main("perf", "--dataset", "longalpaca", "--dataset-path", file.toString(),
                "--number", "1", "--outputs-dir", dir.toString(), "--no-db"), "alpaca.json:1: expected one JSON array");
    }
}
