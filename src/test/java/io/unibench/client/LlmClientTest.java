package io.unibench.client;

import io.netty.channel.ConnectTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** End to end against {@link TestServer} on loopback: every error class, success paths, the pool. */
class LlmClientTest {

    private static final byte[] BODY = "{\"model\":\"m\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
    private static final String ROLE = chunk("{\"role\":\"assistant\",\"content\":\"\"}", null);
    private static final String USAGE = "{\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3,"
            + "\"total_tokens\":14,\"prompt_tokens_details\":{\"cached_tokens\":8}}}";

    /** Released at the end of each test: lets stalled server threads finish. */
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        release.countDown();
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    // ---- success ----

    @Test
    void streamedReplyWithExactTokensAndUsage() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, ROLE, chunk("{\"reasoning_content\":\"hm\"}", null), chunk("{\"content\":\"Hel\"}", null),
                    chunk("{\"content\":\"lo\"}", null), chunk("{}", "stop"), USAGE, "[DONE]");
            return true;
        });
        LlmClient client = client(server, config -> config);

        ClientResult r = client.send(BODY, true, "req-1").get(10, TimeUnit.SECONDS);

        assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        assertThat(r.stream()).isTrue();
        assertThat(r.httpStatus()).isEqualTo(200);
        assertThat(r.content()).isEqualTo("Hello");
        assertThat(r.reasoning()).isEqualTo("hm");
        assertThat(r.generatedText()).isEqualTo("hmHello");
        assertThat(r.usage()).isEqualTo(new Usage(11, 3, 8));
        assertThat(r.finishReason()).isEqualTo("stop");
        assertThat(r.tokenChunkNanos()).hasSize(3).isSorted();
        assertThat(r.startNanos()).isLessThanOrEqualTo(r.headersNanos());
        assertThat(r.headersNanos()).isLessThanOrEqualTo(r.firstChunkNanos());
        assertThat(r.firstChunkNanos()).isLessThanOrEqualTo(r.firstTokenNanos());
        assertThat(r.firstTokenNanos()).isEqualTo(r.tokenChunkNanos()[0]);
        assertThat(r.endNanos()).isGreaterThanOrEqualTo(r.tokenChunkNanos()[2]);

        TestServer.Request req = server.requests.take();
        assertThat(req.method()).isEqualTo("POST");
        assertThat(req.path()).isEqualTo("/v1/chat/completions?x=1");
        assertThat(req.body()).isEqualTo(BODY);
        assertThat(req.header("content-type")).isEqualTo("application/json");
        assertThat(req.header("accept")).isEqualTo("text/event-stream");
        assertThat(req.header("user-agent")).isEqualTo("unibench");
        assertThat(req.header("x-request-id")).isEqualTo("req-1");
        assertThat(req.header("authorization")).isEqualTo("Bearer sk-test-123456");
        assertThat(req.header("host")).isEqualTo(server.uri("").getAuthority());
    }

    @Test
    void nonStreamedReplyWithExactUsage() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.json(out, 200, "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                    + "{\"role\":\"assistant\",\"content\":\"Hi!\"},\"finish_reason\":\"length\"}],"
                    + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}");
            return true;
        });
        LlmClient client = client(server, c -> c);

        ClientResult r = client.send(BODY, false, "r").get(10, TimeUnit.SECONDS);

        assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        assertThat(r.stream()).isFalse();
        assertThat(r.content()).isEqualTo("Hi!");
        assertThat(r.usage()).isEqualTo(new Usage(5, 2, -1));
        assertThat(r.finishReason()).isEqualTo("length");
        assertThat(r.firstChunkNanos()).isEqualTo(r.endNanos());
        assertThat(r.firstTokenNanos()).isEqualTo(r.endNanos());
        assertThat(r.tokenChunkNanos()).isEmpty();
        assertThat(server.requests.take().header("accept")).isEqualTo("application/json");
    }

    @Test
    void jsonReplyToAStreamRequestIsParsedAsABody() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.json(out, 200, "{\"choices\":[{\"text\":\"abc\",\"finish_reason\":\"stop\"}]}");
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isNull();
        assertThat(r.stream()).isFalse();
        assertThat(r.content()).isEqualTo("abc");
    }

    @Test
    void eventStreamReplyToANonStreamRequestIsStillParsedAsAStream() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, chunk("{\"content\":\"s\"}", "stop"), "[DONE]");
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, false, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        assertThat(r.stream()).isTrue();
        assertThat(r.content()).isEqualTo("s");
    }

    @Test
    void httpsEndpointSpeaksTlsFirst() throws Exception {
        // a plain-HTTP server answering the TLS ClientHello: proves the TLS handler is in the pipeline
        try (ServerSocket plain = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> firstByte = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (Socket s = plain.accept()) {
                    firstByte.complete(s.getInputStream().read());
                    s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().flush();
                    release.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    firstByte.completeExceptionally(e);
                }
            });
            LlmClient client = track(new LlmClient(config(
                    URI.create("https://localhost:" + plain.getLocalPort() + "/v1/chat/completions"))));
            ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
            assertThat(firstByte.get(10, TimeUnit.SECONDS)).isEqualTo(0x16); // TLS handshake record
            assertThat(r.errorClass()).as(r.errorMessage()).isEqualTo(ErrorClass.TLS_ERROR);
            assertThat(r.errorMessage()).isEqualTo("the reply is not TLS (a plain http server on an https:// URL?)");
        }
    }

    @Test
    void debugLogMasksSecretsCutsRequestBodiesAndKeepsResponseChunksWhole() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        DebugLog log = new DebugLog(true, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8));
        log.request("id-1", "http://h/v1", Map.of("Authorization", "Bearer sk-abcdef123456", "X-Trace", "t1"),
                ("{\"api_key\":\"sk-abcdefgh9876\",\"p\":\"" + "y".repeat(500) + "\"}").getBytes(StandardCharsets.UTF_8));
        log.response("id-1", "chunk", "data with sk-zyxwvu654321 " + "z".repeat(900) + " timings");
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("Authorization=***456", "X-Trace=t1", "sk-***876", "sk-***321", "id-1",
                        "z".repeat(900) + " timings", "y".repeat(500))
                .doesNotContain("abcdef123456", "abcdefgh9876", "zyxwvu654321");
        java.io.ByteArrayOutputStream longBody = new java.io.ByteArrayOutputStream();
        new DebugLog(true, new java.io.PrintStream(longBody, true, StandardCharsets.UTF_8))
                .request("id-3", "http://h/v1", Map.of(), "q".repeat(5000).getBytes(StandardCharsets.UTF_8));
        assertThat(longBody.toString(StandardCharsets.UTF_8)).contains("...(5000 bytes)").doesNotContain("q".repeat(801));
        DebugLog off = new DebugLog(false, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8));
        int before = bytes.size();
        off.response("id-2", "chunk", "x");
        assertThat(bytes.size()).isEqualTo(before);
    }

    // ---- pool ----

    @Test
    void sequentialRequestsReuseOneConnection() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, chunk("{\"content\":\"x\"}", "stop"), "[DONE]");
            return true;
        });
        LlmClient client = client(server, c -> c);
        for (int i = 0; i < 5; i++) {
            ClientResult r = client.send(BODY, true, "r" + i).get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        }
        assertThat(server.accepted.get()).isEqualTo(1);
        assertThat(client.openConnections()).isEqualTo(1);
    }

    @Test
    void poolNeverOpensMoreThanMaxConnections() throws Exception {
        // the first two requests are held until both have arrived: proves they overlap on two connections
        CountDownLatch twoInFlight = new CountDownLatch(2);
        TestServer server = server((req, socket, out) -> {
            twoInFlight.countDown();
            twoInFlight.await(10, TimeUnit.SECONDS);
            TestServer.sse(out, chunk("{\"content\":\"x\"}", "stop"), "[DONE]");
            return true;
        });
        LlmClient client = client(server, c -> withMax(c, 2));
        List<CompletableFuture<ClientResult>> futures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(client.send(BODY, true, "r" + i));
        }
        for (CompletableFuture<ClientResult> f : futures) {
            ClientResult r = f.get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        }
        assertThat(server.accepted.get()).isEqualTo(2);
        assertThat(client.openConnections()).isLessThanOrEqualTo(2);
    }

    @Test
    void manyConcurrentStreamsShareABoundedPool() throws Exception {
        TestServer server = server((req, socket, out) -> {
            String id = req.header("x-request-id");
            TestServer.sseHeaders(out);
            for (int i = 0; i < 20; i++) {
                TestServer.chunk(out, "data: " + chunk("{\"content\":\"" + id + "." + i + " \"}", null) + "\n\n");
            }
            TestServer.chunk(out, "data: " + chunk("{}", "stop") + "\n\ndata: [DONE]\n\n");
            TestServer.endChunks(out);
            return true;
        });
        LlmClient client = client(server, c -> withMax(c, 16));
        List<CompletableFuture<ClientResult>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            futures.add(client.send(BODY, true, "q" + i));
        }
        for (int i = 0; i < futures.size(); i++) {
            ClientResult r = futures.get(i).get(20, TimeUnit.SECONDS);
            assertThat(r.errorClass()).as(r.errorMessage()).isNull();
            assertThat(r.tokenChunkNanos()).hasSize(20);
            assertThat(r.content()).startsWith("q" + i + ".0 ").endsWith("q" + i + ".19 ");
        }
        assertThat(server.accepted.get()).isLessThanOrEqualTo(16);
    }

    // ---- HTTP errors ----

    @ParameterizedTest
    @CsvSource({"400,HTTP_400", "401,HTTP_401", "403,HTTP_403", "404,HTTP_404", "429,HTTP_429", "409,HTTP_4XX",
            "500,HTTP_5XX", "503,HTTP_5XX"})
    void httpErrorStatusCarriesTheServerMessage(int status, ErrorClass expected) throws Exception {
        TestServer server = server((req, socket, out) -> {
            if (req.header("x-request-id").equals("fail")) {
                TestServer.json(out, status, "{\"error\":{\"message\":\"Nope for key sk-secret-abcdef\","
                        + "\"type\":\"X\",\"code\":" + status + "}}");
            } else {
                TestServer.sse(out, chunk("{\"content\":\"x\"}", "stop"), "[DONE]");
            }
            return true;
        });
        LlmClient client = client(server, c -> c);

        ClientResult r = client.send(BODY, true, "fail").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(expected);
        assertThat(r.httpStatus()).isEqualTo(status);
        assertThat(r.errorMessage()).isEqualTo("Nope for key sk-***def");
        assertThat(r.success()).isFalse();

        // the failed request's connection was closed, not reused
        assertThat(client.send(BODY, true, "ok").get(10, TimeUnit.SECONDS).errorClass()).isNull();
        assertThat(server.accepted.get()).isEqualTo(2);
    }

    @Test
    void nonJsonErrorBodyIsShownTruncated() throws Exception {
        String html = "<html>" + "bad gateway ".repeat(40) + "</html>";
        TestServer server = server((req, socket, out) -> {
            byte[] b = html.getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: " + b.length
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
            out.flush();
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.HTTP_5XX);
        assertThat(r.errorMessage()).startsWith("<html>bad gateway").hasSizeLessThanOrEqualTo(200);
    }

    // ---- connection errors ----

    @Test
    void refusedConnection() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ClientConfig config = config(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"));
        LlmClient client = track(new LlmClient(config));
        ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_REFUSED);
        assertThat(r.httpStatus()).isZero();
        assertThat(r.stream()).isTrue(); // falls back to what was asked
        assertThat(r.endNanos()).isGreaterThanOrEqualTo(r.startNanos());
    }

    @Test
    void streamCutByTheServerIsAConnectionReset() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"half\"}", null) + "\n\ndata: {\"cho");
            return false; // closes the socket in the middle of the chunked body
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
        assertThat(r.content()).isEqualTo("half");
        assertThat(r.httpStatus()).isEqualTo(200);
    }

    @Test
    void tcpResetIsAConnectionReset() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"x\"}", null) + "\n\n");
            socket.setSoLinger(true, 0); // close sends RST
            return false;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.CONNECTION_RESET);
    }

    @Test
    void connectTimeoutOnAFullAcceptQueue() throws Exception {
        // A listener with backlog 1 that never accepts: once its queue is full, Linux drops further SYNs, so a
        // connect hangs until the client's timeout.
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> fillers = new ArrayList<>();
            boolean full = false;
            for (int i = 0; i < 8 && !full; i++) {
                Socket s = new Socket();
                fillers.add(s);
                try {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 200);
                } catch (SocketTimeoutException e) {
                    full = true;
                }
            }
            try {
                assumeTrue(full, "this kernel does not drop SYNs on a full accept queue; mapping is unit-tested");
                ClientConfig config = new ClientConfig(
                        URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/v1/chat/completions"),
                        Map.of(), Duration.ofMillis(200), null, null, 4, false);
                LlmClient client = track(new LlmClient(config));
                ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
                assertThat(r.errorClass()).as(r.errorMessage()).isEqualTo(ErrorClass.TIMEOUT_CONNECT);
                // loose lower bound: the configured connect timeout must have elapsed
                assertThat(r.endNanos() - r.startNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
            } finally {
                for (Socket s : fillers) {
                    s.close();
                }
            }
        }
    }

    @Test
    void connectTimeoutExceptionMapsToTimeoutConnect() {
        assertThat(ErrorMapping.classify(new ConnectTimeoutException("connection timed out")))
                .isEqualTo(ErrorClass.TIMEOUT_CONNECT);
        assertThat(ErrorMapping.classify(new java.net.ConnectException("refused")))
                .isEqualTo(ErrorClass.CONNECTION_REFUSED);
        assertThat(ErrorMapping.classify(new IOException("Connection reset by peer")))
                .isEqualTo(ErrorClass.CONNECTION_RESET);
    }

    // ---- timeouts ----

    @Test
    void silenceLongerThanTheReadTimeout() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"x\"}", null) + "\n\n");
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = client(server, c -> withTimeouts(c, Duration.ofMillis(200), null));
        ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.TIMEOUT_READ);
        assertThat(r.content()).isEqualTo("x");
        // loose lower bound derived from the configuration: at least readTimeout after the last byte
        assertThat(r.endNanos() - r.firstTokenNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    }

    @Test
    void slowStreamBeyondTheTotalTimeout() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"x\"}", null) + "\n\n");
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = client(server, c -> withTimeouts(c, null, Duration.ofMillis(300)));
        ClientResult r = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.TIMEOUT_TOTAL);
        assertThat(r.content()).isEqualTo("x");
        assertThat(r.endNanos() - r.startNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
    }

    /** A request queued for the only connection still ends by its total timeout, counted from its start. */
    @Test
    void totalTimeoutCountsTheWaitForAConnection() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = client(server, c -> withMax(withTimeouts(c, null, Duration.ofMillis(300)), 1));
        var first = client.send(BODY, true, "first");
        var queued = client.send(BODY, true, "queued");
        ClientResult r = queued.get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.TIMEOUT_TOTAL);
        assertThat(r.endNanos() - r.startNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(first.get(10, TimeUnit.SECONDS).errorClass()).isEqualTo(ErrorClass.TIMEOUT_TOTAL);
    }

    /**
     * With a total timeout no shorter than the connect timeout the timer is armed late (on the connection's loop when
     * the request is written, or when the request has to wait for a connection), not from the caller's thread at
     * the start; it still ends a slow stream and a request queued for the only connection, counted from the start.
     */
    @Test
    void aTotalTimeoutArmedOnTheLoopStillEndsASlowStreamAndAQueuedRequest() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"x\"}", null) + "\n\n");
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = client(server, c -> new ClientConfig(c.endpoint(), c.headers(), Duration.ofMillis(100),
                null, Duration.ofMillis(300), 1, c.debug()));
        var first = client.send(BODY, true, "first");
        var queued = client.send(BODY, true, "queued");
        ClientResult r = first.get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.TIMEOUT_TOTAL);
        assertThat(r.content()).isEqualTo("x");
        assertThat(r.endNanos() - r.startNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        ClientResult q = queued.get(10, TimeUnit.SECONDS);
        assertThat(q.errorClass()).isEqualTo(ErrorClass.TIMEOUT_TOTAL);
        assertThat(q.endNanos() - q.startNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
    }

    // ---- reply content errors ----

    @Test
    void invalidJsonChunkIsAProtocolError() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, ROLE, "{\"choices\":[{\"delta\":", "[DONE]");
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.PROTOCOL_ERROR);
        assertThat(r.errorMessage()).startsWith("invalid JSON in SSE data");
    }

    @Test
    void errorObjectInA200StreamIsABusinessError() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, ROLE, "{\"error\":{\"message\":\"kv cache full\",\"type\":\"InternalServerError\","
                    + "\"code\":500}}", "[DONE]");
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(r.errorMessage()).isEqualTo("kv cache full");
        assertThat(r.httpStatus()).isEqualTo(200);
    }

    @Test
    void streamWithoutDoneOrFinishReasonIsABusinessError() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, ROLE, chunk("{\"content\":\"x\"}", null));
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(r.content()).isEqualTo("x");
    }

    @Test
    void streamEndingWithFinishReasonButNoDoneSucceeds() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sse(out, chunk("{\"content\":\"x\"}", "stop"));
            return true;
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        assertThat(r.finishReason()).isEqualTo("stop");
    }

    @Test
    void doneWithoutTheEndOfTheResponseSucceedsAfterTheGrace() throws Exception {
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + chunk("{\"content\":\"x\"}", "stop") + "\n\ndata: [DONE]\n\n");
            return true; // the chunked body never ends: the client must not wait for it beyond its grace
        });
        ClientResult r = client(server, c -> c).send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        assertThat(r.content()).isEqualTo("x");
        assertThat(r.endNanos()).isLessThanOrEqualTo(System.nanoTime());
    }

    @Test
    void replyWithoutChoicesIsABusinessError() throws Exception {
        TestServer server = server((req, socket, out) -> {
            if (req.header("accept").equals("text/event-stream")) {
                TestServer.sse(out, USAGE, "[DONE]");
            } else {
                TestServer.json(out, 200, "{\"object\":\"chat.completion\",\"usage\":{\"prompt_tokens\":1}}");
            }
            return true;
        });
        LlmClient client = client(server, c -> c);
        ClientResult streamed = client.send(BODY, true, "r").get(10, TimeUnit.SECONDS);
        assertThat(streamed.errorClass()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(streamed.usage()).isEqualTo(new Usage(11, 3, 8));
        ClientResult plain = client.send(BODY, false, "r").get(10, TimeUnit.SECONDS);
        assertThat(plain.errorClass()).isEqualTo(ErrorClass.BUSINESS_ERROR);
    }

    // ---- cancellation ----

    @Test
    void cancelAllEndsStalledAndQueuedRequestsAndLaterSends() throws Exception {
        CountDownLatch streaming = new CountDownLatch(1);
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            TestServer.chunk(out, "data: " + ROLE + "\n\n");
            streaming.countDown();
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = client(server, c -> withMax(c, 1));
        CompletableFuture<ClientResult> stalled = client.send(BODY, true, "a");
        CompletableFuture<ClientResult> queued = client.send(BODY, true, "b"); // waits for the only connection
        assertThat(streaming.await(10, TimeUnit.SECONDS)).isTrue();

        client.cancelAll();

        ClientResult a = stalled.get(10, TimeUnit.SECONDS);
        assertThat(a.errorClass()).isEqualTo(ErrorClass.CANCELLED);
        // (whether the client had read the headers by then is a race, so httpStatus is not asserted)
        assertThat(a.errorMessage()).isEqualTo("cancelled");
        assertThat(queued.get(10, TimeUnit.SECONDS).errorClass()).isEqualTo(ErrorClass.CANCELLED);
        CompletableFuture<ClientResult> later = client.send(BODY, true, "c");
        assertThat(later).isDone();
        assertThat(later.get().errorClass()).isEqualTo(ErrorClass.CANCELLED);
        assertThat(server.accepted.get()).isEqualTo(1);
    }

    @Test
    void closeCancelsWhatIsInFlight() throws Exception {
        CountDownLatch streaming = new CountDownLatch(1);
        TestServer server = server((req, socket, out) -> {
            TestServer.sseHeaders(out);
            streaming.countDown();
            release.await(10, TimeUnit.SECONDS);
            return false;
        });
        LlmClient client = new LlmClient(config(server.uri("/v1/chat/completions")));
        CompletableFuture<ClientResult> f = client.send(BODY, true, "a");
        assertThat(streaming.await(10, TimeUnit.SECONDS)).isTrue();
        client.close();
        assertThat(f.get(10, TimeUnit.SECONDS).errorClass()).isEqualTo(ErrorClass.CANCELLED);
    }

    @Test
    void invalidConfigurationIsRejectedUpFront() {
        URI ok = URI.create("http://127.0.0.1:1/v1/chat/completions");
        assertThatThrownBy(() -> new LlmClient(new ClientConfig(URI.create("ftp://h/x"), Map.of(), null, null, null,
                1, false))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LlmClient(new ClientConfig(ok, Map.of("X-Bad", "a\nb"), null, null, null,
                1, false))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LlmClient(new ClientConfig(ok, Map.of(), null, null, null, 0, false)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---- helpers ----

    private TestServer server(TestServer.Handler handler) throws IOException {
        return track(new TestServer(handler));
    }

    private LlmClient client(TestServer server, java.util.function.UnaryOperator<ClientConfig> adjust) {
        return track(new LlmClient(adjust.apply(config(server.uri("/v1/chat/completions?x=1")))));
    }

    private <T extends AutoCloseable> T track(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private static ClientConfig config(URI uri) {
        return new ClientConfig(uri, Map.of("Authorization", "Bearer sk-test-123456"), Duration.ofSeconds(5),
                null, null, 8, false);
    }

    private static ClientConfig withMax(ClientConfig c, int max) {
        return new ClientConfig(c.endpoint(), c.headers(), c.connectTimeout(), c.readTimeout(), c.totalTimeout(),
                max, c.debug());
    }

    private static ClientConfig withTimeouts(ClientConfig c, Duration read, Duration total) {
        return new ClientConfig(c.endpoint(), c.headers(), c.connectTimeout(), read, total, c.maxConnections(),
                c.debug());
    }

    private static String chunk(String delta, String finishReason) {
        return "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":" + (finishReason == null ? "null" : "\"" + finishReason + "\"") + "}]}";
    }
}
