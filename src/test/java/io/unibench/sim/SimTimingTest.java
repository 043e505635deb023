package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delays a client sees follow the latency model. Lower bounds are strict: the server starts its clock when
 * the request arrives (after our send timestamp) and its timers never fire early. Upper bounds are only sanity
 * bounds: this machine is shared by several builds on 2 cores, so scheduling delays of tens of ms happen; the
 * integrator's end-to-end test owns tighter checks.
 */
class SimTimingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TTFT_MS = 50;
    private static final double PREFILL_MS_PER_TOKEN = 0.5;
    private static final double ITL_MS = 10;
    private static final int TOKENS = 40;
    private static final int PROMPT_TOKENS = 40;

    private static ObjectNode body(boolean stream, int firstTokenId) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode prompt = body.putArray("prompt");
        for (int i = 0; i < PROMPT_TOKENS; i++) prompt.add(firstTokenId + i);
        body.put("stream", stream);
        body.put("max_tokens", TOKENS);
        body.put("ignore_eos", true);
        return body;
    }

    private static SimServer sim;

    @BeforeAll
    static void start() {
        // The name-based start (loads cl100k_base itself), as `unibench perf` uses it.
        sim = SimServer.start(SimConfig.defaults().withTtftMs(TTFT_MS).withPrefillMsPerToken(PREFILL_MS_PER_TOKEN)
                .withItlMs(ITL_MS));
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void streamedTtftAndItlFollowTheModel() throws Exception {
        try (RawHttp client = new RawHttp(sim.port())) {
            RawHttp.Response r = client.exchange("POST", "/v1/completions", JSON.writeValueAsString(body(true, 1000)));
            List<RawHttp.Event> tokens = r.events().subList(0, TOKENS);
            for (RawHttp.Event e : tokens) {
                assertThat(JSON.readTree(e.data()).at("/choices/0/finish_reason").isNull()).isTrue();
            }
            double ttftMs = (tokens.get(0).arrivalNanos() - r.sentNanos()) / 1e6;
            double expectedTtft = TTFT_MS + PROMPT_TOKENS * PREFILL_MS_PER_TOKEN; // nothing cached yet
            assertThat(ttftMs).isGreaterThanOrEqualTo(expectedTtft).isLessThan(expectedTtft + 500);

            // The engine steps on an absolute cadence (a late step does not push the later ones back), so a single
            // gap seen here may be shorter than ITL after a delayed one; what cannot happen is the last token arriving
            // before it is due: TTFT + 39 inter-token steps after the request was sent.
            double lastMs = (tokens.get(TOKENS - 1).arrivalNanos() - r.sentNanos()) / 1e6;
            assertThat(lastMs).isGreaterThanOrEqualTo(expectedTtft + (TOKENS - 1) * ITL_MS);
            double meanItlMs = (tokens.get(TOKENS - 1).arrivalNanos() - tokens.get(0).arrivalNanos()) / 1e6 / (TOKENS - 1);
            assertThat(meanItlMs).isLessThan(ITL_MS + 200);
        }
    }

    @Test
    void nonStreamedAnswerComesAfterTheWholeGeneration() throws Exception {
        try (RawHttp client = new RawHttp(sim.port())) {
            RawHttp.Response r = client.exchange("POST", "/v1/completions", JSON.writeValueAsString(body(false, 2000)));
            double elapsedMs = (System.nanoTime() - r.sentNanos()) / 1e6;
            JsonNode json = JSON.readTree(r.body());
            assertThat(json.at("/usage/completion_tokens").asInt()).isEqualTo(TOKENS);
            double expected = TTFT_MS + PROMPT_TOKENS * PREFILL_MS_PER_TOKEN + (TOKENS - 1) * ITL_MS;
            assertThat(elapsedMs).isGreaterThanOrEqualTo(expected).isLessThan(expected + 1000);
        }
    }
}
