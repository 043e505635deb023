package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfSettingsTest {
    private static PerfSettings resolve(Map<String, String> env, String... args) {
        PerfOptions o = new PerfOptions();
        new CommandLine(new Holder(o)).parseArgs(args);
        return PerfSettings.resolve(o, env);
    }

    private static PerfSettings resolve(String... args) {
        return resolve(Map.of(), args);
    }

    @CommandLine.Command
    static final class Holder {
        @CommandLine.Mixin final PerfOptions options;

        Holder(PerfOptions options) {
            this.options = options;
        }
    }

    @Test
    void urlGetsTheEndpointPathAppendedWhenMissing() {
        assertThat(PerfSettings.completeUrl("http://h:8000")).isEqualTo("http://h:8000/v1/chat/completions");
        assertThat(PerfSettings.completeUrl("http://h:8000/v1")).isEqualTo("http://h:8000/v1/chat/completions");
        assertThat(PerfSettings.completeUrl("http://h:8000/v1/")).isEqualTo("http://h:8000/v1/chat/completions");
        assertThat(PerfSettings.completeUrl("https://h/v1/chat/completions")).isEqualTo("https://h/v1/chat/completions");
        assertThat(PerfSettings.completeUrl("http://h/v1/completions")).isEqualTo("http://h/v1/completions");
    }

    @Test
    void completionsUrlSelectsTheLegacyFormat() {
        assertThat(resolve("--url", "http://h/v1/completions", "--model", "m").format()).isEqualTo(ApiFormat.COMPLETIONS);
        assertThat(resolve("--url", "http://h/v1", "--model", "m").format()).isEqualTo(ApiFormat.CHAT);
        PerfSettings off = resolve("--url", "http://h/v1/chat/completions", "--model", "m", "--no-apply-chat-template");
        assertThat(off.format()).isEqualTo(ApiFormat.COMPLETIONS);
        assertThat(off.url()).isEqualTo("http://h/v1/completions");
    }

    @Test
    void badUrlsAreRefusedWithTheFlagNamed() {
        assertThatThrownBy(() -> resolve("--url", "ftp://h/x", "--model", "m"))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--url 'ftp://h/x'");
        assertThatThrownBy(() -> resolve("--url", "http://exa mple", "--model", "m"))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--url");
    }

    @Test
    void modelIsRequiredForARealUrlButNotForTheSimulator() {
        assertThatThrownBy(() -> resolve("--url", "http://h/v1")).hasMessageContaining("--model is required");
        assertThat(resolve().model()).isEqualTo("unibench-sim");
        assertThat(resolve("--url", "sim").embeddedSimulator()).isTrue();
    }

    @Test
    void sweepPairsNumberAndParallel() {
        PerfSettings s = resolve("--parallel", "1", "8", "64", "--number", "50", "400", "2000");
        assertThat(s.parallel()).containsExactly(1, 8, 64);
        assertThat(s.number()).containsExactly(50, 400, 2000);
        assertThat(s.rate()).containsExactly(-1.0, -1.0, -1.0);
        assertThatThrownBy(() -> resolve("--parallel", "1", "2", "--number", "1", "2", "3"))
                .hasMessageContaining("sweep pairs them");
        assertThat(resolve("--parallel", "2", "4", "--number", "10").number()).containsExactly(10, 10);
    }

    @Test
    void bareSimulatorRunUsesASmallSweep() {
        PerfSettings s = resolve();
        assertThat(s.defaultLoad()).isTrue();
        assertThat(s.parallel()).isEqualTo(PerfSettings.SIM_DEFAULT_PARALLEL);
        assertThat(s.dataset()).isEqualTo("random");
        PerfSettings real = resolve("--url", "http://h/v1", "--model", "m");
        assertThat(real.number()).containsExactly(1000);
        assertThat(real.parallel()).containsExactly(1);
        assertThat(real.sleepIntervalSeconds()).isEqualTo(5);
    }

    @Test
    void apiKeyComesFromTheFlagOrTheEnvironment() {
        assertThat(resolve(Map.of("OPENAI_API_KEY", "sk-env"), "--url", "http://h", "--model", "m").apiKey())
                .isEqualTo("sk-env");
        assertThat(resolve(Map.of("UNIBENCH_API_KEY", "sk-u", "OPENAI_API_KEY", "sk-o"), "--url", "http://h",
                "--model", "m").apiKey()).isEqualTo("sk-u");
        assertThat(resolve(Map.of("OPENAI_API_KEY", "sk-env"), "--api-key", "sk-flag").apiKey()).isEqualTo("sk-flag");
    }

    @Test
    void generationFlagsReachTheParams() {
        PerfSettings s = resolve("--max-tokens", "10", "20", "--min-tokens", "5", "--temperature", "0.7",
                "--top-p", "0.9", "--top-k", "40", "--seed", "3", "--stop", "END", "--no-stream",
                "--extra-args", "{\"ignore_eos\": true}");
        assertThat(s.generation().maxTokensMin()).isEqualTo(10);
        assertThat(s.generation().maxTokensMax()).isEqualTo(20);
        assertThat(s.generation().minTokens()).isEqualTo(5);
        assertThat(s.generation().stream()).isFalse();
        assertThat(s.generation().stop()).isEqualTo(List.of("END"));
        assertThat(s.generation().extraArgs().get("ignore_eos").asBoolean()).isTrue();
    }

    @Test
    void badValuesAreOneLineErrors() {
        assertThatThrownBy(() -> resolve("--extra-args", "{oops")).hasMessageStartingWith("--extra-args: invalid JSON");
        assertThatThrownBy(() -> resolve("--extra-args", "[1]")).hasMessageContaining("expected a JSON object");
        assertThatThrownBy(() -> resolve("--max-tokens", "20", "10")).hasMessageContaining("--max-tokens");
        assertThatThrownBy(() -> resolve("--rate", "0")).hasMessageContaining("--rate");
        assertThatThrownBy(() -> resolve("--headers", "novalue")).hasMessageContaining("KEY=VALUE");
    }

    @Test
    void warmupFollowsEvalscope() {
        assertThat(PerfSettings.warmupCount(0, 100)).isZero();
        assertThat(PerfSettings.warmupCount(5, 100)).isEqualTo(5);
        assertThat(PerfSettings.warmupCount(0.1, 100)).isEqualTo(10);
        assertThat(PerfSettings.warmupCount(0.001, 100)).isEqualTo(1);
    }
}
