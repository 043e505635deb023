package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.engine.ArrivalSchedule;
import io.unibench.engine.ArrivalShape;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** --burstiness and --ramp-up-* through the real CLI: the schedule recorded in requests.jsonl is the shape's own. */
class ArrivalShapesEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startSimulator() {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withPrefillMsPerToken(0).withItlMs(1));
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private CliHarness.Run perf(String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions", "--model",
                "m", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "a", "--sleep-interval", "0",
                "--no-test-connection", "--no-db", "--max-tokens", "2", "--seed", "5"));
        a.addAll(List.of(extra));
        return CliHarness.main(a.toArray(String[]::new));
    }

    /** scheduled_s of every request, by index, from the first one. */
    private static List<Double> scheduledFromFirst(Path jsonl) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(jsonl)) rows.add(JSON.readTree(line));
        rows.sort(Comparator.comparingLong(r -> r.get("index").asLong()));
        double first = rows.getFirst().get("scheduled_s").asDouble();
        return rows.stream().map(r -> r.get("scheduled_s").asDouble() - first).toList();
    }

    private static void assertSentOn(ArrivalSchedule expected, List<Double> got) {
        assertThat(got).hasSize(expected.size());
        for (int i = 0; i < got.size(); i++) {
            double want = (expected.offsetNanos(i) - expected.offsetNanos(0)) / 1e9;
            assertThat(got.get(i)).as("request %d", i).isCloseTo(want, within(2e-6));
        }
    }

    @Test
    void burstinessGivesTheGammaScheduleOfTheSeed() throws IOException {
        CliHarness.Run run = perf("--open-loop", "--rate", "40", "--number", "30", "--burstiness", "0.5");
        assertThat(run.exit()).as(run.err()).isZero();
        Path point = out.resolve("a/rate_40.0_number_30");
        // the measured phase draws its schedule from the point's seed + 1 (--seed 5, offset 0)
        assertSentOn(ArrivalShape.gamma(0.5).schedule(0, 30, 40, new SplittableRandom(6)),
                scheduledFromFirst(point.resolve("requests.jsonl")));
        JsonNode summary = JSON.readTree(point.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Burstiness").asDouble()).isEqualTo(0.5);
        assertThat(summary.get("Request Rate (req/s)").asDouble()).isEqualTo(40);
        assertThat(summary.get("Avg Queue Delay (ms)").isNumber()).as("the schedule lag is reported").isTrue();
    }

    @Test
    void aRampSendsAtTheRampsRatesAndReplacesRate() throws IOException {
        CliHarness.Run run = perf("--open-loop", "--number", "20", "--ramp-up-strategy", "exponential",
                "--ramp-up-start-rps", "20", "--ramp-up-end-rps", "80");
        assertThat(run.exit()).as(run.err()).isZero();
        Path point = out.resolve("a/rate_80.0_number_20");
        ArrivalShape.Ramp ramp = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.exponential, 20, 80);
        assertSentOn(ArrivalShape.ramp(ramp, 1).schedule(0, 20, 80, new SplittableRandom(6)),
                scheduledFromFirst(point.resolve("requests.jsonl")));
        JsonNode summary = JSON.readTree(point.resolve("benchmark_summary.json").toFile());
        assertThat(summary.get("Ramp-Up Strategy").asText()).isEqualTo("exponential");
        assertThat(summary.get("Ramp-Up Start RPS").asDouble()).isEqualTo(20);
        assertThat(summary.get("Ramp-Up End RPS").asDouble()).isEqualTo(80);
    }

    @Test
    void badShapesAreOneLineNamingTheFlag() {
        String[][] cases = {
                {"--burstiness", "0", "--rate", "5"}, {"--burstiness", "2"}, {"--burstiness", "x", "--rate", "5"},
                {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1"},
                {"--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4"},
                {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "4"},
                {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4", "--rate", "3"},
                {"--ramp-up-strategy", "sideways", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4"},
                {"--multi-turn", "--max-turns", "2", "--rate", "2", "--burstiness", "2"}};
        String[] flags = {"--burstiness", "--burstiness", "--burstiness", "--ramp-up-strategy", "--ramp-up-start-rps",
                "--ramp-up-start-rps", "--ramp-up-strategy", "--ramp-up-strategy", "--burstiness"};
        for (int i = 0; i < cases.length; i++) {
            List<String> a = new ArrayList<>(List.of("--number", "1"));
            a.addAll(List.of(cases[i]));
            CliHarness.Run run = perf(a.toArray(String[]::new));
            assertThat(run.exit()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(run.err().strip()).as(String.join(" ", cases[i])).contains(flags[i]).doesNotContain("\n")
                    .doesNotContain("Exception");
        }
    }
}
