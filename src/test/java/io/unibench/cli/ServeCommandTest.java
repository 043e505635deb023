package io.unibench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

/** {@code unibench serve}'s refusals: one line, exit 2, before anything listens. */
class ServeCommandTest {
    @TempDir
    Path tmp;

    private CliHarness.Run serve(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new CommandLine(new ServeCommand().withEnvironment(env)), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute(args);
        return new CliHarness.Run(exit, out.toString(), err.toString());
    }

    @Test
    void anAddressOffLoopbackIsRefusedWithoutAToken() {
        CliHarness.Run r = serve(Map.of(), "--host", "0.0.0.0", "--port", "0", "--db", tmp.resolve("a.db").toString());
        assertThat(r.exit()).isEqualTo(Main.EXIT_BAD_INPUT);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--host 0.0.0.0").contains("needs a token");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aNamedTokenVariableMustBeSetAndThePortInRange() {
        CliHarness.Run unset = serve(Map.of(), "--token-env", "MY_TOKEN", "--db", tmp.resolve("b.db").toString());
        assertThat(unset.exit()).isEqualTo(Main.EXIT_BAD_INPUT);
        assertThat(unset.err()).contains("--token-env MY_TOKEN: the variable is not set");
        CliHarness.Run port = serve(Map.of(), "--port", "70000", "--db", tmp.resolve("c.db").toString());
        assertThat(port.exit()).isEqualTo(Main.EXIT_BAD_INPUT);
        assertThat(port.err().strip()).doesNotContain("\n").contains("--port 70000");
    }

    @Test
    void atLeastOneRunAtATime() {
        CliHarness.Run r = serve(Map.of(), "--max-concurrent-runs", "0", "--port", "0", "--db",
                tmp.resolve("d.db").toString());
        assertThat(r.exit()).isEqualTo(Main.EXIT_BAD_INPUT);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--max-concurrent-runs 0: at least 1");
    }

    @Test
    void aChannelAllowListNamingTheServicesOwnSettingsIsRefused() {
        CliHarness.Run r = serve(Map.of(), "--allow-channel-env", "*HOOK_URL,UNIBENCH_DB_PASSWORD", "--port", "0",
                "--db", tmp.resolve("e.db").toString());
        assertThat(r.exit()).isEqualTo(Main.EXIT_BAD_INPUT);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--allow-channel-env 'UNIBENCH_DB_PASSWORD': the "
                + "service's own settings are never on this list");
        CliHarness.Run token = serve(Map.of("UNIBENCH_ALLOWED_CHANNEL_ENVS", "MY_TOKEN", "MY_TOKEN", "token-4f8a2c9e1b7d3a5f"), "--token-env", "MY_TOKEN",
                "--port", "0", "--db", tmp.resolve("f.db").toString());
        assertThat(token.exit()).isEqualTo(Main.EXIT_BAD_INPUT); // the token's variable is never on it either
        assertThat(token.err().strip()).doesNotContain("\n").contains("UNIBENCH_ALLOWED_CHANNEL_ENVS 'MY_TOKEN'");
    }
}
