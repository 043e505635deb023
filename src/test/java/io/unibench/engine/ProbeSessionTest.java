package io.unibench.engine;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.engine.live.PhaseStarted;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunEvent;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunStatus;
import io.unibench.engine.live.Snapshot;
import io.unibench.engine.selfcheck.Calibration;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Percentiles;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RequestRecord;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The check's load probes as points of one session of the session runner, against the simulator over loopback:
 * every request a {@link RequestRecord}, each point a closed-loop {@link LoadPlan} whose figures are the
 * {@code metrics} aggregate's (the exact nearest-rank percentile), with its verdict beside it, the connection test
 * before the first point and the session's live events.
 */
@Timeout(60) // a hang guard only
class ProbeSessionTest {
    private static final String MODEL = "probe-model";

    private static GenerationParams params(int maxTokens) {
        return new GenerationParams(MODEL, ApiFormat.CHAT, maxTokens, maxTokens, null, 0, null, null, 1L, List.of(),
                true, null);
    }

    private static ProbeSession session(SimServer sim, Map<String, String> env) {
        return new ProbeSession(URI.create(sim.baseUrl() + "/v1/chat/completions"), Map.of(), MODEL,
                Duration.ofSeconds(30), 16, env, null);
    }

    private static List<String> prompts(String stem, int n) {
        return IntStream.range(0, n).mapToObj(i -> stem + " #" + i).toList();
    }

    @Test
    void pointsOfOneSessionAreRecordsAggregatedByMetricsWithTheirVerdictAndEvents() throws Exception {
        List<RunEvent> events = new CopyOnWriteArrayList<>();
        ProbeSession.Point first;
        ProbeSession.Point second;
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL))) {
            try (ProbeSession points = session(sim, Map.of())) {
                points.events().subscribe(e -> {
                    if (!(e instanceof Snapshot)) events.add(e);
                });
                first = points.run("ramp/6 concurrent", prompts("Say hello.", 6), params(8));
                second = points.run("ramp/2 concurrent", prompts("Say hello.", 2), params(8));
            } // closing the session delivers every event
        }
        assertThat(first.plan().parallel()).isEqualTo(6);
        assertThat(first.plan().number()).isEqualTo(6);
        assertThat(first.records()).hasSize(6).allSatisfy(r -> assertThat(r.success()).isTrue());
        assertThat(first.records()).extracting(r -> r.position().requestId()).doesNotHaveDuplicates();
        // the table rounds to 0.01 ms
        double[] ttftMs = first.records().stream().mapToDouble(r -> r.ttftSeconds() * 1000).sorted().toArray();
        assertThat(first.result().percentile("50%", PercentileRow.TTFT))
                .isCloseTo(Percentiles.nearestRankHigh(ttftMs, 50), org.assertj.core.data.Offset.offset(0.0051));
        assertThat(first.result().percentile("max", PercentileRow.TTFT))
                .isCloseTo(ttftMs[ttftMs.length - 1], org.assertj.core.data.Offset.offset(0.0051));
        // the verdict beside the point, judged by the session runner as every run's point is
        assertThat(first.result().verdict().verdict()).contains(PointVerdict.TOO_FEW_SAMPLES);
        assertThat(second.records()).hasSize(2);
        assertThat(first.records()).extracting(r -> r.position().requestId())
                .doesNotContainAnyElementsOf(second.records().stream().map(r -> r.position().requestId()).toList());
        // one run: the connection test before the first point only, each point started and finished, then its end
        assertThat(events).extracting(ProbeSessionTest::describe).containsExactly(
                "phase " + PhaseStarted.CONNECTION_TEST, "started 0 ramp/6 concurrent", "finished 0 ramp/6 concurrent",
                "started 1 ramp/2 concurrent", "finished 1 ramp/2 concurrent", "run " + RunStatus.FINISHED);
    }

    private static String describe(RunEvent e) {
        return switch (e) {
            case PhaseStarted p -> "phase " + p.phase();
            case PointStarted p -> "started " + p.point() + " " + p.label();
            case PointFinished p -> "finished " + p.point() + " " + p.label();
            case RunFinished r -> "run " + r.status();
            default -> e.toString();
        };
    }

    @Test
    void aPointsRequestsCanBeAbandonedMidFlight() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL));
             ProbeSession points = session(sim, Map.of())) {
            GenerationParams longOnes = new GenerationParams(MODEL, ApiFormat.CHAT, 2000, 2000, null, 0, null, null, 1L,
                    List.of(), true, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                    .put("ignore_eos", true));
            ProbeSession.Running run = points.start("queue-drains/burst of 3", List.of("a", "b", "c"), longOnes);
            run.awaitSent();
            assertThat(run.pending()).hasSize(3);
            run.pending().forEach(p -> p.abandon().complete(null));
            ProbeSession.Point burst = run.await();
            assertThat(burst.records()).hasSize(3)
                    .allSatisfy(r -> assertThat(r.outcome().errorClass()).isEqualTo("cancelled"));
        }
    }

    /** The engine's connection test runs before the session's first point: a wrong model fails in one line. */
    @Test
    void theConnectionTestRunsBeforeTheFirstPoint() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel("other")
                .with(Map.of("allowed-models", List.of("other"))));
             ProbeSession points = session(sim, Map.of())) {
            ProbeSession.Running run = points.start("ramp/1 concurrent", List.of("a"), params(4));
            run.awaitSent(); // returns: a point that never ran sends nothing
            assertThatThrownBy(run::await).isInstanceOf(BadInputException.class)
                    .hasMessageContaining("connection test to " + sim.baseUrl()).hasMessageContaining("HTTP 400").hasMessageContaining("does not exist");
        }
    }

    /**
     * A point the stored client ceiling says the client could not deliver (a machine calibrated at 1 req/s; a burst of
     * 8 starts within far less than the 14 s that would take) is client-bound, and the point says so with the
     * verdict's figures.
     */
    @Test
    void aPointBeyondTheClientsCeilingSaysTheClientLimitedIt(@TempDir Path home) throws Exception {
        new Calibration(1, 1, 1, 1, 1, 10, 10, 1, "jvm", "os", "test", "2026-01-01T00:00:00Z")
                .write(home.resolve(Calibration.FILE_NAME));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL));
             ProbeSession points = session(sim, Map.of("UNIBENCH_HOME", home.toString()))) {
            ProbeSession.Point lone = points.run("ramp/1 concurrent", List.of("a"), params(4));
            assertThat(lone.clientLimited()).isNull(); // one request has no rate
            ProbeSession.Point burst = points.run("ramp/8 concurrent", prompts("a", 8), params(4));
            assertThat(burst.clientLimited()).startsWith(PointVerdict.CLIENT_BOUND + ": asked ")
                    .contains("of this machine's calibrated 1 req/s");
            assertThat(burst.result().verdict().verdict()).startsWith(PointVerdict.CLIENT_BOUND);
        }
    }
}
