package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Summary;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.store.ImportedRun;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every format shares: one request of another tool as our {@link RequestRecord} (its moments on the point's
 * timeline), and a point stored from the tool's figures — recomputed with our method ({@link RunMetrics}) when the
 * tool kept per-request rows, the tool's own values kept beside ours where they differ.
 */
final class ForeignPoints {
    /** The summary key under which the source's own figures are kept where ours (recomputed) differ. */
    static final String SOURCE_FIGURES = "Source Figures";
    /** The percentile rows the source wrote, kept where ours (recomputed) differ. */
    static final String SOURCE_PERCENTILES = "Source Percentiles";
    /**
     * What a run lacks whose files give no moment it started with its zone (evalscope's and vLLM's local times): it is
     * stored at the moment it was imported, and says so.
     */
    static final String NO_START = "its start (no time with a zone in its files: dated by its import)";
    /** The summary keys of figures none of the imported formats measures per request (the tool's, or absent). */
    static final List<String> CACHE_KEYS = List.of(Summary.KV_CACHE_HIT_RATE, Summary.TOTAL_CACHED_TOKENS);

    /**
     * The per-request fields {@link #record} fills with a stand-in, no format recording them: the HTTP status (200 for
     * a success), whether the connection was new or retried stale (false) and the reasoning tokens (0). A run with
     * rows names them as not measured ({@link io.unibench.store.ImportedRun#NOT_MEASURED_FIELDS}), and its export
     * writes them null.
     */
    static final List<String> STAND_IN_FIELDS =
            List.of("http_status", "new_connection", "retried_stale_connection", "reasoning_tokens");
    /** How the run's "not measured" line says so. */
    static final String STAND_IN_LACKS = "each request's HTTP status, connection reuse and reasoning tokens";

    private ForeignPoints() {}

    /**
     * One request from a tool's moments (seconds on its own monotonic clock).
     *
     * @param baseSeconds the point's start on that clock
     * @param ttft        seconds from start to the first chunk the tool timed, NaN when none came
     * @param gaps        the tool's inter-chunk intervals after that first chunk, in seconds
     * @param latency     seconds from start to the end
     */
    static RequestRecord record(long index, double baseSeconds, long baseEpochMillis, double start, double ttft,
                                double[] gaps, double latency, int prompt, int completion,
                                RequestRecord.TokenSource source, boolean stream, String error) {
        long startNanos = nanos(start - baseSeconds);
        long endNanos = startNanos + nanos(latency);
        long first = io.unibench.Moments.ABSENT;
        long[] chunks = new long[0];
        if (stream && !Double.isNaN(ttft)) {
            first = startNanos + nanos(ttft);
            chunks = new long[gaps.length + 1];
            chunks[0] = first;
            double t = ttft;
            for (int i = 0; i < gaps.length; i++) {
                t += gaps[i];
                chunks[i + 1] = startNanos + nanos(t);
            }
        }
        Timing timing = new Timing(stream, baseEpochMillis + Math.round((start - baseSeconds) * 1e3),
                io.unibench.Moments.ABSENT, startNanos, io.unibench.Moments.ABSENT, first, first, endNanos, chunks);
        Outcome outcome = error == null ? Outcome.ok(200, null) : Outcome.failed("error", 0, error);
        return new RequestRecord(Position.single(index, null), timing, Tokens.counted(prompt, completion, source),
                outcome, PhaseTimes.NONE, null);
    }

    static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /**
     * A point from per-request rows: our summary and percentiles recomputed from them, the source's summary values
     * (our keys) and percentile rows kept where they differ from ours at the source's precision.
     */
    static ImportedRun.Point recomputed(RunInfo info, long startedAtMillis, List<RequestRecord> records,
                                        Map<String, Object> sourceSummary, List<Map<String, Object>> sourcePercentiles) {
        RunMetrics metrics = new RunMetrics();
        records.forEach(metrics::accept);
        RunResult result = metrics.result(info);
        // none of the formats counts cached prompt tokens per request: the cached/new split is absent, not 0/all
        if (result.workload() != null) result = result.withWorkload(result.workload().withoutCachedTokens());
        Map<String, Object> summary = new LinkedHashMap<>(result.summary().toMap());
        // not recomputed (no row holds cached tokens): the tool's own figure where it wrote one, else absent
        for (String key : CACHE_KEYS) summary.put(key, sourceSummary.get(key) instanceof Number n ? n : null);
        Map<String, Object> differing = new LinkedHashMap<>();
        sourceSummary.forEach((key, value) -> {
            if (value == null) return;
            Object ours = summary.get(key);
            if (!sameAtSourcePrecision(ours, value)) differing.put(key, value);
        });
        if (!differing.isEmpty()) summary.put(SOURCE_FIGURES, differing);
        List<Map<String, Object>> ours = PercentileRow.toMaps(result.percentiles());
        if (sourcePercentiles != null && !sourcePercentiles.isEmpty() && !samePercentiles(ours, sourcePercentiles)) {
            summary.put(SOURCE_PERCENTILES, sourcePercentiles);
        }
        return new ImportedRun.Point(info, startedAtMillis, result, summary, ours, records);
    }

    /** A point from the tool's figures alone (no per-request rows): only what it measured, the rest absent. */
    static ImportedRun.Point figuresOnly(RunInfo info, long startedAtMillis, Map<String, Object> sourceSummary,
                                         List<Map<String, Object>> sourcePercentiles) {
        Map<String, Object> summary = new LinkedHashMap<>(sourceSummary);
        for (String key : CACHE_KEYS) summary.putIfAbsent(key, null);
        return new ImportedRun.Point(info, startedAtMillis, null, summary,
                sourcePercentiles == null ? List.of() : sourcePercentiles, List.of());
    }

