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
        Files.writeString(broken, "{\"calibration_version\": 1, \"requests_per_second\": \"fast\"}");
        assertThatThrownBy(() -> Calibration.read(broken)).hasMessage(broken + ": /requests_per_second: expected a number");
        assertThat(Calibration.read(dir.resolve("absent.json"))).isNull();
    }

    /**
     * Issue 30 §5: a calibration file that is there but unreadable or corrupt stops the run before anything starts
     * (no simulator, no output folder, no stored run): one line naming the file (with line and column, or the field)
     * and what is wrong, exit 2. A missing file stays "no calibration".
     */
    @Test
    void aCorruptOrUnreadableCalibrationStopsTheRunWithOneLocatedLine() throws IOException {
        Path home = dir.resolve("home");
        Files.createDirectories(home);
        Path file = home.resolve(Calibration.FILE_NAME);
        String again = "; run `unibench calibrate` again, or delete the file";
        Files.writeString(file, "{\"calibration_version\": 1,\n \"requests_per_second\": 12");
        assertRefused(home, file + ":2:27: not a calibration file: Unexpected end-of-input: expected close marker "
                + "for Object" + again);

        Files.writeString(file, "{\"calibration_version\": 1, \"requests_per_second\": null}");
        assertRefused(home, file + ": /requests_per_second: must be > 0, got NaN" + again);

        Files.writeString(file, "[1, 2]");
        assertRefused(home, file + ": not a calibration file: expected a JSON object" + again);

        Files.writeString(file, "{\"calibration_version\": 7, \"requests_per_second\": 100}");
        assertRefused(home, file + ": /calibration_version: expected 1, got 7" + again);

        Files.delete(file);
        Files.createDirectories(file); // there, but not a file that can be read
        assertRefused(home, file + ": cannot be read (" + file + " (Is a directory))" + again);
    }

    private void assertRefused(Path home, String line) {
        Path out = dir.resolve("out");
        CliHarness.Run run = CliHarness.perf(new PerfCommand(), Map.of("UNIBENCH_HOME", home.toString()),
                "--number", "2", "--parallel", "1", "--outputs-dir", out.toString());
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("unibench: " + line);
        assertThat(out).doesNotExist();
    }
}
