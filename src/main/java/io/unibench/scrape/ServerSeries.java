package io.unibench.scrape;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The server's own figures over one run point: the samples in scrape order and what they add up to. Counters are
 * read as Prometheus' {@code increase()} reads them: a value below the previous one is a restart of the server
 * (the counter began again at zero), so the increase over that gap is the new value itself, and the reset is
 * counted.
 *
 * @param engine  the engine recognised from the names, e.g. "vLLM"
 * @param samples in scrape order
 */
public record ServerSeries(String engine, List<ServerSample> samples) {

    public ServerSeries {
        samples = List.copyOf(samples);
    }

    /**
     * The figures of the point: mean and max of the gauges, the increase of the counters, the server's prefix-cache
     * hit rate over the window (hits / queries of the increase; the engine's own gauge averaged when it has no
     * counters). NaN where the engine does not expose a series or fewer than two scrapes bound a counter.
     */
    public Summary summary() {
        double seconds = samples.size() < 2 ? Double.NaN
                : (samples.getLast().epochMs() - samples.getFirst().epochMs()) / 1000.0;
        Increase generated = increase(ServerSample::generated);
        Increase hits = increase(ServerSample::prefixHits);
        Increase queries = increase(ServerSample::prefixQueries);
        double hitRate = queries.value > 0 ? hits.value / queries.value : mean(ServerSample::prefixHitRate);
        return new Summary(engine, samples.size(), mean(ServerSample::running), max(ServerSample::running),
                mean(ServerSample::waiting), max(ServerSample::waiting), mean(ServerSample::kvUse),
                max(ServerSample::kvUse), hitRate, generated.value, generated.value / seconds,
                generated.resets + hits.resets + queries.resets + increase(ServerSample::prompt).resets);
    }

    /**
     * @param resets counter resets seen (server restarts during the point)
     */
    public record Summary(String engine, int scrapes, double runningMean, double runningMax, double waitingMean,
                          double waitingMax, double kvUseMean, double kvUseMax, double prefixHitRate,
                          double generatedTokens, double generatedTokensPerSecond, int resets) {

        /** The figures by report key (NaN ones left out), for the point's summary and the store. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("Server Engine", engine);
            m.put("Server Scrapes", scrapes);
            put(m, "Server Running Mean", runningMean);
            put(m, "Server Running Max", runningMax);
            put(m, "Server Waiting Mean", waitingMean);
            put(m, "Server Waiting Max", waitingMax);
            put(m, "Server KV Cache Use Mean", kvUseMean);
            put(m, "Server KV Cache Use Max", kvUseMax);
            put(m, "Server Prefix Cache Hit Rate", prefixHitRate);
            put(m, "Server Generated Tokens", generatedTokens);
            put(m, "Server Generated Tokens/s", generatedTokensPerSecond);
            if (resets > 0) m.put("Server Counter Resets", resets);
            return m;
        }

        private static void put(Map<String, Object> m, String key, double v) {
            if (!Double.isNaN(v) && !Double.isInfinite(v)) m.put(key, Math.round(v * 10_000) / 10_000.0);
        }
    }

    private record Increase(double value, int resets) {}

    private Increase increase(ToDoubleFunction<ServerSample> series) {
        double total = 0;
        int resets = 0;
        int pairs = 0;
        double previous = Double.NaN;
        for (ServerSample s : samples) {
            double v = series.applyAsDouble(s);
            if (Double.isNaN(v)) continue;
            if (!Double.isNaN(previous)) {
                pairs++;
                if (v >= previous) {
                    total += v - previous;
                } else {
                    total += v;
                    resets++;
                }
            }
            previous = v;
        }
        return new Increase(pairs == 0 ? Double.NaN : total, resets);
    }

    private double mean(ToDoubleFunction<ServerSample> series) {
        double sum = 0;
        int n = 0;
        for (ServerSample s : samples) {
            double v = series.applyAsDouble(s);
            if (Double.isNaN(v)) continue;
            sum += v;
            n++;
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private double max(ToDoubleFunction<ServerSample> series) {
        double max = Double.NaN;
        for (ServerSample s : samples) {
            double v = series.applyAsDouble(s);
            if (!Double.isNaN(v) && (Double.isNaN(max) || v > max)) max = v;
        }
        return max;
    }

    /** The series as rows (one per scrape, NaN fields left out) for {@code server_metrics.json}. */
    public List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ServerSample s : samples) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("timestamp_ms", s.epochMs());
            put(row, "running", s.running());
            put(row, "waiting", s.waiting());
            put(row, "kv_cache_usage", s.kvUse());
            put(row, "prefix_cache_hits", s.prefixHits());
            put(row, "prefix_cache_queries", s.prefixQueries());
            put(row, "prefix_cache_hit_rate", s.prefixHitRate());
            put(row, "generation_tokens", s.generated());
            put(row, "prompt_tokens", s.prompt());
            rows.add(row);
        }
        return rows;
    }

    private static void put(Map<String, Object> row, String key, double v) {
        if (!Double.isNaN(v)) row.put(key, v);
    }
}
