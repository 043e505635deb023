package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.sim.FaultKind;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimKnobs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How `unibench sim` turns profile, file and flags into a configuration (without starting a server). */
class SimCommandTest {
    @TempDir
    Path dir;

    private static SimConfig resolve(String... args) {
        SimCommand command = new SimCommand();
        new CommandLine(command).parseArgs(args);
        return command.resolve();
    }

    @Test
    void everyKnobIsAFlag() {
        CommandLine cli = new CommandLine(new SimCommand());
        for (SimKnobs.Knob k : SimKnobs.all()) assertThat(cli.getCommandSpec().findOption("--" + k.name())).as(k.name()).isNotNull();
        assertThat(resolve().port()).isEqualTo(8877);
        assertThat(resolve().withPort(0)).isEqualTo(SimConfig.defaults());
    }

    @Test
    void flagsOverrideTheFileWhichOverridesTheProfile() throws Exception {
        Path yaml = dir.resolve("sim.yaml");
        Files.writeString(yaml, """
                profile: small-gpu
                itl-ms: 9
                max-num-seqs: 12
                fault-rate-429: 0.05
                allowed-models: [a, b]
                prefix-caching: false
                """);
        SimConfig c = resolve("--config", yaml.toString(), "--max-num-seqs", "7", "--fault-rate-disconnect", "0.1");
        assertThat(c.itlMs()).isEqualTo(9);                      // file over profile (small-gpu has 14)
        assertThat(c.scheduling().maxNumSeqs()).isEqualTo(7);    // flag over file
        assertThat(c.scheduling().maxNumBatchedTokens()).isEqualTo(2048); // from the profile
        assertThat(c.faults().rate(FaultKind.HTTP_429)).isEqualTo(0.05);
        assertThat(c.faults().rate(FaultKind.DISCONNECT)).isEqualTo(0.1);
        assertThat(c.scheduling().allowedModels()).containsExactly("a", "b");
        assertThat(c.scheduling().prefixCaching()).isFalse();
        assertThat(resolve("--profile", "instant").itlMs()).isZero();
        assertThat(resolve("--no-report-cached-tokens").reportCachedTokens()).isFalse();
        assertThat(resolve("--allowed-models", "x,y").scheduling().allowedModels()).isEqualTo(List.of("x", "y"));
    }

    @Test
    void jsonFilesWorkToo() throws Exception {
        Path json = dir.resolve("sim.json");
        Files.writeString(json, "{\"ttft-ms\": 3, \"max-queue-wait-ms\": 500}");
        SimConfig c = resolve("--config", json.toString());
        assertThat(c.ttftMs()).isEqualTo(3);
        assertThat(c.scheduling().maxQueueWaitMs()).isEqualTo(500);
    }

    @Test
    void badInputNamesTheSetting() throws Exception {
        Path yaml = dir.resolve("bad.yaml");
        Files.writeString(yaml, "itl-msec: 3\n");
        assertThatThrownBy(() -> resolve("--config", yaml.toString())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("bad.yaml").hasMessageContaining("itl-msec");
        assertThatThrownBy(() -> resolve("--profile", "nope")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("small-gpu");
        assertThatThrownBy(() -> resolve("--max-num-seqs", "0")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("max-num-seqs");
        assertThatThrownBy(() -> resolve("--fault-rate-429", "0.7", "--fault-rate-500", "0.7"))
                .isInstanceOf(BadInputException.class).hasMessageContaining("sum");
        Files.writeString(yaml, "fault-rate-429: lots\n");
        assertThatThrownBy(() -> resolve("--config", yaml.toString())).hasMessageContaining("fault-rate-429");
    }
}
