package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.Summary;
import io.unibench.store.ImportedRun;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code evalscope perf}'s output: one folder per point ({@code parallel_4_number_60/}) holding
 * {@code benchmark_args.json}, {@code benchmark_summary.json}, {@code benchmark_percentile.json} and, where it was
 * kept, {@code benchmark_data.db} (SQLite, table {@code result}, one row per request). Its summary and percentile
 * keys are read by {@link EvalscopeKeys}, the table of every key set evalscope has written (v1.10.0's are ours: we
 * write the same files).
 */
final class EvalscopePerf {
    static final String SUMMARY = "benchmark_summary.json";
    static final String ARGS = "benchmark_args.json";
    static final String PERCENTILES = "benchmark_percentile.json";
    static final String DATA = "benchmark_data.db";

    private EvalscopePerf() {}

    /** True when {@code dir} is one point's folder. */
    static boolean isPoint(Path dir) {
        return Files.isRegularFile(dir.resolve(SUMMARY));
    }

    /** One run of the point folders given (one evalscope invocation's sweep), in the order given. */
    static Foreign read(List<Path> pointDirs, long nowMillis) {
        List<ImportedRun.Point> points = new ArrayList<>();
        Map<String, Object> files = new LinkedHashMap<>();
        JsonNode firstArgs = null;
        boolean anyRows = false;
        boolean allRows = true;
        java.util.Set<String> versions = new java.util.LinkedHashSet<>();
        boolean hitRates = !pointDirs.isEmpty();
        for (Path dir : pointDirs) {
            ForeignFile summaryFile = ForeignFile.read(dir.resolve(SUMMARY));
            JsonNode summary = summaryFile.json();
            if (!summary.isObject()) throw summaryFile.error("", "expected an object of summary figures");
            files.put(summaryFile.path.toString(), summaryFile.sha256);
            Map<String, Object> written = ForeignPoints.plain(summary);
            EvalscopeKeys.KeySet set = EvalscopeKeys.keySet(written.keySet());
            if (set == null) {
                throw summaryFile.error("", "none of the keys evalscope perf writes (\"Test Duration (s)\", "
                        + "\"Time taken for tests (s)\", …)");
            }
            versions.add(set.versions);
            JsonNode args = null;
            ForeignFile argsFile = null;
            if (Files.isRegularFile(dir.resolve(ARGS))) {
                argsFile = ForeignFile.read(dir.resolve(ARGS));
                args = argsFile.json();
                if (!args.isObject()) throw argsFile.error("", "expected an object of arguments");
                files.put(argsFile.path.toString(), argsFile.sha256);
            }
            if (firstArgs == null) firstArgs = args;
            List<Map<String, Object>> percentiles = null;
            if (Files.isRegularFile(dir.resolve(PERCENTILES))) {
                ForeignFile pf = ForeignFile.read(dir.resolve(PERCENTILES));
                JsonNode rows = pf.json();
                if (!rows.isArray()) throw pf.error("", "expected an array of percentile rows");
                percentiles = new ArrayList<>();
                for (int i = 0; i < rows.size(); i++) {
                    Map<String, Object> row = rows.get(i).isObject() ? EvalscopeKeys.ours(EvalscopeKeys.File.PERCENTILES,
                            set, ForeignPoints.plain(rows.get(i))) : Map.of();
                    if (!(row.get(PercentileRow.PERCENTILES) instanceof String)) {
                        throw pf.error("/" + i + ForeignFile.member(EvalscopeKeys.nameOf(EvalscopeKeys.File.PERCENTILES,
                                PercentileRow.PERCENTILES, set)), "missing, expected a label such as \"50%\"");
                    }
                    percentiles.add(row);
                }
                files.put(pf.path.toString(), pf.sha256);
            }
            Map<String, Object> figures = EvalscopeKeys.ours(EvalscopeKeys.File.SUMMARY, set, written);
            int parallel = (int) figure(summaryFile, summary, set, Summary.CONCURRENCY);
            // the request rate is in the summary from v1.4.1; before, only in benchmark_args.json (-1: not paced)
            double rate;
            if (figures.containsKey(Summary.REQUEST_RATE)) rate = figure(summaryFile, summary, set, Summary.REQUEST_RATE);
            else if (argsFile != null) rate = argsFile.number(args, "/rate");
            else throw summaryFile.error("", "no request rate: evalscope " + set.versions + " writes it to "
                    + ARGS + " only, which is not beside it");
            int number = (int) figure(summaryFile, summary, set, Summary.TOTAL_REQUESTS);
            figure(summaryFile, summary, set, Summary.TEST_DURATION);
            RunInfo info = new RunInfo(dir.getFileName().toString(), parallel, rate, number);
            if (set.compareTo(EvalscopeKeys.KeySet.V1_7) >= 0 && EvalscopeKeys.inputOnly(args, figures)) {
                for (String k : EvalscopeKeys.GENERATION_ONLY) {
                    if (figures.get(k) instanceof Number n && n.doubleValue() == 0) figures.put(k, null);
                }
            } else if (figures.get(Summary.INPUT_THROUGHPUT) instanceof Number n && n.doubleValue() == 0) {
                // a generation run's input throughput: its default 0.0, not measured (it is for embedding/rerank)
                figures.put(Summary.INPUT_THROUGHPUT, null);
            }
            // the hit rate is written only where it was measured: v1.6.x when above 0; v1.7.0 and later when a request
            // had cached tokens (multi-turn's, or from v1.10.0 the server's usage.prompt_tokens_details), 0.0 included
            hitRates &= figures.get(Summary.KV_CACHE_HIT_RATE) instanceof Number;
            Path db = dir.resolve(DATA);
            if (Files.isRegularFile(db)) {
                byte[] bytes = ForeignFile.read(db).bytes;
                files.put(db.toString(), ForeignFile.sha256(bytes));
                Boolean streamed = args != null && args.path("stream").isBoolean() ? args.get("stream").asBoolean() : null;
                List<RequestRecord> records = rows(db, nowMillis, streamed);
                points.add(ForeignPoints.recomputed(info, nowMillis, records, figures, percentiles));
                anyRows = true;
            } else {
                points.add(ForeignPoints.figuresOnly(info, nowMillis, figures, percentiles));
                allRows = false;
            }
        }
        List<String> lacks = new ArrayList<>(List.of("phases",
                hitRates ? "cached token counts (its cache hit rate kept)" : "cache figures", "server metrics"));
        if (!allRows) lacks.addFirst(anyRows ? "per-request rows (some points)" : "per-request rows");
        lacks.add(ForeignPoints.NO_START);
        return new Foreign(ForeignFormat.EVALSCOPE_PERF,
                String.join(", ", versions) + ", by its summary's key names", files, firstArgs, lacks, points, nowMillis);
    }