    private static boolean samePercentiles(List<Map<String, Object>> ours, List<Map<String, Object>> source) {
        Map<Object, Map<String, Object>> byLabel = new LinkedHashMap<>();
        for (Map<String, Object> row : ours) byLabel.put(row.get(PercentileRow.PERCENTILES), row);
        for (Map<String, Object> row : source) {
            Map<String, Object> mine = byLabel.get(row.get(PercentileRow.PERCENTILES));
            if (mine == null) return false;
            for (Map.Entry<String, Object> e : row.entrySet()) {
                if (e.getKey().equals(PercentileRow.PERCENTILES)) continue;
                if (!sameAtSourcePrecision(mine.get(e.getKey()), e.getValue())) return false;
            }
        }
        return true;
    }

    /** Ours rounded to the source's decimals equals the source's (a source that rounds is not a difference). */
    static boolean sameAtSourcePrecision(Object ours, Object source) {
        if (!(source instanceof Number s)) return source == null ? ours == null : source.equals(ours);
        if (!(ours instanceof Number o)) return false;
        BigDecimal src = source instanceof BigDecimal b ? b : new BigDecimal(s.toString());
        int scale = Math.max(0, src.stripTrailingZeros().scale());
        if (Double.isNaN(o.doubleValue()) || Double.isInfinite(o.doubleValue())) return false;
        BigDecimal mine = new BigDecimal(o.toString()).setScale(scale, RoundingMode.HALF_UP);
        return mine.compareTo(src.setScale(scale, RoundingMode.HALF_UP)) == 0;
    }

    /**
     * A tool's name of a statistic as our percentile row label ({@code min}, {@code 50%}, {@code 99.9%}, {@code max}),
     * or null when it names no percentile ({@code mean}, {@code avg}, {@code stddev}, {@code units}): the one reading of
     * every format's names — vLLM's and AIPerf's {@code p1} … {@code p99} and {@code p99.9}, the Benchmark Report's
     * {@code p0p1} and {@code p99p9}, GuideLLM's {@code p001}, {@code p01}, {@code p05}, {@code p999} (three digits:
     * two, then the decimal).
     */
    static String percentileLabel(String name) {
        if (name.equals("min") || name.equals("max")) return name;
        java.util.regex.Matcher m = PERCENTILE_NAME.matcher(name);
        if (!m.matches()) return null;
        String whole = m.group(1);
        String fraction = m.group(2);
        if (fraction == null && whole.length() == 3) {
            fraction = whole.substring(2);
            whole = whole.substring(0, 2);
        }
        BigDecimal v = new BigDecimal(fraction == null ? whole : whole + "." + fraction).stripTrailingZeros();
        return v.compareTo(BigDecimal.valueOf(100)) > 0 ? null : v.toPlainString() + "%";
    }

    private static final java.util.regex.Pattern PERCENTILE_NAME = java.util.regex.Pattern.compile("p(\\d+)(?:[p.](\\d+))?");

    /** Where a label sorts among the rows: min first, then the percentiles ascending, max last. */
    private static double rank(String label) {
        return label.equals("min") ? -1 : label.equals("max") ? 101
                : Double.parseDouble(label.substring(0, label.length() - 1));
    }

    /** Percentile rows as a tool's statistics are read (label, column, value), ordered min, … 99.9%, max. */
    static final class Rows {
        private final Map<String, Map<String, Object>> rows =
                new java.util.TreeMap<>(java.util.Comparator.comparingDouble(ForeignPoints::rank));

        void put(String label, String column, Object value) {
            rows.computeIfAbsent(label, l -> {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put(PercentileRow.PERCENTILES, l);
                return row;
            }).put(column, value);
        }

        boolean has(String label, String column) {
            return rows.containsKey(label) && rows.get(label).containsKey(column);
        }

        /**
         * Each percentile member of the object at {@code pointer} (a tool's statistics of one metric), times
         * {@code factor}, into {@code column}; members naming no percentile and null values are not read.
         */
        void statistics(ForeignFile f, JsonNode root, String pointer, String column, double factor) {
            JsonNode stats = root.at(pointer);
            if (!stats.isObject()) return;
            stats.properties().forEach(e -> {
                String label = percentileLabel(e.getKey());
                if (label == null || e.getValue().isNull()) return;
                put(label, column, f.number(root, pointer + ForeignFile.member(e.getKey())) * factor);
            });
        }

        List<Map<String, Object>> list() {
            return new ArrayList<>(rows.values());
        }
    }

    /** A JSON object's values as plain Java values, keys in order (decimal numbers kept as written, NaN as null). */
    static Map<String, Object> plain(JsonNode object) {
        Map<String, Object> m = new LinkedHashMap<>();
        object.properties().forEach(e -> m.put(e.getKey(), value(e.getValue())));
        return m;
    }

    static Object value(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return null;
        if (n.isIntegralNumber()) return n.asLong();
        if (n.isNumber() && !Double.isFinite(n.asDouble())) return null; // Python's NaN/Infinity: no figure
        if (n.isNumber()) return n.decimalValue();
        if (n.isBoolean()) return n.asBoolean();
        if (n.isTextual()) return n.asText();
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(e -> l.add(value(e)));
            return l;
        }
        return plain(n);
    }
}
