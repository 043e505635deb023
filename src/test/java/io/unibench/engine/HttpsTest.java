package io.unibench.engine;

import io.netty.handler.ssl.SslContext;
import io.unibench.Moments;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.client.LlmClient;
import io.unibench.client.TlsOptions;
import io.unibench.client.WireTimes;
import io.unibench.metrics.Phase;
import io.unibench.metrics.RequestRecord;
import io.unibench.net.ServerCertificate;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.unibench.Moments.ABSENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * HTTPS through the real client against the simulator serving TLS, with certificates made in process when the class
 * starts (none is committed): verification on by default, a trusted CA file, a certificate for another host, an
 * untrusted one with and without verification, the TLS phase, keep-alive reuse without new handshakes.
 */
class HttpsTest {
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],"
            + "\"max_tokens\":12,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
            .getBytes(StandardCharsets.UTF_8);
    private static final SimConfig SIM = SimConfig.defaults().withTtftMs(2).withItlMs(1);

    private static Tokenizer tokenizer;
    private static ServerCertificate loopback;
    private static ServerCertificate otherHost;

    @BeforeAll
    static void certificates() {
        tokenizer = Tokenizers.load(SIM.tokenizer());
        loopback = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        otherHost = ServerCertificate.selfSigned(List.of("dns:wrong.example"));
    }

    @Test
    void handshakeWithHostnameVerificationAndTheTrustedCaIsTimedAsItsOwnPhase() throws Exception {
        TlsOptions trustSim = new TlsOptions(loopback.chain(), false);
        try (SimServer sim = SimServer.start(SIM, tokenizer, loopback.serverContext())) {
            for (String host : List.of("127.0.0.1", "localhost")) { // an IP SAN, and a DNS SAN (sent as SNI)
                try (LlmClient client = new LlmClient(config(url(sim, host), trustSim, 1))) {
                    ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
                    assertThat(r.errorClass()).as(host + ": " + r.errorMessage()).isNull();
                    assertThat(r.usage().completionTokens()).isEqualTo(12);

                    WireTimes w = r.wire();
                    assertThat(w.tlsDoneNanos()).as("handshake stamped").isNotEqualTo(ABSENT);
                    assertThat(w.tlsDoneNanos()).isGreaterThan(w.connectDoneNanos()); // a handshake takes time
                    assertThat(w.writtenNanos()).isGreaterThanOrEqualTo(w.tlsDoneNanos());
                    RequestRecord rec = record(r);
                    double tls = Phase.TLS.millis(rec);
                    double firstByte = (w.firstByteNanos() - r.startNanos()) / 1e6;
                    assertThat(tls).isGreaterThan(0).isLessThan(firstByte);
                    assertThat(Phase.WRITE.millis(rec)).isGreaterThanOrEqualTo(0); // the write waits for the handshake
                }
            }
        }
    }

    @Test
    void aCertificateForAnotherHostFailsAsTlsErrorEvenWhenItsCaIsTrusted() throws Exception {
        try (SimServer sim = SimServer.start(SIM, tokenizer, otherHost.serverContext());
             LlmClient client = new LlmClient(config(url(sim, "127.0.0.1"), new TlsOptions(otherHost.chain(), false), 1))) {
            ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).isEqualTo(ErrorClass.TLS_ERROR);
            assertThat(r.errorMessage()).contains("127.0.0.1");
        }
    }

    @Test
    void anUntrustedSelfSignedCertificateFailsUnlessVerificationIsOff() throws Exception {
        try (SimServer sim = SimServer.start(SIM, tokenizer, loopback.serverContext())) {
            try (LlmClient client = new LlmClient(config(url(sim, "127.0.0.1"), TlsOptions.DEFAULT, 1))) {
                ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
                assertThat(r.errorClass()).isEqualTo(ErrorClass.TLS_ERROR);
                assertThat(r.errorMessage()).containsIgnoringCase("certification path");
            }
            try (LlmClient client = new LlmClient(config(url(sim, "127.0.0.1"), new TlsOptions(List.of(), true), 1))) {
                ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
                assertThat(r.errorClass()).as(r.errorMessage()).isNull();
            }
        }
        // --insecure skips the host check too: the certificate for wrong.example is accepted
        try (SimServer sim = SimServer.start(SIM, tokenizer, otherHost.serverContext());
             LlmClient client = new LlmClient(config(url(sim, "127.0.0.1"), new TlsOptions(List.of(), true), 1))) {
            ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        }
    }

    @Test
    void keepAliveReusesTheConnectionWithoutANewHandshakeAndStreamsTheSameTokensAsPlain() throws Exception {
        List<ClientResult> tls = new ArrayList<>();
        List<ClientResult> plain = new ArrayList<>();
        try (SimServer sim = SimServer.start(SIM, tokenizer, loopback.serverContext());
             LlmClient client = new LlmClient(config(url(sim, "localhost"), new TlsOptions(loopback.chain(), false), 4))) {
            tls.addAll(sendInWaves(client, 4, 5));
            assertThat(client.openConnections()).isEqualTo(4);
        }
        try (SimServer sim = SimServer.start(SIM, tokenizer);
             LlmClient client = new LlmClient(config(sim.baseUrl() + "/v1/chat/completions", TlsOptions.DEFAULT, 4))) {
            plain.addAll(sendInWaves(client, 4, 5));
        }
        assertThat(tls).allSatisfy(r -> assertThat(r.errorClass()).as(r.errorMessage()).isNull());
        long handshakes = tls.stream().filter(r -> r.wire().tlsDoneNanos() != ABSENT).count();
        long fresh = tls.stream().filter(r -> r.wire().newConnection()).count();
        assertThat(handshakes).isEqualTo(4);
        assertThat(fresh).isEqualTo(4);
        for (ClientResult r : tls) {
            if (!r.wire().newConnection()) assertThat(Phase.TLS.millis(record(r))).isZero();
        }
        assertThat(tls.stream().map(HttpsTest::tokens).toList()).isEqualTo(plain.stream().map(HttpsTest::tokens).toList());
    }

    @Test
    void theSimulatorServesPemFilesAndTheClientTrustsTheCaFile(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), loopback.certificatePem());
        Path key = Files.writeString(dir.resolve("key.pem"), loopback.keyPem());
        SslContext fromFiles = ServerCertificate.serverContext(cert, key);
        try (SimServer sim = SimServer.start(SIM, tokenizer, fromFiles);
             LlmClient client = new LlmClient(config(url(sim, "localhost"),
                     new TlsOptions(TlsOptions.readCertificates(cert), false), 1))) {
            ClientResult r = client.send(BODY, true, "a").get(10, TimeUnit.SECONDS);
            assertThat(r.errorClass()).as(r.errorMessage()).isNull();
        }
        assertThatThrownBy(() -> ServerCertificate.serverContext(cert, cert))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PKCS#8");
    }

    @Test
    void badCaFilesAreRefusedWithAReason(@TempDir Path dir) throws Exception {
        Path garbage = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
        assertThatThrownBy(() -> TlsOptions.readCertificates(dir.resolve("missing.pem")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no such file");
        assertThatThrownBy(() -> TlsOptions.readCertificates(garbage))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("certificate");
        assertThatThrownBy(() -> new TlsOptions(loopback.chain(), true)).isInstanceOf(IllegalArgumentException.class);
    }

    /** {@code waves} rounds of {@code width} concurrent requests, each round after the previous one ended. */
    private static List<ClientResult> sendInWaves(LlmClient client, int width, int waves) {
        List<ClientResult> out = new ArrayList<>();
        for (int w = 0; w < waves; w++) {
            List<CompletableFuture<ClientResult>> round = new ArrayList<>();
            for (int i = 0; i < width; i++) round.add(client.send(BODY, true, "r" + w + "-" + i));
            round.forEach(f -> out.add(f.orTimeout(10, TimeUnit.SECONDS).join()));
        }
        return out;
    }

    private static List<Object> tokens(ClientResult r) {
        return List.of(r.tokenChunkNanos().length, r.usage(), r.content());
    }

    private static RequestRecord record(ClientResult r) {
        RecordFactory records = new RecordFactory(tokenizer, false);
        PreparedRequest req = new PreparedRequest(0, "a", BODY, true, Prompt.ofText("hi there", -1, -1));
        return records.record(0, req, r, Moments.ABSENT, 0);
    }

    private static String url(SimServer sim, String host) {
        return "https://" + host + ":" + sim.port() + "/v1/chat/completions";
    }

    private static ClientConfig config(String url, TlsOptions tls, int connections) {
        return new ClientConfig(URI.create(url), Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(10), null,
                connections, false, tls);
    }
}