    /** Our figure {@code ours} of the summary (as the key set names it in the file); bad input when it is missing. */
    private static double figure(ForeignFile f, JsonNode summary, EvalscopeKeys.KeySet set, String ours) {
        return f.number(summary, ForeignFile.member(EvalscopeKeys.nameOf(EvalscopeKeys.File.SUMMARY, ours, set)));
    }

    /**
     * The {@code result} table's rows as records; bad input naming the file, table row and column. The table's columns
     * as each version wrote them: {@code inter_token_latencies} (seconds between chunks) from v1.1.1, before it
     * {@code chunk_times} (each chunk's moment, the gaps are their differences, as v1.1.1 computes the column);
     * {@code is_stream} from v1.10.0, before it the run's {@code stream} argument ({@code streamed}), else a request
     * of more than one chunk was streamed.
     */
    private static List<RequestRecord> rows(Path db, long nowMillis, Boolean streamed) {
        Properties p = new Properties();
        p.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY
        List<RequestRecord> records = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), p);
             Statement st = c.createStatement()) {
            java.util.Set<String> columns = new java.util.HashSet<>();
            try (ResultSet info = st.executeQuery("PRAGMA table_info(result)")) {
                while (info.next()) columns.add(info.getString("name"));
            }
            String chunks = columns.contains("inter_token_latencies") ? "inter_token_latencies" : "chunk_times";
            boolean moments = chunks.equals("chunk_times");
            String stream = columns.contains("is_stream") ? "is_stream" : "NULL";
            List<double[]> raw = new ArrayList<>();
            List<double[]> gaps = new ArrayList<>();
            List<Boolean> streams = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT start_time, first_chunk_latency, " + chunks + ", latency, "
                    + "prompt_tokens, completion_tokens, success, " + stream + " FROM result ORDER BY start_time, rowid")) {
                int row = 0;
                while (rs.next()) {
                    row++;
                    double start = rs.getDouble(1);
                    if (rs.wasNull()) throw new BadInputException(db + ": result row " + row + ": start_time: missing");
                    double ttft = rs.getDouble(2);
                    if (rs.wasNull()) ttft = Double.NaN;
                    String text = rs.getString(3);
                    double[] g;
                    try {
                        JsonNode n = text == null ? ForeignFile.MAPPER.createArrayNode() : ForeignFile.MAPPER.readTree(text);
                        if (!n.isArray()) throw new BadInputException(db + ": result row " + row + ": " + chunks
                                + ": expected a JSON array of seconds");
                        if (moments) {
                            g = new double[Math.max(0, n.size() - 1)];
                            for (int i = 0; i < g.length; i++) g[i] = n.get(i + 1).asDouble() - n.get(i).asDouble();
                        } else {
                            g = new double[n.size()];
                            for (int i = 0; i < n.size(); i++) g[i] = n.get(i).asDouble();
                        }
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        throw new BadInputException(db + ": result row " + row + ": " + chunks + ": not JSON");
                    }
                    double latency = rs.getDouble(4);
                    int prompt = rs.getInt(5);
                    int completion = rs.getInt(6);
                    boolean success = rs.getInt(7) != 0;
                    int isStream = rs.getInt(8);
                    boolean known = !rs.wasNull();
                    raw.add(new double[] {start, ttft, latency, prompt, completion, success ? 1 : 0});
                    gaps.add(g);
                    streams.add(known ? isStream != 0 : streamed != null ? streamed : g.length > 0);
                }
            }
            double base = raw.stream().mapToDouble(r -> r[0]).min().orElse(0);
            for (int i = 0; i < raw.size(); i++) {
                double[] r = raw.get(i);
                boolean ok = r[5] != 0;
                records.add(ForeignPoints.record(i, base, nowMillis, r[0], r[1], gaps.get(i), r[2], (int) r[3],
                        (int) r[4], RequestRecord.TokenSource.SERVER, streams.get(i),
                        ok ? null : "failed (evalscope keeps no error text in benchmark_data.db)"));
            }
        } catch (SQLException e) {
            throw new BadInputException(db + ": not evalscope's per-request database (table result): " + e.getMessage());
        }
        return records;
    }
}
