package io.unibench.cli;

import io.unibench.Secrets;
import io.unibench.metrics.RunResult;
import io.unibench.report.ServerMetricsReport;
import io.unibench.scrape.ServerMetricsScraper;
import io.unibench.scrape.ServerSeries;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The server-metrics scrape of a sweep ({@code --server-metrics}): a scraper per point, {@code server_metrics.json}
 * and the stored series at the point's end, its summary keys in the point's summary, and the "Server" table after
 * the report. An endpoint that is not there is said once, in one line, and not asked again.
 */
final class ServerMetricsHook {
    private final PrintWriter err;
    private URI url; // null: off, or found missing
    private final List<ServerMetricsReport.Row> rows = new ArrayList<>();

    ServerMetricsHook(URI url, PrintWriter err) {
        this.url = url;
        this.err = err;
    }

    /** Starts scraping for one point (nothing when off). */
    Point startPoint() {
        return new Point(url == null ? null : new ServerMetricsScraper(url, System::currentTimeMillis).start());
    }

    /** The "Server" table of the points that had metrics, or "". */
    String table() {
        return ServerMetricsReport.table(rows);
    }

    final class Point {
        private final ServerMetricsScraper scraper;

        private Point(ServerMetricsScraper scraper) {
            this.scraper = scraper;
        }

        /** Stops the scrape; writes and stores the series; the summary keys for the point's summary. */
        Map<String, Object> finish(String label, Path runDir, RunResult result, StoreHook store) throws IOException {
            if (scraper == null) return Map.of();
            ServerSeries series = scraper.stop();
            scraper.close();
            if (scraper.unavailable() != null) {
                err.println("[" + label + "] SKIP server metrics: " + Secrets.redact(scraper.unavailable())
                        + " (--server-metrics URL|off)");
                url = null;
                return Map.of();
            }
            String json = ServerMetricsReport.json(Secrets.redact(scraper.url().toString()), series);
            ServerMetricsReport.write(runDir, json);
            store.pointServerMetrics(json);
            ServerSeries.Summary summary = series.summary();
            rows.add(new ServerMetricsReport.Row(label, summary, result.summary().kvCacheHitRatePercent()));
            return summary.toMap();
        }
    }
}
