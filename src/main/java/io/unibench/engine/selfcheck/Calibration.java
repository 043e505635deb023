package io.unibench.engine.selfcheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.OutputFailedException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The client's own ceiling on this machine, as {@code unibench calibrate} measured it against the embedded simulator
 * (a fast one: no prefill, 1 ms decode steps, so the client and not the server is the limit): streamed requests per
 * second at a concurrency (256 by default), the CPU they cost, the event-loop lag at that load, and the environment it
 * was measured in. Stored as a small JSON file ({@code $UNIBENCH_HOME/calibration.json}, else
 * {@code ~/.unibench/calibration.json}); a run that asks more than {@link #DOCUMENTED_SHARE} of the ceiling measures
 * the client as much as the server ({@link #share}). The simulator runs in the same process, so the CPU figure is
 * the client's and the simulator's together: an upper bound of the client's own.
 *
 * @param requestsPerSecond    successful streamed requests per second at {@code concurrency}
 * @param cpuSecondsPer1000    process CPU seconds per 1,000 requests (client and in-process simulator)
 * @param cpuPercentOfCores    the process's CPU over the self-check's steady window, % of its cores
 * @param eventLoopLagP99Ms    the client's event-loop timer lag p99 at that load, ms
 * @param concurrency          requests in flight
 * @param requests             requests measured
 * @param durationSeconds      the measurement's length, s
 * @param cores                processors available to the process
 * @param jvm                  the JVM ({@code java.vm.name} and version)
 * @param os                   operating system and architecture
 * @param unibenchVersion      the tool's version
 * @param measuredAt           when (ISO-8601 instant)
 */
public record Calibration(double requestsPerSecond, double cpuSecondsPer1000, double cpuPercentOfCores,
                          double eventLoopLagP99Ms, int concurrency, long requests, double durationSeconds, int cores,
                          String jvm, String os, String unibenchVersion, String measuredAt) {
    /** The file's name in the unibench home folder. */
    public static final String FILE_NAME = "calibration.json";
    /**
     * The share of the ceiling a point may ask for before its numbers measure the client too: half. Above it the
     * client's event loops are busy enough that its timestamps queue (the calibrated lag is the ceiling's, not a
     * quiet client's).
     */
    public static final double DOCUMENTED_SHARE = 0.5;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code $UNIBENCH_HOME/calibration.json}, else {@code $HOME/.unibench/calibration.json} (the run store's folder). */
    public static Path defaultFile(Map<String, String> env) {
        String dir = env.get("UNIBENCH_HOME");
        if (dir != null && !dir.isBlank()) return Path.of(dir, FILE_NAME);
        String home = env.get("HOME");
        return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".unibench", FILE_NAME);
    }

    /**
     * The share of the ceiling a point asks for: its offered (or delivered) streamed requests per second over
     * {@link #requestsPerSecond}; above {@link #DOCUMENTED_SHARE} the verdict may say the client was near its limit.
     */
    public double share(double requestsPerSecondAsked) {
        return requestsPerSecondAsked / requestsPerSecond;
    }

    /** True when {@code requestsPerSecondAsked} is more than {@link #DOCUMENTED_SHARE} of the ceiling. */
    public boolean beyondDocumentedShare(double requestsPerSecondAsked) {
        return share(requestsPerSecondAsked) > DOCUMENTED_SHARE;
    }

    /** The file's content: one JSON object, {@code "calibration_version": 1} first. */
    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("calibration_version", 1);
        finite(o, "requests_per_second", requestsPerSecond);
        finite(o, "cpu_seconds_per_1000_requests", cpuSecondsPer1000);
        finite(o, "cpu_percent_of_cores", cpuPercentOfCores);
        finite(o, "event_loop_lag_p99_ms", eventLoopLagP99Ms);
        o.put("concurrency", concurrency);
        o.put("requests", requests);
        finite(o, "duration_s", durationSeconds);
        ObjectNode env = o.putObject("environment");
        env.put("cores", cores);
        env.put("jvm", jvm);
        env.put("os", os);
        env.put("unibench_version", unibenchVersion);
        o.put("measured_at", measuredAt);
        o.put("documented_share", DOCUMENTED_SHARE);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@link #toJson()} whole or not at all, making the folder. */
    public void write(Path file) {
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new OutputFailedException(file, e);
        }
        OutputFailedException.writeWhole(file, toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The stored calibration, or null when the file does not exist. A file that exists but cannot be read, is not
     * JSON, or lacks a figure is bad input: one line naming the file (and its line and column, or the field) and what
     * is wrong, so a run never goes on with a ceiling it could not read.
     */
    public static Calibration read(Path file) {
        if (!Files.exists(file)) return null;
        String again = "; run `unibench calibrate` again, or delete the file";
        JsonNode o;
        try {
            o = JSON.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var at = e.getLocation();
            String where = at == null || at.getLineNr() < 1 ? file.toString()
                    : file + ":" + at.getLineNr() + ":" + at.getColumnNr();
            String what = e.getOriginalMessage().lines().findFirst().orElse("").replaceAll("\\s*\\(start marker at.*", "");
            throw new BadInputException(where + ": not a calibration file: " + what + again);
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot be read (" + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage().lines().findFirst().orElse("")) + ")" + again);
        }
        if (o == null || !o.isObject()) {
            throw new BadInputException(file + ": not a calibration file: expected a JSON object" + again);
        }
        JsonNode version = o.get("calibration_version");
        if (version == null || !version.isInt() || version.asInt() != 1) {
            throw new BadInputException(file + ": /calibration_version: expected 1, got "
                    + (version == null ? "nothing" : version.toString()) + again);
        }
        double rps = number(file, o, "requests_per_second");
        if (!(rps > 0)) throw new BadInputException(file + ": /requests_per_second: must be > 0, got " + rps + again);
        JsonNode env = o.path("environment");
        return new Calibration(rps, number(file, o, "cpu_seconds_per_1000_requests"),
                number(file, o, "cpu_percent_of_cores"), number(file, o, "event_loop_lag_p99_ms"),
                o.path("concurrency").asInt(), o.path("requests").asLong(), o.path("duration_s").asDouble(),
                env.path("cores").asInt(), env.path("jvm").asText(null), env.path("os").asText(null),
                env.path("unibench_version").asText(null), o.path("measured_at").asText(null));
    }

    /** A figure, null when unknown (NaN): JSON has no NaN. */
    private static void finite(ObjectNode o, String field, double v) {
        if (Double.isFinite(v)) o.put(field, v);
        else o.putNull(field);
    }

    /** A figure of the file: a number, or null for unknown (NaN); anything else is bad input naming the field. */
    private static double number(Path file, JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v != null && v.isNull()) return Double.NaN;
        if (v == null || !v.isNumber()) throw new BadInputException(file + ": /" + field + ": expected a number");
        return v.asDouble();
    }
}
