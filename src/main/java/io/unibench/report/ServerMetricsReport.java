package io.unibench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.Summary;
import io.unibench.output.Json;
import io.unibench.scrape.ServerSample;
import io.unibench.scrape.ServerSeries;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The target server's own metrics in a report: {@code server_metrics.json} beside a point's evalscope files, and the
 * terminal's "Server" table, one row per point, with the server's prefix-cache hit rate beside the client's (from
 * {@code cached_tokens}).
 */
public final class ServerMetricsReport {
    public static final String FILE = "server_metrics.json";

    private ServerMetricsReport() {}

    /** One row of the table: the point's label, its server figures and the client-side hit rate (%, or null). */
    public record Row(String label, ServerSeries.Summary server, Double clientHitRatePercent) {}

    /** The object {@code server_metrics.json} holds (and the store keeps). */
    public static String json(String url, ServerSeries series) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("url", url);
        root.put("engine", series.engine());
        root.put("interval_s", 1);
        root.put("summary", series.summary().toMap());
        root.put("series", series.rows());
        try {
            return Json.PRETTY.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("maps of numbers and strings always serialise", e);
        }
    }

    /**
     * The series back from {@link #json}'s object (a stored point's, or a {@code server_metrics.json}): the samples
     * as scraped, so its summary is the one the run printed, not one recomputed from rounded figures.
     */
    public static ServerSeries series(JsonNode stored) {
        List<ServerSample> samples = new ArrayList<>();
        for (JsonNode row : stored.path("series")) {
            samples.add(new ServerSample(row.path("timestamp_ms").asLong(), value(row, "running"),
                    value(row, "waiting"), value(row, "kv_cache_usage"), value(row, "prefix_cache_hits"),
                    value(row, "prefix_cache_queries"), value(row, "prefix_cache_hit_rate"),
                    value(row, "generation_tokens"), value(row, "prompt_tokens")));
        }
        return new ServerSeries(stored.path("engine").textValue(), samples);
    }

    /** A field {@link ServerSeries#rows} left out is a series the engine did not expose: NaN, as it was scraped. */
    private static double value(JsonNode row, String key) {
        JsonNode v = row.get(key);
        return v == null || !v.isNumber() ? Double.NaN : v.asDouble();
    }

    /** The "Server" table's columns. */
    public static final List<String> COLUMNS = List.of("Point", "Running mean/max", "Waiting mean/max",
            "KV cache use mean/max", "Prefix hit (server)", "Prefix hit (client)", "Generated tok/s");

    /**
     * A row of the table from a stored point's summary (its {@code Server …} keys and the client's
     * {@code KV Cache Hit Rate (%)}), formatted as the terminal's; null when the point had no server metrics.
     */
    public static List<String> cells(String label, JsonNode summary) {
        if (summary == null || !summary.hasNonNull("Server Engine")) return null;
        JsonNode client = summary.get(Summary.KV_CACHE_HIT_RATE);
        return List.of(label, pair(value(summary, "Server Running Mean"), value(summary, "Server Running Max"), false),
                pair(value(summary, "Server Waiting Mean"), value(summary, "Server Waiting Max"), false),
                pair(value(summary, "Server KV Cache Use Mean"), value(summary, "Server KV Cache Use Max"), true),
                percent(value(summary, "Server Prefix Cache Hit Rate")),
                clientPercent(client == null || !client.isNumber() ? null : client.asDouble()),
                number(value(summary, "Server Generated Tokens/s")));
    }

    /** The "Server" table, or "" when no point had server metrics. */
    public static String table(List<Row> rows) {
        if (rows.isEmpty()) return "";
        TextTable t = new TextTable(COLUMNS, TextTable.Align.LEFT,
                TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT, TextTable.Align.RIGHT,
                TextTable.Align.RIGHT, TextTable.Align.RIGHT);
        String engine = rows.getFirst().server().engine();
        for (Row r : rows) {
            ServerSeries.Summary s = r.server();
            t.row(r.label(), pair(s.runningMean(), s.runningMax(), false), pair(s.waitingMean(), s.waitingMax(), false),
                    pair(s.kvUseMean(), s.kvUseMax(), true), percent(s.prefixHitRate()),
                    clientPercent(r.clientHitRatePercent()),
                    number(s.generatedTokensPerSecond()));
        }
        return "Server (" + engine + " /metrics, scraped once a second)\n" + t.render();
    }

    private static String pair(double mean, double max, boolean percent) {
        if (Double.isNaN(mean)) return "-";
        return percent ? percent(mean) + " / " + percent(max) : number(mean) + " / " + number(max);
    }

    private static String clientPercent(Double percent) {
        return percent == null ? "-" : String.format(Locale.ROOT, "%.1f%%", percent);
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    private static String number(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }
}
