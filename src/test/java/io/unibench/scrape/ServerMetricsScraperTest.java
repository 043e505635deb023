package io.unibench.scrape;

import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The scraper over loopback against the simulator's /metrics (vLLM names), and against endpoints that are not there. */
class ServerMetricsScraperTest {

    @Test
    void scrapesTheSimulatorsVllmNames() throws Exception {
        AtomicLong clock = new AtomicLong(1_000);
        try (SimServer sim = SimServer.start(SimConfig.defaults());
             ServerMetricsScraper scraper = new ServerMetricsScraper(URI.create(sim.baseUrl() + "/metrics"), clock::get)) {
            ServerSample first = scraper.scrapeOnce();
            assertThat(scraper.unavailable()).isNull();
            assertThat(first.running()).isZero();
            assertThat(first.kvUse()).isZero();
            assertThat(first.generated()).isZero();
            clock.set(2_000);
            ServerSample second = scraper.scrapeOnce();
            ServerSeries series = scraper.series();
            assertThat(series.engine()).isEqualTo("vLLM");
            assertThat(series.samples()).containsExactly(first, second);
            assertThat(scraper.seriesSince(1_500).samples()).containsExactly(second);
            assertThat(series.rows().getFirst()).containsEntry("timestamp_ms", 1_000L).containsEntry("running", 0.0);
        }
    }

    @Test
    void aMissingEndpointIsOneLineAndIsNotAskedAgain() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults());
             ServerMetricsScraper scraper = new ServerMetricsScraper(URI.create(sim.baseUrl() + "/no-metrics"),
                     System::currentTimeMillis)) {
            assertThat(scraper.start().scrapeOnce()).isNull();
            assertThat(scraper.unavailable()).isEqualTo("no server metrics at " + sim.baseUrl()
                    + "/no-metrics (HTTP 404)");
            assertThat(scraper.stop().samples()).isEmpty();
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (ServerMetricsScraper closed = new ServerMetricsScraper(URI.create("http://127.0.0.1:" + port + "/metrics"),
                System::currentTimeMillis)) {
            closed.scrapeOnce();
            assertThat(closed.unavailable()).startsWith("no server metrics at http://127.0.0.1:" + port + "/metrics (")
                    .doesNotContain("\n");
        }
    }

    @Test
    void theLineSayingWhyNamesTheUrlWithItsSecretsMasked() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (ServerMetricsScraper closed = new ServerMetricsScraper(URI.create("http://scraper:pass-word-1@127.0.0.1:"
                + port + "/metrics?token=metrics-token-123456"), System::currentTimeMillis)) {
            closed.scrapeOnce();
            assertThat(closed.unavailable()).startsWith("no server metrics at http://***@127.0.0.1:" + port + "/metrics?token=")
                    .doesNotContain("metrics-token-123456").doesNotContain("pass-word-1");
            assertThat(closed.shownUrl()).startsWith("http://***@127.0.0.1:" + port + "/metrics?token=")
                    .doesNotContain("metrics-token-123456");
        }
    }

    @Test
    void theDefaultUrlIsTheBaseUrlsMetricsWithoutUserInfo() {
        assertThat(ServerMetricsScraper.defaultUrl(URI.create("https://u:p@h:8443/v1/chat/completions")))
                .isEqualTo(URI.create("https://h:8443/metrics"));
    }
}
