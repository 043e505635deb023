package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.LlmClient;
import io.unibench.client.WireTimes;
import io.unibench.metrics.Phase;
import io.unibench.metrics.PhaseSummary;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.report.TerminalReport;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.unibench.Moments.ABSENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Per-phase timings on the real client against the simulator: a new connection is timed, a reused one is not. */
class PhaseTimingTest {
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],"
            + "\"max_tokens\":4,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
            .getBytes(StandardCharsets.UTF_8);

    /**
     * An IP address is not looked up, so a new connection's DNS phase is 0, not the hand-over of the connect to the
     * event loop under the name "DNS lookup" (issue 31: "a DNS lookup of the literal 127.0.0.1"); the hand-over counts
     * in Queue, and the phases still add up to the latency.
     */
    @Test
    void anIpAddressIsNotLookedUpItsDnsPhaseIsZero() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withItlMs(1));
             LlmClient client = new LlmClient(new ClientConfig(URI.create("http://127.0.0.1:" + sim.port()
                     + "/v1/chat/completions"), Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), null, 1, false))) {
            ClientResult first = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
            assertThat(first.errorClass()).as(first.errorMessage()).isNull();
            WireTimes w = first.wire();
            assertThat(w.newConnection()).isTrue();
            assertThat(w.dnsDoneNanos()).isEqualTo(w.connectStartNanos());
            assertThat(w.connectStartNanos()).isGreaterThanOrEqualTo(first.startNanos());
            RequestRecord r = new RecordFactory(Tokenizers.defaultTokenizer(), false).record(0,
                    new PreparedRequest(0, "a", BODY, true, Prompt.ofText("hi there", -1, -1)), first, Moments.ABSENT, 0);
            assertThat(Phase.DNS.millis(r)).isZero();
            assertThat(Phase.QUEUE.millis(r)).isGreaterThan(0); // the connect's hand-over to the loop
        }
    }

    @Test
    void newConnectionIsTimedAndReusedConnectionShowsZeroConnect() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(20).withItlMs(1));
             LlmClient client = new LlmClient(new ClientConfig(URI.create(sim.baseUrl() + "/v1/chat/completions"),
                     Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), null, 1, false))) {
            ClientResult first = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
            ClientResult second = client.send(BODY, true, "b").get(10, TimeUnit.SECONDS);
            assertThat(first.errorClass()).as(first.errorMessage()).isNull();
            assertThat(second.errorClass()).as(second.errorMessage()).isNull();

            WireTimes w = first.wire();
            assertThat(w.newConnection()).isTrue();
            assertThat(w.connectStartNanos()).isGreaterThanOrEqualTo(first.startNanos());
            assertThat(w.dnsDoneNanos()).isGreaterThanOrEqualTo(w.connectStartNanos());
            assertThat(w.connectDoneNanos()).isGreaterThan(w.dnsDoneNanos()); // a TCP handshake takes time
            assertThat(w.tlsDoneNanos()).isEqualTo(ABSENT); // plain http
            assertThat(w.writtenNanos()).isGreaterThanOrEqualTo(w.writeStartNanos());
            assertThat(w.firstByteNanos()).isGreaterThan(w.writtenNanos());
            assertThat(first.firstTokenNanos()).isGreaterThanOrEqualTo(w.firstByteNanos());

            WireTimes again = second.wire();
            assertThat(again.newConnection()).isFalse();
            assertThat(again.connectStartNanos()).isEqualTo(ABSENT);
            assertThat(again.connectDoneNanos()).isEqualTo(ABSENT);
            assertThat(again.writeStartNanos()).isNotEqualTo(ABSENT);
            assertThat(again.firstByteNanos()).isGreaterThan(again.writtenNanos());

            RecordFactory records = new RecordFactory(Tokenizers.defaultTokenizer(), false);
            PreparedRequest req = new PreparedRequest(0, "a", BODY, true, Prompt.ofText("hi there", -1, -1));
            RequestRecord r1 = records.record(0, req, first, Moments.ABSENT, 0);
            RequestRecord r2 = records.record(1, req, second, Moments.ABSENT, 0);

            assertThat(Phase.CONNECT.millis(r1)).isGreaterThan(0);
            assertThat(Phase.DNS.millis(r1)).isGreaterThanOrEqualTo(0);
            assertThat(Phase.TLS.millis(r1)).isNaN();
            assertThat(Phase.CONNECT.millis(r2)).isZero();
            assertThat(Phase.DNS.millis(r2)).isZero();
            assertThat(Phase.TLS.millis(r2)).isZero();
            // the sim holds the first token for its configured 20 ms TTFT after reading the request, which it cannot
            // read before the client starts writing it; the "written" stamp itself may come after the server's read
            // (the write listener runs when the client's loop gets to it), so only write start → first token is bound
            assertThat(Phase.WRITE.millis(r2) + Phase.SERVER_WAIT.millis(r2) + Phase.FIRST_TOKEN.millis(r2))
                    .isGreaterThanOrEqualTo(20);
            for (RequestRecord r : new RequestRecord[] {r1, r2}) {
                double sum = 0;
                for (Phase p : Phase.values()) {
                    double v = p.millis(r);
                    if (!Double.isNaN(v)) {
                        assertThat(v).as(p.label()).isGreaterThanOrEqualTo(0);
                        sum += v;
                    }
                }
                assertThat(sum).isCloseTo(r.latencySeconds() * 1000, within(1e-6));
            }

            RunMetrics metrics = new RunMetrics();
            metrics.accept(r1);
            metrics.accept(r2);
            RunResult result = metrics.result(new RunInfo("p", 1, -1, 2));
            PhaseSummary phases = result.phases();
            assertThat(phases.newConnections()).isEqualTo(1);
            assertThat(phases.reusedConnections()).isEqualTo(1);
            assertThat(phases.row(Phase.CONNECT).n()).isEqualTo(2);
            assertThat(phases.row(Phase.TLS)).isNull(); // no handshake in the run: the row is left out
            assertThat(TerminalReport.render(java.util.List.of(result), Map.of()))
                    .contains("Phases").contains("TCP connect").contains("connections opened / reused");
        }
    }
}
