package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.net.ServerCertificate;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** `perf` over https: --sim-tls, --ca-cert, --insecure and their bad input, the TLS phase in the files and the store. */
class HttpsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ServerCertificate cert;
    private static SimServer sim;

    @TempDir
    Path out;

    @BeforeAll
    static void startTlsSimulator() {
        cert = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        SimConfig config = SimConfig.defaults().withTtftMs(2).withItlMs(1);
        sim = SimServer.start(config, Tokenizers.load(config.tokenizer()), cert.serverContext());
    }

    @AfterAll
    static void stopSimulator() {
        sim.close();
    }

    private String[] perf(String url, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--model", "m", "--outputs-dir", out.toString(),
                "--no-timestamp", "--name", "t", "--sleep-interval", "0", "--parallel", "2", "--number", "6",
                "--max-tokens", "8", "--no-db"));
        if (url != null) a.addAll(List.of("--url", url));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    private List<JsonNode> requests() throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("t/parallel_2_number_6/requests.jsonl"))) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    @Test
    void embeddedSimulatorOverTlsRecordsTheHandshakeInRequestsJsonlTheReportAndTheStore() throws Exception {
        Path db = out.resolve("runs.db");
        List<String> args = new ArrayList<>(List.of(perf(null, "--sim-tls")));
        args.remove("--no-db");
        args.addAll(List.of("--db", db.toString()));
        CliHarness.Run run = CliHarness.main(args.toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.err()).contains("Target: embedded simulator at https://127.0.0.1:");
        assertScrapedOverTls(run);
        assertThat(run.out()).contains("TLS handshake");

        List<JsonNode> rows = requests();
        assertThat(rows).hasSize(6).allSatisfy(r -> assertThat(r.get("success").asBoolean()).isTrue());
        List<JsonNode> fresh = rows.stream().filter(r -> r.get("new_connection").asBoolean()).toList();
        assertThat(fresh).isNotEmpty().allSatisfy(r -> {
            assertThat(r.get("tls_done_s").isNumber()).isTrue();
            assertThat(r.get("tls_done_s").asDouble()).isGreaterThan(r.get("connect_done_s").asDouble());
            assertThat(r.get("phases_ms").get("tls").asDouble()).isGreaterThan(0);
        });
        rows.stream().filter(r -> !r.get("new_connection").asBoolean())
                .forEach(r -> assertThat(r.get("phases_ms").get("tls").asDouble()).isZero());

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery(
                     "SELECT COUNT(*) FROM requests WHERE tls_done_ns IS NOT NULL AND tls_done_ns > connect_done_ns")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(fresh.size());
        }
    }

    @Test
    void aSelfSignedServerFailsTheConnectionTestUntilItsCertificateIsTrustedOrVerificationIsOff() throws IOException {
        String url = sim.baseUrl() + "/v1/chat/completions";
        CliHarness.Run untrusted = CliHarness.main(perf(url));
        assertThat(untrusted.exit()).isEqualTo(2);
        assertThat(untrusted.err().strip()).contains("failed: tls_error: unable to find valid certification path")
                .contains("--ca-cert FILE").doesNotContain("\n");

        Path ca = Files.writeString(out.resolve("ca.pem"), cert.certificatePem());
        CliHarness.Run trusted = CliHarness.main(perf(url.replace("127.0.0.1", "localhost"), "--ca-cert", ca.toString(),
                "--dataset", "random", "--min-prompt-length", "20", "--max-prompt-length", "20", "--server-tokenize", "2"));
        assertThat(trusted.exit()).as(trusted.err()).isZero();
        assertThat(requests()).allSatisfy(r -> assertThat(r.get("success").asBoolean()).isTrue());
        assertScrapedOverTls(trusted);
        // the /tokenize requests trust what the run trusts too
        assertThat(trusted.err()).contains("Server-counted prompt lengths: 2 prompts via https://localhost:");

        CliHarness.Run insecure = CliHarness.main(perf(url, "--insecure"));
        assertThat(insecure.exit()).as(insecure.err()).isZero();
        assertScrapedOverTls(insecure);
        assertThat(JSON.readTree(out.resolve("t/parallel_2_number_6/benchmark_args.json").toFile())
                .get("insecure").asBoolean()).isTrue();
    }

    @Test
    void aScenarioFileProviderTrustsItsCaFile() throws IOException {
        Path ca = Files.writeString(out.resolve("ca.pem"), cert.certificatePem());
        Path file = Files.writeString(out.resolve("tls.yaml"), """
                provider:
                  name: lab
                  base_url: https://localhost:%d/v1
                  model: m
                  ca_cert: %s
                generation: {max_tokens: 4}
                concurrency: {levels: [2], requests_per_level: 4}
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """.formatted(sim.port(), ca));
        CliHarness.Run run = CliHarness.main("run", "--config", file.toString(), "--outputs-dir", out.toString(),
                "--no-timestamp", "--no-db");
        assertThat(run.exit()).as(run.err()).isZero();
        // the probe made the handshakes; the level's requests reuse its connections
        List<String> rows = Files.readAllLines(out.resolve("tls/lab/s/parallel_2/requests.jsonl"));
        assertThat(rows).hasSize(4).allSatisfy(r -> assertThat(JSON.readTree(r).get("success").asBoolean()).isTrue());
    }

    @Test
    void badTlsInputIsOneLineAndExitTwo() throws IOException {
        String url = sim.baseUrl() + "/v1/chat/completions";
        Path garbage = Files.writeString(out.resolve("bad.pem"), "-----BEGIN CERTIFICATE-----\nnope\n");
        assertOneLine(CliHarness.main(perf(url, "--ca-cert", out.resolve("missing.pem").toString())),
                "--ca-cert " + out.resolve("missing.pem") + ": no such file");
        assertOneLine(CliHarness.main(perf(url, "--ca-cert", garbage.toString())), "--ca-cert " + garbage);
        assertOneLine(CliHarness.main(perf(url, "--ca-cert", garbage.toString(), "--insecure")),
                "--ca-cert and --insecure");
        assertOneLine(CliHarness.main(perf(url, "--sim-tls")), "--sim-tls: applies to the embedded simulator only");
        assertOneLine(CliHarness.main("sim", "--tls-key", garbage.toString()), "--tls-key needs --tls-cert");
        assertOneLine(CliHarness.main("sim", "--tls-cert", garbage.toString(), "--tls-key", garbage.toString()),
                "--tls-cert/--tls-key: " + garbage);
    }

    /** The server-metrics scrape of /metrics trusted what the run's requests trusted (it said PKIX and skipped). */
    private void assertScrapedOverTls(CliHarness.Run run) throws IOException {
        assertThat(run.err()).doesNotContain("SKIP server metrics");
        JsonNode metrics = JSON.readTree(out.resolve("t/parallel_2_number_6/server_metrics.json").toFile());
        assertThat(metrics.toString()).contains("https://");
    }

    private static void assertOneLine(CliHarness.Run run, String expected) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).contains(expected).doesNotContain("\n").doesNotContain("\tat ");
    }
}
