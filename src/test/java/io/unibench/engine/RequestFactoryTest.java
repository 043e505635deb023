package io.unibench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.Prompt;
import io.unibench.workload.RandomDataset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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

    @Test
    void synthesizedPromptsPreparedAheadAreExactAndTheSameWhoeverMadeThem() throws Exception {
        Tokenizer cl100k = Tokenizers.load("cl100k_base");
        int n = 300;
        List<Prompt> prompts = new RandomDataset().load(new DatasetOptions(null, 0, 128, 128, 0, cl100k, true, 5), n);
        List<byte[]> ahead = new ArrayList<>();
        try (RequestFactory requests = new RequestFactory(prompts, params(8, 8), 1, "r")) {
            requests.awaitPrefetched(); // all 300 made by the prefetch thread
            for (long seq = 0; seq < n; seq++) ahead.add(requests.prepare(seq).body());
        }
        ObjectMapper json = new ObjectMapper();
        byte[][] raced = new byte[n][];
        try (RequestFactory requests = new RequestFactory(prompts, params(8, 8), 1, "r")) {
            // taken at once from four threads: some made by the thread, some by the takers themselves
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            List<Thread> takers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                takers.add(Thread.ofVirtual().start(() -> {
                    int seq;
                    while ((seq = next.getAndIncrement()) < n) raced[seq] = requests.prepare(seq).body();
                }));
            }
            for (Thread t : takers) t.join();
        }
        for (int seq = 0; seq < n; seq++) {
            assertThat(raced[seq]).isEqualTo(ahead.get(seq));
            String content = json.readTree(ahead.get(seq)).path("messages").path(0).path("content").asText();
            assertThat(cl100k.count(content)).as("prompt %d", seq).isEqualTo(128);
        }
    }

    @Test
    void thePointWaitsOnlyForTheFirstSecondOfItsPlanWithinTheWindow() {
        // closed loop: the warm-up and one request per worker
        assertThat(RequestFactory.firstBatch(new LoadPlan(64, 100_000, 0, null, 10))).isEqualTo(74);
        // paced: a second of the rate when that is more than the concurrency
        assertThat(RequestFactory.firstBatch(new LoadPlan(8, 100_000, 500, null, 0))).isEqualTo(500);
        // never more than the point sends, never more than the window
        assertThat(RequestFactory.firstBatch(new LoadPlan(64, 20, 0, null, 0))).isEqualTo(20);
        assertThat(RequestFactory.firstBatch(new LoadPlan(100_000, 1_000_000, 0, null, 0)))
                .isEqualTo(RequestFactory.WINDOW_REQUESTS);
        assertThat(RequestFactory.firstBatch(LoadPlan.openLoop(100_000, 1e9, null, 0)))
                .isEqualTo(RequestFactory.WINDOW_REQUESTS);
    }

    @Test
    void synthesizedPromptsReportTheDispatchersWaits() throws Exception {
        Tokenizer cl100k = Tokenizers.load("cl100k_base");
        List<Prompt> prompts = new RandomDataset().load(new DatasetOptions(null, 0, 16, 16, 0, cl100k, true, 5), 50);
        try (RequestFactory requests = new RequestFactory(prompts, params(8, 8), 1, "r")) {
            List<String> lines = new ArrayList<>();
            requests.awaitFirstBatch(new LoadPlan(4, 50, 0, null, 0), lines::add);
            for (long seq = 0; seq < 50; seq++) requests.prepare(seq);
            assertThat(requests.summaryKeys()).containsOnlyKeys("Preparation Waits", "Preparation Wait (s)");
            assertThat((Long) requests.summaryKeys().get("Preparation Waits"))
                    .isEqualTo(requests.preparationWaits().count());
        }
        // prompts read from a file are built when sent: nothing prepared ahead, no keys
        try (RequestFactory requests = new RequestFactory(List.of(Prompt.ofText("a", -1, -1)), params(8, 8), 1, "r")) {
            requests.awaitFirstBatch(new LoadPlan(4, 50, 0, null, 0), line -> { throw new AssertionError(line); });
            assertThat(requests.summaryKeys()).isEmpty();
            assertThat(requests.preparationWaits().count()).isZero();
        }
    }
}
