package io.unibench.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.LevelName;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.Summary;
import io.unibench.report.scenario.KneeFinder;
import io.unibench.store.RunStore;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The series a run's charts draw, as plain arrays for uPlot: distributions from the stored percentile rows, the
 * throughput timeline from the stored (down-sampled) workload timeline in equal windows, TTFT over time from at most
 * {@link #MAX_DOTS} requests spread evenly over the run, the per-level curves from the points' summaries (closed-loop
 * levels against concurrency, request-rate levels against the offered rate: two charts), and the
 * target server's own series (its {@code /metrics}, scraped once a second) from each point's stored
 * {@code server_metrics.json}.
 */
final class ChartData {
    /** Dots of the TTFT-over-time chart: readable at any width, a few kilobytes, index lookups in the store. */
    static final int MAX_DOTS = 2000;

    private ChartData() {}

    static Map<String, Object> of(RunStore store, StoredRun run) throws SQLException {
        Map<String, Object> m = new LinkedHashMap<>();
        List<StoredPoint> done = run.points().stream().filter(p -> p.percentiles() != null).toList();
        m.put("labels", done.stream().map(StoredPoint::label).toList());
        m.put("latency_s", distribution(done, PercentileRow.LATENCY));
        m.put("ttft_ms", distribution(done, PercentileRow.TTFT));
        m.put("itl_ms", distribution(done, PercentileRow.ITL));
        m.put("ttft_over_time", ttftOverTime(store, run));
        m.put("throughput", throughput(run));
        m.put("server", server(store, run));
        m.put("levels", levels(done, run.config() == null ? DEFAULT_KNEE_GAIN_PERCENT
                : run.config().path("knee").path("min_gain_percent").asDouble(DEFAULT_KNEE_GAIN_PERCENT)));
        m.put("rate_levels", rateLevels(done));
        return m;
    }

