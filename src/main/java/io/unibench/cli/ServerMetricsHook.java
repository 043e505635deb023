package io.unibench.cli;

import io.unibench.Secrets;
import io.unibench.engine.PointObserver;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunResult;
import io.unibench.report.ServerMetricsReport;
import io.unibench.scrape.ServerMetricsScraper;
import io.unibench.scrape.ServerSeries;

import java.io.PrintWriter;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server-metrics scrape of a sweep ({@code --server-metrics}): a scraper per point, {@code server_metrics.json}
 * and the stored series at the point's end, its summary keys in the point's summary, and the "Server" table after
 * the report. An endpoint that is not there is said once, in one line, and not asked again.
 */
final class ServerMetricsHook implements PointObserver {
    private final ServerMetricsOption option;
    private final PrintWriter err;
    private final Set<URI> missing = new HashSet<>();
    private final List<ServerMetricsReport.Row> rows = new ArrayList<>();

    ServerMetricsHook(ServerMetricsOption option, PrintWriter err) {
        this.option = option;
        this.err = err;
    }

    @Override
    public Point start(String label, RunSpec.Target target) {
        URI url = option.url(URI.create(target.url()));
        if (url == null || missing.contains(url)) return Point.NONE;
        // the target's own trust (--ca-cert, --insecure, the embedded simulator's certificate): a self-signed server's
        // /metrics is checked as its endpoint is
        ServerMetricsScraper scraper = new ServerMetricsScraper(url, System::currentTimeMillis,
                target.tls().jdkContext()).start();
        return result -> finish(label, scraper, result);
    }

    /** The "Server" table of the points that had metrics, or "". */
    String table() {
        return ServerMetricsReport.table(rows);
    }

    private Observed finish(String label, ServerMetricsScraper scraper, RunResult result) {
        ServerSeries series = scraper.stop();
        scraper.close();
        if (scraper.unavailable() != null) {
            err.println("[" + label + "] SKIP server metrics: " + Secrets.redact(scraper.unavailable())
                    + " (--server-metrics URL|off)");
            missing.add(scraper.url());
            return Observed.NOTHING;
        }
        String json = ServerMetricsReport.json(Secrets.redact(scraper.url().toString()), series);
        ServerSeries.Summary summary = series.summary();
        rows.add(new ServerMetricsReport.Row(label, summary, result.summary().cache().kvCacheHitRatePercent()));
        return new Observed(summary.toMap(), json, Map.of(ServerMetricsReport.FILE, json));
    }
}
