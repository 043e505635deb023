package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.selfcheck.Calibration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code unibench calibrate} end to end: a bounded measurement through perf's path, its file, its reader. */
class CalibrateCommandTest {
    @TempDir
    Path dir;

    @Test
    void aBoundedCalibrationRunsThroughTheEngineAndStoresItsFigures() throws IOException {
        Path file = dir.resolve("home/calibration.json");
        CliHarness.Run run = CliHarness.main("calibrate", "--duration", "20", "--number", "120", "--parallel", "8",
                "--file", file.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("Client ceiling on this machine", "streamed req/s at 8 in flight",
                "Stored in " + file);

        JsonNode json = new ObjectMapper().readTree(file.toFile());
        assertThat(json.get("calibration_version").asInt()).isEqualTo(1);
        assertThat(json.get("requests").asLong()).isEqualTo(120);
        assertThat(json.get("concurrency").asInt()).isEqualTo(8);
        assertThat(json.get("requests_per_second").asDouble()).isPositive();
        assertThat(json.has("cpu_seconds_per_1000_requests")).isTrue();
        assertThat(json.has("event_loop_lag_p99_ms")).isTrue();
        assertThat(json.get("environment").get("cores").asInt()).isPositive();
        assertThat(json.get("environment").get("jvm").asText()).isNotBlank();
        assertThat(json.get("measured_at").asText()).endsWith("Z");

        Calibration c = Calibration.read(file);
        assertThat(c.requests()).isEqualTo(120);
        double ceiling = c.requestsPerSecond();
        assertThat(c.beyondDocumentedShare(ceiling * 0.6)).isTrue();
        assertThat(c.beyondDocumentedShare(ceiling * 0.4)).isFalse();
    }

    @Test
    void theDefaultFileIsInTheUnibenchHome() {
        assertThat(Calibration.defaultFile(Map.of("UNIBENCH_HOME", "/x/u", "HOME", "/h")))
                .isEqualTo(Path.of("/x/u/calibration.json"));
        assertThat(Calibration.defaultFile(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.unibench/calibration.json"));
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws IOException {
        CliHarness.Run run = CliHarness.main("calibrate", "--duration", "0", "--file", dir.resolve("c.json").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("unibench: --duration 0.0: expected 0 < S <= 600");
        assertThat(dir.resolve("c.json")).doesNotExist();

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"requests_per_second\": \"fast\"}");
        assertThatThrownBy(() -> Calibration.read(broken)).hasMessage(broken + ": /requests_per_second: expected a number");
        assertThat(Calibration.read(dir.resolve("absent.json"))).isNull();
    }
}
