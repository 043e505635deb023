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
 * keys are ours (we write the same files), so the figures map one to one.
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
        for (Path dir : pointDirs) {
            ForeignFile summaryFile = ForeignFile.read(dir.resolve(SUMMARY));
            JsonNode summary = summaryFile.json();
            if (!summary.isObject()) throw summaryFile.error("", "expected an object of summary figures");
            files.put(summaryFile.path.toString(), summaryFile.sha256);
            JsonNode args = null;
            if (Files.isRegularFile(dir.resolve(ARGS))) {
                ForeignFile argsFile = ForeignFile.read(dir.resolve(ARGS));
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
                    if (!rows.get(i).path(PercentileRow.PERCENTILES).isTextual()) {
                        throw pf.error("/" + i + "/" + PercentileRow.PERCENTILES, "missing, expected a label such as \"50%\"");
                    }
                    percentiles.add(ForeignPoints.plain(rows.get(i)));
                }
                files.put(pf.path.toString(), pf.sha256);
            }
            int parallel = (int) summaryFile.number(summary, ForeignFile.member("Concurrency"));
            double rate = summaryFile.number(summary, ForeignFile.member("Request Rate (req/s)"));
            int number = (int) summaryFile.number(summary, ForeignFile.member("Total Requests"));
            summaryFile.number(summary, ForeignFile.member("Test Duration (s)"));
            RunInfo info = new RunInfo(dir.getFileName().toString(), parallel, rate, number);
            Map<String, Object> figures = ForeignPoints.plain(summary);
            // evalscope writes 0.0 for what it did not measure in a run without cache figures
            if (Boolean.FALSE.equals(cacheMeasured(summary))) figures.put(Summary.KV_CACHE_HIT_RATE, null);
            Path db = dir.resolve(DATA);
            if (Files.isRegularFile(db)) {
                byte[] bytes = ForeignFile.read(db).bytes;
                files.put(db.toString(), ForeignFile.sha256(bytes));
                List<RequestRecord> records = rows(db, nowMillis);
                points.add(ForeignPoints.recomputed(info, nowMillis, records, figures, percentiles));
                anyRows = true;
            } else {
                points.add(ForeignPoints.figuresOnly(info, nowMillis, figures, percentiles));
                allRows = false;
            }
        }
        List<String> lacks = new ArrayList<>(List.of("phases", "cache figures", "server metrics"));
        if (!allRows) lacks.addFirst(anyRows ? "per-request rows (some points)" : "per-request rows");
        return new Foreign(ForeignFormat.EVALSCOPE_PERF, null, files, firstArgs, lacks, points, nowMillis);
    }

    /** The summary's cache figure is a measurement only when the run reported cached tokens (it writes 0.0 else). */
    private static Boolean cacheMeasured(JsonNode summary) {
        JsonNode hit = summary.get(Summary.KV_CACHE_HIT_RATE);
        if (hit == null) return null;
        return hit.asDouble() != 0.0;
    }

    /** The {@code result} table's rows as records; bad input naming the file, table row and column. */
    private static List<RequestRecord> rows(Path db, long nowMillis) {
        Properties p = new Properties();
        p.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY
        List<RequestRecord> records = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), p);
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT start_time, first_chunk_latency, inter_token_latencies, latency, "
                     + "prompt_tokens, completion_tokens, success, is_stream, completed_time FROM result "
                     + "ORDER BY start_time, rowid")) {
            List<double[]> raw = new ArrayList<>();
            List<double[]> gaps = new ArrayList<>();
            List<Boolean> streams = new ArrayList<>();
            int row = 0;
            while (rs.next()) {
                row++;
                double start = rs.getDouble(1);
                if (rs.wasNull()) throw new BadInputException(db + ": result row " + row + ": start_time: missing");
                double ttft = rs.getDouble(2);
                if (rs.wasNull()) ttft = Double.NaN;
                String itl = rs.getString(3);
                double[] g;
                try {
                    JsonNode n = itl == null ? ForeignFile.MAPPER.createArrayNode() : ForeignFile.MAPPER.readTree(itl);
                    if (!n.isArray()) throw new BadInputException(db + ": result row " + row
                            + ": inter_token_latencies: expected a JSON array of seconds");
                    g = new double[n.size()];
                    for (int i = 0; i < n.size(); i++) g[i] = n.get(i).asDouble();
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new BadInputException(db + ": result row " + row + ": inter_token_latencies: not JSON");
                }
                double latency = rs.getDouble(4);
                int prompt = rs.getInt(5);
                int completion = rs.getInt(6);
                boolean success = rs.getInt(7) != 0;
                boolean stream = rs.getInt(8) != 0;
                raw.add(new double[] {start, ttft, latency, prompt, completion, success ? 1 : 0});
                gaps.add(g);
                streams.add(stream);
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
