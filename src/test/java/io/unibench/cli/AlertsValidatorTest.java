package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code run --config F --check} and {@code schedule add} judge a file's {@code alerts:}/{@code notify:} sections
 * with one validator: each mistake is refused by both, exit 2, with the same located line ({@code run --check}
 * called these files "valid").
 */
class AlertsValidatorTest {
    private static final Map<String, String> ENV = Map.of("HOOK", "http://127.0.0.1:9/hook");
    private static final String BASE = """
            provider: {name: p, base_url: sim, model: m}
            scenarios:
              - {name: s, type: chat, prompt: hi}
            alerts:
              - name: slow
                metric: ttft_p95_ms
                op: ">"
                threshold: 2000
                notify: [team]
            notify:
              - {name: team, type: webhook, url_env: HOOK}
            """;

    @TempDir
    Path dir;

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> mistakes() {
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of("undefined channel", "notify: [team]", "notify: [ops]",
                        "bench.yaml:9: alerts[0].notify[0]: no channel 'ops' in notify: (known: team)"),
                org.junit.jupiter.params.provider.Arguments.of("threshold with regression", "threshold: 2000",
                        "threshold: 2000\n    regression: {rounds: 5, percent: 20}",
                        "bench.yaml:5: alerts[0]: give exactly one of threshold and regression"),
                org.junit.jupiter.params.provider.Arguments.of("duplicate channel names",
                        "  - {name: team, type: webhook, url_env: HOOK}",
                        "  - {name: team, type: webhook, url_env: HOOK}\n  - {name: team, type: slack, url_env: HOOK}",
                        "bench.yaml:12: notify[1].name: duplicate channel name 'team'"));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("mistakes")
    void aMistakeInAlertsOrNotifyIsRefusedByRunCheckAndScheduleAdd(String label, String from, String to,
                                                                   String message) throws Exception {
        assertThat(BASE).contains(from);
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, BASE.replace(from, to.replace("\\n", "\n")));

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new RunCommand().forTest(ENV)), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute("--config", file.toString(), "--check");
        assertThat(exit).as(out + err.toString()).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("unibench: " + message);
        assertThat(out.toString()).doesNotContain("valid");

        StringWriter sOut = new StringWriter();
        StringWriter sErr = new StringWriter();
        int added = Main.configure(new picocli.CommandLine(new ScheduleCommand().withEnvironment(ENV)),
                new PrintWriter(sOut, true), new PrintWriter(sErr, true)).execute("add", "x", "--config",
                file.toString(), "--every", "1h", "--db", dir.resolve("u.db").toString());
        assertThat(added).as(sOut + sErr.toString()).isEqualTo(2);
        assertThat(sErr.toString().strip()).isEqualTo("unibench: " + message);

        // the file without the mistake is valid for both
        Files.writeString(file, BASE);
        StringWriter okOut = new StringWriter();
        assertThat(Main.configure(new picocli.CommandLine(new RunCommand().forTest(ENV)), new PrintWriter(okOut, true),
                new PrintWriter(new StringWriter(), true)).execute("--config", file.toString(), "--check")).isZero();
        assertThat(okOut.toString()).contains("valid");
    }
}