    /** x: the percentile (min = 0, max = 100); one y series per point. */
    static Map<String, Object> distribution(List<StoredPoint> points, String column) {
        List<Double> x = new ArrayList<>();
        for (String label : PercentileRow.LABELS) x.add(percentOf(label));
        List<List<Double>> ys = new ArrayList<>();
        for (StoredPoint p : points) {
            List<Double> y = new ArrayList<>();
            for (String label : PercentileRow.LABELS) y.add(RunViews.percentile(p, label, column));
            ys.add(y);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("x", x);
        m.put("y", ys);
        return m;
    }

    private static double percentOf(String label) {
        return switch (label) {
            case "min" -> 0;
            case "max" -> 100;
            default -> Double.parseDouble(label.replace("%", ""));
        };
    }

    /** Seconds since the run's start (of each request's start, to the millisecond) and its TTFT; failed requests have none. */
    private static Map<String, Object> ttftOverTime(RunStore store, StoredRun run) throws SQLException {
        long total = 0;
        for (StoredPoint p : run.points()) total += Math.max(0, pointRequests(p));
        List<Double> t = new ArrayList<>();
        List<Double> ttft = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            long n = pointRequests(p);
            if (n <= 0) continue;
            int share = (int) Math.max(1, Math.round((double) MAX_DOTS * n / Math.max(1, total)));
            for (RunStore.RequestSample s : store.sampleRequests(run.runId(), p.index(), n, share)) {
                if (s.ttftMs() == null || !s.success()) continue;
                // the request's own wall-clock start: the stored moments' origin differs between runners (each
                // point's start for perf, the series' start for a scenario's levels)
                t.add(round((s.startEpochMs() - run.row().startedAt()) / 1000.0, 3));
                ttft.add(round(s.ttftMs(), 3));
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t_s", t);
        m.put("ttft_ms", ttft);
        m.put("requests", total);
        return m;
    }

    /** A point's request count: its summary's, else its planned number (a point cut short). */
    private static long pointRequests(StoredPoint p) {
        Double n = RunViews.number(p.summary(), "Total Requests");
        return n != null ? n.longValue() : p.number();
    }

    /** Windows of the throughput timeline per point: fine enough to show a ramp, wide enough to average. */
    static final int WINDOWS = 60;

    /**
     * Output tok/s in {@link #WINDOWS} equal windows of each point (at least 0.25 s wide): completion tokens
     * finished in the window over its width, from the stored cumulative timeline (interpolated at the window's
     * edges); x is the window's end in seconds since the run's start.
     */
    static Map<String, Object> throughput(StoredRun run) {
        List<Double> t = new ArrayList<>();
        List<Double> rate = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            JsonNode timeline = p.details().timeline();
            if (timeline == null || timeline.path("points").isEmpty()) continue;
            double offset = (p.startedAt() - run.row().startedAt()) / 1000.0;
            JsonNode points = timeline.path("points");
            double end = points.get(points.size() - 1).path("t").asDouble();
            double width = Math.max(0.25, end / WINDOWS);
            double before = 0;
            for (double edge = width; edge < end + width; edge += width) {
                double cum = cumulativeAt(points, Math.min(edge, end));
                t.add(round(offset + edge, 3));
                rate.add(round((cum - before) / width, 2));
                before = cum;
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t_s", t);
        m.put("output_tok_s", rate);
        return m;
    }

    /**
     * Completion tokens finished by {@code t}, interpolated linearly between the stored points: the stored
     * timeline keeps every n-th completion, so a step function would alias into a saw-tooth of ±1/n per window.
     */
    static double cumulativeAt(JsonNode points, double t) {
        double prevT = 0;
        double prevCum = 0;
        for (JsonNode p : points) {
            double pt = p.path("t").asDouble();
            double pc = p.path("cum_completion").asDouble();
            if (pt >= t) return pt == prevT ? pc : prevCum + (pc - prevCum) * (t - prevT) / (pt - prevT);
            prevT = pt;
            prevCum = pc;
        }
        return prevCum;
    }

    /**
     * The server's series over the run, x in seconds since the run's start (scrape time): the running and waiting
     * gauges, KV-cache use and the prefix-cache hit rate in percent, and generated tokens per second; counters as
     * increases between two scrapes of a point (a value below the previous one is a restart: the increase is the
     * value itself), so a point's first scrape has no rate. Null for a run without server metrics; a series the
     * engine does not expose is all nulls.
     */
    static Map<String, Object> server(RunStore store, StoredRun run) throws SQLException {
        List<JsonNode> stored = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            JsonNode json = store.pointServerMetrics(run.runId(), p.index());
            if (json != null) stored.add(json);
        }
        return server(stored, run.row().startedAt());
    }

    /** The series of the points' stored {@code server_metrics.json} objects, in run order. */
    static Map<String, Object> server(List<JsonNode> points, long runStartEpochMs) {
        String engine = null;
        List<Double> t = new ArrayList<>();
        List<Double> running = new ArrayList<>();
        List<Double> waiting = new ArrayList<>();
        List<Double> kv = new ArrayList<>();
        List<Double> hit = new ArrayList<>();
        List<Double> generated = new ArrayList<>();
        for (JsonNode stored : points) {
            if (engine == null) engine = stored.path("engine").textValue();
            JsonNode previous = null;
            for (JsonNode row : stored.path("series")) {
                t.add(round((row.path("timestamp_ms").asLong() - runStartEpochMs) / 1000.0, 3));
                running.add(value(row, "running", 1));
                waiting.add(value(row, "waiting", 1));
                kv.add(value(row, "kv_cache_usage", 100));
                Double hits = increase(previous, row, "prefix_cache_hits");
                Double queries = increase(previous, row, "prefix_cache_queries");
                hit.add(hits != null && queries != null && queries > 0 ? Double.valueOf(round(100 * hits / queries, 2))
                        : value(row, "prefix_cache_hit_rate", 100));
                Double tokens = increase(previous, row, "generation_tokens");
                double seconds = previous == null ? 0
                        : (row.path("timestamp_ms").asLong() - previous.path("timestamp_ms").asLong()) / 1000.0;
                generated.add(tokens == null || seconds <= 0 ? null : Double.valueOf(round(tokens / seconds, 2)));
                previous = row;
            }
        }
        if (t.isEmpty()) return null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", engine);
        m.put("t_s", t);
        m.put("running", running);
        m.put("waiting", waiting);
        m.put("kv_cache_pct", kv);
        m.put("prefix_hit_pct", hit);
        m.put("generated_tok_s", generated);
        return m;
    }

    private static Double value(JsonNode row, String key, double scale) {
        JsonNode v = row.get(key);
        return v == null || !v.isNumber() ? null : round(v.asDouble() * scale, 4);
    }

    /** A counter's increase since the point's previous scrape; null without both values. */
    private static Double increase(JsonNode previous, JsonNode row, String key) {
        Double now = value(row, key, 1);
        Double before = previous == null ? null : value(previous, key, 1);
        if (now == null || before == null) return null;
        return now >= before ? now - before : now;
    }

    /** A scenario file's default {@code knee.min_gain_percent}, used for runs that name none (perf sweeps). */
    static final double DEFAULT_KNEE_GAIN_PERCENT = 10;

    /**
     * The closed-loop levels' curves, one value per unpaced point, x its concurrency. With concurrency levels in rising
     * order, {@code knee} is the first level after which the next raises successful req/s by less than
     * {@code kneeGainPercent} ({@code unibench run}'s rule), or absent. Paced points are {@link #rateLevels}'.
     */
    static Map<String, Object> levels(List<StoredPoint> points, double kneeGainPercent) {
        List<StoredPoint> closed = points.stream().filter(p -> !(p.rate() > 0)).toList();
        Map<String, Object> m = curves(closed, "concurrency", p -> (double) p.concurrency());
        for (int i = 0; i + 1 < closed.size(); i++) {
            Double now = RunViews.number(closed.get(i).summary(), Summary.REQ_THROUGHPUT);
            Double then = RunViews.number(closed.get(i + 1).summary(), Summary.REQ_THROUGHPUT);
            String why = now == null || then == null ? null : KneeFinder.flat(closed.get(i).concurrency(), now,
                    closed.get(i + 1).concurrency(), then, kneeGainPercent);
            if (why != null) {
                m.put("knee", Map.of("x", closed.get(i).concurrency(), "reason", why));
                break;
            }
        }
        return m;
    }

    /**
     * The request-rate levels' curves, one value per paced point (open loop, or bounded by a concurrency), x the
     * offered rate: their concurrency is −1 or the bound, which is not what differs between them. A trace replay
     * (paced at its recorded times, shown at its mean rate) is no level of a rate sweep and is left out.
     */
    static Map<String, Object> rateLevels(List<StoredPoint> points) {
        List<StoredPoint> paced = points.stream()
                .filter(p -> p.rate() > 0 && !LevelName.of(p.label()).equals("trace")).toList();
        return curves(paced, "offered rate (req/s)", StoredPoint::rate);
    }

    private static Map<String, Object> curves(List<StoredPoint> points, String xLabel,
                                              java.util.function.Function<StoredPoint, Double> x) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("x_label", xLabel);
        m.put("x", points.stream().map(x).toList());
        m.put("output_tok_s", points.stream().map(p -> RunViews.number(p.summary(), RunViews.OUTPUT_THROUGHPUT)).toList());
        m.put("ttft_p95_ms", points.stream().map(p -> RunViews.percentile(p, "95%", PercentileRow.TTFT)).toList());
        m.put("latency_p95_s", points.stream().map(p -> RunViews.percentile(p, "95%", PercentileRow.LATENCY)).toList());
        return m;
    }

    private static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }
}
