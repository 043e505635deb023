package io.unibench.client;

import io.unibench.Moments;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Servers that close keep-alive connections (the simulator's connection knobs) cost no request: one that fails on a
 * pooled connection before any response byte is sent again on a new one, and only then.
 */
class StaleConnectionTest {
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    private static final SimConfig INSTANT = SimConfig.defaults().withTtftMs(0).withPrefillMsPerToken(0).withItlMs(0);
    private static final byte[] BODY = ("{\"model\":\"unibench-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true,\"max_tokens\":4,\"ignore_eos\":true}").getBytes(StandardCharsets.UTF_8);
    private static final int REQUESTS = 1_000;

    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 8})
    void closeAfterEveryReplyWhileSayingKeepAliveCostsNoRequest(int concurrency) throws Exception {
        try (SimServer sim = SimServer.start(INSTANT.with("close-after-reply", true), TOKENIZER);
             LlmClient client = client(sim, concurrency)) {
            List<ClientResult> results = run(client, concurrency, REQUESTS, false);
            assertAllSucceeded(results);
            // no connection outlives its reply: what went out on a pooled one was sent again on a new one
            assertThat(results).allSatisfy(r -> assertThat(r.wire().newConnection()).isTrue());
            for (ClientResult r : results) {
                if (r.wire().retriedStaleConnection()) {
                    assertThat(r.wire().staleStartNanos()).isLessThanOrEqualTo(r.startNanos());
                    assertThat(r.wire().connectStartNanos()).isGreaterThanOrEqualTo(r.startNanos());
                }
            }
        }
    }

    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 8})
    void idleTimeoutClosingConnectionsWithoutNoticeCostsNoRequest(int concurrency) throws Exception {
        try (SimServer sim = SimServer.start(INSTANT.with("keepalive-timeout-ms", 1), TOKENIZER);
             LlmClient client = client(sim, concurrency)) {
            // pauses of 0, 1 and 2 ms between requests: around the timeout, where the close races the next request
            List<ClientResult> results = run(client, concurrency, REQUESTS, true);
            assertAllSucceeded(results);
            assertThat(results.stream().filter(r -> r.wire().newConnection()).count())
                    .as("the server closed idle connections").isGreaterThan(concurrency);
        }
    }

    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 8})
    void connectionCloseAfterKRepliesIsHonouredWithoutRetries(int concurrency) throws Exception {
        try (SimServer sim = SimServer.start(INSTANT.with("keepalive-requests", 3), TOKENIZER);
             LlmClient client = client(sim, concurrency)) {
            List<ClientResult> results = run(client, concurrency, REQUESTS, false);
            assertAllSucceeded(results);
            long opened = results.stream().filter(r -> r.wire().newConnection()).count();
            // every third reply says Connection: close, and the client never sends on such a connection again
            if (concurrency == 1) assertThat(opened).isEqualTo((REQUESTS + 2) / 3);
            else assertThat(opened).isGreaterThanOrEqualTo((REQUESTS + 2) / 3);
            assertThat(results).noneMatch(r -> r.wire().retriedStaleConnection());
        }
    }

    @Test
    void connectionCloseOnEveryReplyMeansANewConnectionPerRequest() throws Exception {
        try (SimServer sim = SimServer.start(INSTANT.with("keepalive-requests", 1), TOKENIZER);
             LlmClient client = client(sim, 1)) {
            List<ClientResult> results = run(client, 1, 50, false);
            assertAllSucceeded(results);
            assertThat(results).allSatisfy(r -> {
                assertThat(r.wire().newConnection()).isTrue();
                assertThat(r.wire().retriedStaleConnection()).isFalse();
            });
        }
    }

    @Test
    void aResetInTheMiddleOfAReplyIsAConnectionResetAndNotRetried() throws Exception {
        SimConfig flaky = INSTANT.with(Map.of("fault-rate-disconnect", 0.3, "fault-after-chunks", 2, "seed", 7));
        try (SimServer sim = SimServer.start(flaky, TOKENIZER); LlmClient client = client(sim, 1)) {
            byte[] longer = new String(BODY, StandardCharsets.UTF_8).replace("\"max_tokens\":4", "\"max_tokens\":8")
                    .getBytes(StandardCharsets.UTF_8);
            List<ClientResult> failed = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                ClientResult r = client.send(longer, true, "r" + i).get(10, TimeUnit.SECONDS);
                if (!r.success()) failed.add(r);
            }
            assertThat(failed).isNotEmpty().allSatisfy(r -> {
                assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
                assertThat(r.content()).isNotEmpty(); // bytes of the reply had arrived: never sent again
                assertThat(r.wire().retriedStaleConnection()).isFalse();
            });
            assertThat(failed).as("some cut replies came on reused connections").anyMatch(r -> !r.wire().newConnection());
            assertThat(sim.stats().requestsReceived()).isEqualTo(100);
        }
    }

    @Test
    void aFailureOnANewConnectionIsNotRetried() throws Exception {
        try (TestServer server = new TestServer((req, socket, out) -> false); // closes without a byte
             LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions"), 1))) {
            ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
            assertThat(r.wire().retriedStaleConnection()).isFalse();
            assertThat(server.accepted.get()).isEqualTo(1);
            assertThat(server.requests).hasSize(1);
        }
    }

    @Test
    void aPooledConnectionClosedWithoutAnAnswerIsRetriedOnceOnANewConnection() throws Exception {
        AtomicInteger seen = new AtomicInteger();
        // the first request is answered and its connection kept; every later one is closed without a byte
        try (TestServer server = new TestServer((req, socket, out) -> {
                if (seen.getAndIncrement() > 0) return false;
                TestServer.sse(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}",
                        "[DONE]");
                return true;
             });
             LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions"), 1))) {
            assertThat(client.send(BODY, true, "first").get(10, TimeUnit.SECONDS).success()).isTrue();
            ClientResult r = client.send(BODY, true, "second").get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
            assertThat(r.wire().retriedStaleConnection()).isTrue();
            assertThat(r.wire().newConnection()).isTrue();
            assertThat(r.wire().staleStartNanos()).isLessThan(r.startNanos());
            assertThat(server.accepted.get()).as("one new connection for the retry, no third attempt").isEqualTo(2);
            assertThat(server.requests).hasSize(3);
        }
    }

    /**
     * A server that answers one request per connection and closes it only when the next request arrives on it: the
     * close the client learns of too late, every time (llama.cpp's server closes ~0.03 ms after each reply, and the
     * next request often goes out before the client's event loop has read that close). After two such closes the
     * pool knows the server's rule and no longer lends a connection that has served its one reply: later requests go
     * out once, on new connections. (Before, every request after the first was written to the dying connection and
     * sent again.) The pool's clock stands still, so both closes count as right after their reply; a retired
     * connection is left open for the test's length, so the pool never closes one itself (which would unlearn).
     */
    @Test
    void aServerClosingAfterEachReplyIsLearnedAndItsDyingConnectionsAreNotWrittenTo() throws Exception {
        Map<java.net.Socket, Integer> served = new java.util.concurrent.ConcurrentHashMap<>();
        try (TestServer server = new TestServer((req, socket, out) -> {
                if (served.merge(socket, 1, Integer::sum) > 1) return false; // the late close: no byte of a reply
                TestServer.sse(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}",
                        "[DONE]");
                return true;
             });
             LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions"), 1), () -> 0L,
                     TimeUnit.HOURS.toNanos(1))) {
            List<ClientResult> results = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                results.add(client.send(BODY, true, "r" + i).get(10, TimeUnit.SECONDS));
            }
            assertAllSucceeded(results);
            assertThat(results.stream().map(r -> r.wire().retriedStaleConnection()).toList())
                    .as("sent again: the 2nd and 3rd (the two closes it learns from), no later one")
                    .containsExactly(false, true, true, false, false, false);
            assertThat(results).allSatisfy(r -> assertThat(r.wire().newConnection()).isTrue());
            assertThat(client.pool().closesAfter()).isEqualTo(1);
            assertThat(server.requests).hasSize(8);
            assertThat(client.openConnections()).as("retired connections hold no slot").isZero();
        }
    }

    /**
     * A server that closes after every reply (and says nothing of it): from the second request on, new connections are
     * made on the spare socket the pool registered while the previous request was with the server, and their
     * timings still start at the request's start or later.
     */
    @Test
    void newConnectionsAfterTheFirstUseTheSpareSocket() throws Exception {
        try (TestServer server = new TestServer((req, socket, out) -> {
                TestServer.sse(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}",
                        "[DONE]");
                return false;
             });
             LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions"), 1))) {
            List<ClientResult> results = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                results.add(client.send(BODY, true, "r" + i).get(10, TimeUnit.SECONDS));
            }
            assertAllSucceeded(results);
            assertThat(results).allSatisfy(r -> {
                assertThat(r.wire().newConnection()).isTrue();
                assertThat(r.wire().connectStartNanos()).isGreaterThanOrEqualTo(r.startNanos());
                assertThat(r.wire().dnsDoneNanos()).isGreaterThanOrEqualTo(r.wire().connectStartNanos());
            });
            assertThat(client.pool().sparesUsed()).as("connections made on a spare").isEqualTo(4);
        }
    }

    /**
     * The spare socket is asked for once the reply's first token was read, never at the write: made while the server
     * works on the prompt, its CPU made llama-server's first token later (before, the spare was asked for when the
     * request was written, always before any byte of the reply came back). Its request still ends with a spare for the
     * next one, which uses it.
     */
    @Test
    void theSpareIsAskedForAfterTheFirstTokenNotWhileTheServerWorks() throws Exception {
        try (TestServer server = new TestServer((req, socket, out) -> {
                TestServer.sse(out, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}",
                        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}",
                        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"y\"},\"finish_reason\":\"stop\"}]}",
                        "[DONE]");
                return false;
             });
             LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions"), 1))) {
            for (int i = 0; i < 3; i++) {
                ClientResult r = client.send(BODY, true, "r" + i).get(10, TimeUnit.SECONDS);
                assertAllSucceeded(List.of(r));
                assertThat(r.firstTokenNanos()).isNotEqualTo(Moments.ABSENT);
                assertThat(client.pool().spareRequestedNanos()).as("request %d's spare asked for", i)
                        .isGreaterThanOrEqualTo(r.firstTokenNanos());
            }
            assertThat(client.pool().sparesUsed()).as("connections made on a spare").isEqualTo(2);
        }
    }

    // ---- helpers ----

    /**
     * {@code total} requests from {@code concurrency} virtual threads, each sending its next request when the last
     * ended; with {@code pauses}, a worker waits 0, 1 or 2 ms (in turn) before each request.
     */
    private static List<ClientResult> run(LlmClient client, int concurrency, int total, boolean pauses)
            throws InterruptedException {
        List<ClientResult> results = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
            workers.add(Thread.ofVirtual().start(() -> {
                int i;
                while ((i = next.getAndIncrement()) < total) {
                    try {
                        if (pauses && i % 3 > 0) Thread.sleep(i % 3);
                        results.add(client.send(BODY, true, "r" + i).get(10, TimeUnit.SECONDS));
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
            }));
        }
        for (Thread t : workers) t.join();
        assertThat(results).hasSize(total);
        return results;
    }

    private static void assertAllSucceeded(List<ClientResult> results) {
        List<String> failures = results.stream().filter(r -> !r.success())
                .map(r -> r.errorClass() + ": " + r.errorMessage()).toList();
        assertThat(failures).as("false failures").isEmpty();
    }

    private static LlmClient client(SimServer sim, int concurrency) {
        return new LlmClient(config(URI.create(sim.baseUrl() + "/v1/chat/completions"), concurrency));
    }

    private static ClientConfig config(URI uri, int maxConnections) {
        return new ClientConfig(uri, Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), null, maxConnections,
                false);
    }
}
