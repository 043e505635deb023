package io.unibench.client;

import io.unibench.net.ServerCertificate;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's warm-up runs its own path against an in-process responder: nothing reaches the target, bounded; over
 * https through TLS, trusting its own certificate only. (Run on BoringSSL and again on the JDK's TLS: pom.xml.)
 */
class ClientWarmupTest {
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(0).withPrefillMsPerToken(0).withItlMs(0);
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true,\"max_tokens\":1}").getBytes(StandardCharsets.UTF_8);

    @Test
    void sendsNothingToTheTargetAndEveryRequestOfItsBudgetToTheResponder() throws Exception {
        try (SimServer sim = SimServer.start(FAST);
             LlmClient client = client(sim.baseUrl() + "/v1/chat/completions", ApiFormat.CHAT)) {
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(40, Duration.ofMinutes(1)));

            assertThat(warm.requests()).isEqualTo(40);
            assertThat(warm.failed()).isFalse();
            assertThat(warm.limited()).isFalse();
            assertThat(sim.stats().requestsReceived()).as("requests at the target").isZero();
            assertThat(warm.line()).startsWith("client warm-up: ").contains("40 requests to").contains("none to the target");
            assertThat(warm.handshakes()).as("plain http: no TLS").isEqualTo(-1);
            // the client is still the target's: its next request goes there (the count above could see one)
            assertThat(client.send(BODY, true, "after").join().success()).isTrue();
            assertThat(sim.stats().requestsReceived()).isEqualTo(1);
        }
    }

    @Test
    void overHttpsItsRequestsRunThroughTlsToTheResponderAndNoneToTheTarget() throws Exception {
        ServerCertificate simCert = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        try (SimServer sim = SimServer.start(FAST, Tokenizers.load(FAST.tokenizer()), simCert.serverContext());
             LlmClient client = client(sim.baseUrl() + "/v1/chat/completions", ApiFormat.CHAT,
                     new TlsOptions(simCert.chain(), false))) {
            assertThat(sim.baseUrl()).startsWith("https://");
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(40, Duration.ofMinutes(1)));

            assertThat(warm.failed()).as(warm.line()).isFalse();
            assertThat(warm.requests()).isEqualTo(40);
            // every second reply closes: 20 connections, each with its handshake at the responder
            assertThat(warm.handshakes()).isEqualTo(20);
            assertThat(warm.line()).contains("40 requests over TLS (20 handshakes) to an in-process loopback responder");
            assertThat(sim.stats().requestsReceived()).as("requests at the target").isZero();
            // the target client still verifies the target's certificate, and only it, as before
            assertThat(client.send(BODY, true, "after").join().success()).isTrue();
            assertThat(sim.stats().requestsReceived()).isEqualTo(1);
        }
    }

    @Test
    void theWarmUpsCertificateIsTrustedByTheWarmUpAloneNeverByTheTargetClient() throws Exception {
        ServerCertificate simCert = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        try (SimServer sim = SimServer.start(FAST, Tokenizers.load(FAST.tokenizer()), simCert.serverContext());
             LlmClient client = client(sim.baseUrl() + "/v1/chat/completions", ApiFormat.CHAT, TlsOptions.DEFAULT)) {
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(4, Duration.ofMinutes(1)));
            assertThat(warm.failed()).as(warm.line()).isFalse();
            assertThat(warm.handshakes()).isEqualTo(2);
            // the JDK's trust store does not hold the simulator's self-signed certificate: refused, after as before
            ClientResult r = client.send(BODY, true, "after").join();
            assertThat(r.errorClass()).isEqualTo(ErrorClass.TLS_ERROR);
            assertThat(sim.stats().requestsReceived()).isZero();
        }
    }

    /** A provider's dotted name is checked and sent as SNI by the warm-up as by the target client; nothing resolves it. */
    @Test
    void aHostNameTargetsWarmUpChecksItsCertificateForThatName() throws Exception {
        try (LlmClient client = client("https://api.example.invalid:1/v1/chat/completions", ApiFormat.CHAT,
                TlsOptions.DEFAULT)) {
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(6, Duration.ofMinutes(1)));
            assertThat(warm.failed()).as(warm.line()).isFalse();
            assertThat(warm.requests()).isEqualTo(6);
            assertThat(warm.handshakes()).isEqualTo(3);
        }
    }

    @Test
    void theCertificateNamesTheTargetsHostAsAnAddressOrADnsName() {
        assertThat(ClientWarmup.nameOf("127.0.0.1")).isEqualTo("ip:127.0.0.1");
        assertThat(ClientWarmup.nameOf("[::1]")).isEqualTo("ip:::1");
        assertThat(ClientWarmup.nameOf("api.openai.com")).isEqualTo("dns:api.openai.com");
        assertThat(ClientWarmup.nameOf("localhost")).isEqualTo("dns:localhost");
    }

    @Test
    void stopsAtItsTimeLimit() throws Exception {
        AtomicLong now = new AtomicLong();
        try (LlmClient client = client("http://127.0.0.1:1/v1/chat/completions", ApiFormat.CHAT)) {
            // each read of the clock is 1 ms later: started at 0, requests at 1..4 ms, the check at 5 ms stops it
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(1_000, Duration.ofMillis(5)), () -> now.getAndAdd(1_000_000));
            assertThat(warm.requests()).isEqualTo(4);
            assertThat(warm.limited()).isTrue();
            assertThat(warm.line()).contains("stopped at its time limit");
        }
    }

    @Test
    void aZeroBudgetSendsNothing() throws Exception {
        try (LlmClient client = client("http://127.0.0.1:1/v1/chat/completions", ApiFormat.CHAT)) {
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                    new ClientWarmup.Budget(0, Duration.ofSeconds(1)));
            assertThat(warm.requests()).isZero();
            assertThat(warm.failed()).isFalse();
        }
    }

    /** The canned replies are read as successes by each API's interpreter: the warm-up runs the path a run takes. */
    @ParameterizedTest(name = "{0} stream={1}")
    @CsvSource({"CHAT,true", "CHAT,false", "COMPLETIONS,true", "COMPLETIONS,false", "RESPONSES,true",
            "RESPONSES,false", "ANTHROPIC,true", "ANTHROPIC,false", "EMBEDDING,false", "RERANK,false"})
    void everyApiFormatsRepliesSucceed(ApiFormat api, boolean stream) throws Exception {
        try (LlmClient client = client("http://127.0.0.1:1" + api.path(), api)) {
            ClientWarmup.Result warm = ClientWarmup.run(client, BODY, stream,
                    new ClientWarmup.Budget(4, Duration.ofMinutes(1)));
            assertThat(warm.failed()).as(warm.line()).isFalse();
            assertThat(warm.requests()).isEqualTo(4);
        }
    }

    /**
     * Its replies go in fours, two per connection: Content-Length framed (kept, then closing), then chunked in
     * llama.cpp's shapes (kept although the responder closes after the second): the chunked framing, llama.cpp's
     * timings and usage details and the server's unannounced close are run too.
     */
    @Test
    void itsRepliesAreFramedBothWaysAndTheChunkedOnesCarryLlamaCppsTimings() throws Exception {
        try (LlmClient target = client("http://127.0.0.1:1/v1/chat/completions", ApiFormat.CHAT);
             WarmupResponder responder = new WarmupResponder(ApiFormat.CHAT, true, null);
             LlmClient loopback = target.sibling(responder.port(), null)) {
            List<ClientResult> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) results.add(loopback.send(BODY, true, "w" + i).join());

            assertThat(results).allSatisfy(r -> assertThat(r.success()).as(r.errorMessage()).isTrue());
            assertThat(results).extracting(r -> r.timings() != null)
                    .containsExactly(false, false, true, true, false, false, true, true);
            ClientResult llama = results.get(2);
            assertThat(llama.timings().promptMs()).isEqualTo(1.5);
            assertThat(llama.usage().cachedTokens()).isZero();
            assertThat(llama.generatedText()).startsWith("w0 w1 ");
            assertThat(results).extracting(r -> r.wire().newConnection())
                    .containsExactly(true, false, true, false, true, false, true, false);
        }
    }

    /** The JIT is waited for until quiet, then passes of requests run until one compiles nothing. */
    @Test
    void afterItsRequestsItWaitsForTheJitAndRunsPassesUntilOneCompilesNothing() throws Exception {
        FakeJvm jvm = new FakeJvm();
        jvm.compilingUntil = 120_000_000L; // the queue left by the first pass drains 120 ms in
        List<Long> passesAt = new ArrayList<>();
        ClientWarmup.Settled settled = ClientWarmup.settle(jvm, 1_000_000_000L, n -> {
            assertThat(n).isEqualTo(ClientWarmup.SETTLE_PASS);
            passesAt.add(jvm.now);
            // the first pass gets code compiled for 30 ms, the second none
            if (passesAt.size() == 1) jvm.compilingUntil = jvm.now + 30_000_000L;
            return true;
        });

        assertThat(settled.quiet()).isTrue();
        assertThat(settled.passes()).isEqualTo(2);
        // quiet 50 ms after the last read that saw compile time grow (read every 10 ms): 110 + 50; the first pass's
        // compiles are last seen at 180: 230; the second pass compiles nothing: quiet at 280, and no third pass
        assertThat(passesAt).containsExactly(160_000_000L, 230_000_000L);
        assertThat(settled.nanos()).isEqualTo(280_000_000L);
        assertThat(new ClientWarmup.Result(600, null, 0, false, -1, settled).line())
                .contains("none to the target, 2 more passes and 280 ms until the JIT was quiet;");
    }

    @Test
    void aJitThatKeepsCompilingEndsTheWaitAtItsLimit() throws Exception {
        FakeJvm jvm = new FakeJvm();
        jvm.compilingUntil = Long.MAX_VALUE;
        ClientWarmup.Settled settled = ClientWarmup.settle(jvm, 300_000_000L, n -> {
            throw new AssertionError("no pass before the JIT is quiet");
        });
        assertThat(settled.quiet()).isFalse();
        assertThat(settled.passes()).isZero();
        assertThat(settled.nanos()).isEqualTo(300_000_000L);
        assertThat(new ClientWarmup.Result(600, null, 0, false, -1, settled).line())
                .contains("still compiled (stopped at the wait's limit)");
    }

    @Test
    void aJvmThatDoesNotSayItsCompileTimeIsNotWaitedFor() throws Exception {
        FakeJvm jvm = new FakeJvm();
        jvm.unsupported = true;
        ClientWarmup.Settled settled = ClientWarmup.settle(jvm, 1_000_000_000L, n -> {
            throw new AssertionError("no pass");
        });
        assertThat(settled.passes()).isZero();
        assertThat(jvm.now).isZero();
        assertThat(new ClientWarmup.Result(600, null, 0, false, -1, settled).line())
                .contains("none to the target; --no-client-warmup skips it");
    }

    /** Time moves only when the warm-up pauses; the JIT compiles (its time grows 1 ms a read) until a moment. */
    private static final class FakeJvm implements ClientWarmup.Jvm {
        long now;
        long compilingUntil;
        long compiled;
        boolean unsupported;

        @Override public long nanoTime() {
            return now;
        }

        @Override public long compileMillis() {
            if (unsupported) return -1;
            if (now < compilingUntil) compiled++;
            return compiled;
        }

        @Override public void pause(long nanos) {
            now += nanos;
        }
    }

    private static LlmClient client(String url, ApiFormat api) {
        return client(url, api, TlsOptions.DEFAULT);
    }

    private static LlmClient client(String url, ApiFormat api, TlsOptions tls) {
        return new LlmClient(new ClientConfig(URI.create(url), Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(30),
                Duration.ofMinutes(1), 4, false, tls, api));
    }
}
