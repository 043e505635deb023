package io.unibench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import io.unibench.workload.Prompt;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestFactoryTest {

    private static GenerationParams params(int min, int max) {
        return new GenerationParams("m", ApiFormat.CHAT, min, max, null, 0.0, null, null, null, null, true, null);
    }

    @Test
    void aRepeatedPromptGetsTheSameBodyAndItsOwnRequestId() {
        List<Prompt> prompts = List.of(Prompt.ofText("a", -1, -1), Prompt.ofText("b", -1, -1));
        RequestFactory cached = new RequestFactory(prompts, params(8, 8), 1, "r");
        for (long seq = 0; seq < 6; seq++) {
            PreparedRequest r = cached.prepare(seq);
            // a fresh factory builds every body from scratch: the reused body must equal it
            PreparedRequest fresh = new RequestFactory(prompts, params(8, 8), 1, "r").prepare(seq);
            assertThat(r.body()).isEqualTo(fresh.body());
            assertThat(r.requestId()).isEqualTo("r-" + seq);
            assertThat(r.stream()).isTrue();
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains(seq % 2 == 0 ? "\"a\"" : "\"b\"");
        }
    }

    @Test
    void aMaxTokensRangeStillDrawsPerRequest() {
        RequestFactory requests = new RequestFactory(List.of(Prompt.ofText("a", -1, -1)), params(1, 1000), 7, "r");
        Set<String> bodies = new HashSet<>();
        for (long seq = 0; seq < 20; seq++) {
            bodies.add(new String(requests.prepare(seq).body(), StandardCharsets.UTF_8));
        }
        assertThat(bodies).hasSizeGreaterThan(1);
    }
}
