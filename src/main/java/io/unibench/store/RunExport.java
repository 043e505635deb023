package io.unibench.store;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.RequestFields;
import io.unibench.metrics.RequestRecord;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code runs export}: a stored run as one JSON document, or as CSV tables (one row per sweep point with every
 * summary key; one row per request with the fields of {@link RequestFields}). Requests are streamed from the
 * database, never all held in memory.
 *
 * <p>JSON: {@code {"run": {run_id, name, status, …, tags, config, environment}, "points": [{index, label,
 * concurrency, rate, number, started_at, summary, percentiles, workload, errors, requests: […]}]}}.
 */
public final class RunExport {
    private RunExport() {}

    /** Writes the document to {@code out}, which stays open (stdout or the caller's file). */
    public static void json(RunStore store, StoredRun run, Writer out) throws IOException, SQLException {
        boolean[] absent = notMeasured(run);
        try (JsonGenerator g = ResultJson.MAPPER.getFactory().createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeFieldName("run");
            g.writeStartObject();
            RunRow r = run.row();
            g.writeStringField("run_id", r.runId());
            g.writeStringField("name", r.name());
            g.writeStringField("model", r.model());
            g.writeStringField("url", r.url());
            g.writeStringField("status", r.status());
            g.writeNumberField("started_at", r.startedAt());
            if (r.endedAt() == null) g.writeNullField("ended_at");
            else g.writeNumberField("ended_at", r.endedAt());
            g.writeNumberField("request_count", r.requestCount());
            g.writeNumberField("success_count", r.successCount());
            g.writeStringField("config_key", r.configKey());
            g.writeArrayFieldStart("tags");
            for (String t : r.tags()) g.writeString(t);
            g.writeEndArray();
            tree(g, "config", run.config());
            tree(g, "environment", run.environment());
            g.writeEndObject();
            g.writeArrayFieldStart("points");
            for (StoredPoint p : run.points()) {
                g.writeStartObject();
                g.writeNumberField("index", p.index());
                g.writeStringField("label", p.label());
                g.writeNumberField("concurrency", p.concurrency());
                g.writeNumberField("rate", p.rate());
                g.writeNumberField("number", p.number());
                g.writeNumberField("started_at", p.startedAt());
                tree(g, "summary", p.summary());
                tree(g, "percentiles", p.percentiles());
                tree(g, "workload", p.workload());
                tree(g, "errors", p.errors());
                g.writeArrayFieldStart("requests");
                store.forEachRequest(run.runId(), p.index(), rec -> writeRequest(g, rec, null, absent));
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * One JSON object a line per request, in point order: the fields of {@link RequestFields#EXPORT} after
     * {@code point} and {@code label}. Streamed from the database like the CSV.
     */
    public static void requestsJsonl(RunStore store, StoredRun run, OutputStream out) throws IOException, SQLException {
        boolean[] absent = notMeasured(run);
        try (JsonGenerator g = ResultJson.MAPPER.getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.setRootValueSeparator(new com.fasterxml.jackson.core.io.SerializedString("\n"));
            for (StoredPoint p : run.points()) {
                store.forEachRequest(run.runId(), p.index(), rec -> writeRequest(g, rec, p, absent));
            }
            g.writeRaw('\n');
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static void tree(JsonGenerator g, String name, JsonNode node) throws IOException {
        g.writeFieldName(name);
        if (node == null) g.writeNull();
        else g.writeTree(node);
    }

    /**
     * Which of {@link RequestFields#EXPORT} the run says it did not measure (an imported run's
     * {@link ImportedRun#NOT_MEASURED_FIELDS}): written null, not the value its rows hold in their place.
     */
    static boolean[] notMeasured(StoredRun run) {
        boolean[] absent = new boolean[RequestFields.EXPORT.size()];
        JsonNode names = run.environment() == null ? null : run.environment().get(ImportedRun.NOT_MEASURED_FIELDS);
        if (names == null || !names.isArray()) return absent;
        Set<String> named = new java.util.HashSet<>();
        names.forEach(n -> named.add(n.asText()));
        for (int i = 0; i < absent.length; i++) absent[i] = named.contains(RequestFields.EXPORT.get(i).name());
        return absent;
    }

    /**
     * The request's object; with {@code point}, its index and label first (a line of the JSONL export); the fields
     * {@code absent} marks null.
     */
    private static void writeRequest(JsonGenerator g, RequestRecord rec, StoredPoint point, boolean[] absent) {
        try {
            g.writeStartObject();
            if (point != null) {
                g.writeNumberField("point", point.index());
                g.writeStringField("label", point.label());
            }
            for (int i = 0; i < absent.length; i++) {
                RequestFields.Field f = RequestFields.EXPORT.get(i);
                Object v = absent[i] ? null : f.value(rec, 0); // stored moments count from the point's start
                g.writeFieldName(f.name());
                switch (v) {
                    case null -> g.writeNull();
                    case Long l -> g.writeNumber(l);
                    case Double d -> g.writeNumber(d);
                    case Boolean b -> g.writeBoolean(b);
                    case String s -> g.writeString(s);
                    case double[] a -> g.writeArray(a, 0, a.length);
                    default -> throw new IllegalStateException("field " + f.name());
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One row per sweep point: run and point identity, then every summary key any point has. */
    public static void summaryCsv(StoredRun run, Writer out) throws IOException {
        Set<String> keys = new LinkedHashSet<>();
        for (StoredPoint p : run.points()) {
            if (p.summary() != null) p.summary().fieldNames().forEachRemaining(keys::add);
        }
        List<String> header = new ArrayList<>(List.of("run_id", "point", "label", "concurrency", "rate", "number"));
        header.addAll(keys);
        line(out, header);
        for (StoredPoint p : run.points()) {
            List<String> cells = new ArrayList<>(List.of(run.runId(), Integer.toString(p.index()), p.label(),
                    Integer.toString(p.concurrency()), num(p.rate()), Integer.toString(p.number())));
            for (String k : keys) {
                JsonNode v = p.summary() == null ? null : p.summary().get(k);
                cells.add(v == null || v.isNull() ? "" : v.isNumber() ? num(v.asDouble()) : v.asText());
            }
            line(out, cells);
        }
        out.flush();
    }

    /** One row per request: run id, point, label, then {@link RequestFields#EXPORT}; arrays space-separated. */
    public static void requestsCsv(RunStore store, StoredRun run, Writer out) throws IOException, SQLException {
        List<String> header = new ArrayList<>(List.of("run_id", "point", "label"));
        for (RequestFields.Field f : RequestFields.EXPORT) header.add(f.name());
        line(out, header);
        boolean[] absent = notMeasured(run);
        try {
            for (StoredPoint p : run.points()) {
                store.forEachRequest(run.runId(), p.index(), rec -> {
                    List<String> cells = new ArrayList<>(header.size());
                    cells.add(run.runId());
                    cells.add(Integer.toString(p.index()));
                    cells.add(p.label());
                    for (int i = 0; i < absent.length; i++) {
                        cells.add(absent[i] ? "" : cell(RequestFields.EXPORT.get(i).value(rec, 0)));
                    }
                    try {
                        line(out, cells);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        out.flush();
    }

    private static String cell(Object v) {
        return switch (v) {
            case null -> "";
            case Double d -> num(d);
            case double[] a -> {
                StringBuilder sb = new StringBuilder();
                for (double d : a) sb.append(sb.isEmpty() ? "" : " ").append(num(d));
                yield sb.toString();
            }
            default -> v.toString();
        };
    }

    /** Shortest text that reads back as the same double. */
    private static String num(double d) {
        return Double.toString(d).toLowerCase(Locale.ROOT);
    }

    private static void line(Writer out, List<String> cells) throws IOException {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) out.write(',');
            out.write(quote(cells.get(i)));
        }
        out.write("\r\n");
    }

    /** RFC 4180: quote a cell holding a comma, quote, CR or LF; double the quotes. */
    static String quote(String s) {
        if (s == null) return "";
        boolean needs = s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
        return needs ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }
}
