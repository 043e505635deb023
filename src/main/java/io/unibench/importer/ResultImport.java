package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.metrics.Summary;
import io.unibench.store.ImportedRun;
import io.unibench.store.RunStart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code unibench runs import}'s reading: files and folders of other tools' results, each format recognised by its
 * content (or forced), read whole before anything is stored so a bad file stores nothing.
 */
public final class ResultImport {
    private ResultImport() {}

    /**
     * The runs in {@code paths}: an evalscope point folder (or a folder of them: one run), a vLLM result JSON, or a
     * folder holding any of these (searched below).
     *
     * @param forced the format {@code --format} named, or null to recognise each by content
     */
    public static List<Foreign> read(List<Path> paths, ForeignFormat forced, long nowMillis) {
        List<Foreign> runs = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.exists(p)) throw new BadInputException(p + ": no such file or folder");
            if (Files.isDirectory(p)) readFolder(p, forced, nowMillis, runs);
            else runs.add(readFile(p, forced, nowMillis));
        }
        return runs;
    }

    private static void readFolder(Path dir, ForeignFormat forced, long nowMillis, List<Foreign> runs) {
        if (EvalscopePerf.isPoint(dir)) {
            runs.add(check(forced, ForeignFormat.EVALSCOPE_PERF, dir, EvalscopePerf.read(List.of(dir), nowMillis)));
            return;
        }
        List<Path> children;
        try (Stream<Path> s = Files.list(dir)) {
            children = s.sorted().toList();
        } catch (IOException e) {
            throw BadInputException.io("runs import", dir, e);
        }
        List<Path> points = children.stream().filter(Files::isDirectory).filter(EvalscopePerf::isPoint).toList();
        // AIPerf's records and aggregate side by side are one run: read once, from the records
        boolean aiperfPair = children.stream().anyMatch(c -> c.getFileName().toString().equals(AiperfExport.RECORDS))
                && children.stream().anyMatch(c -> c.getFileName().toString().equals(AiperfExport.AGGREGATE));
        if (!points.isEmpty()) {
            runs.add(check(forced, ForeignFormat.EVALSCOPE_PERF, dir, EvalscopePerf.read(points, nowMillis)));
        }
        int before = runs.size();
        for (Path c : children) {
            if (Files.isDirectory(c) && !points.contains(c)) readFolder(c, forced, nowMillis, runs);
            else if (aiperfPair && c.getFileName().toString().equals(AiperfExport.AGGREGATE)) continue;
            else if (Files.isRegularFile(c) && c.getFileName().toString().matches(".*\\.(json|jsonl|ya?ml)$")) {
                Foreign run = recognised(ForeignFile.read(c), forced, nowMillis);
                if (run != null) runs.add(run);
            }
        }
        if (runs.isEmpty() && before == 0 && points.isEmpty()) {
            throw new BadInputException(dir + ": no result of a tool runs import reads (evalscope perf's "
                    + EvalscopePerf.SUMMARY + ", vLLM bench serve's result JSON)");
        }
    }

    private static Foreign readFile(Path file, ForeignFormat forced, long nowMillis) {
        String name = file.getFileName().toString();
        if (forced == ForeignFormat.EVALSCOPE_PERF || (forced == null && (name.equals(EvalscopePerf.SUMMARY)
                || name.equals(EvalscopePerf.PERCENTILES) || name.equals(EvalscopePerf.ARGS)))) {
            Path dir = file.toAbsolutePath().getParent();
            if (!EvalscopePerf.isPoint(dir)) {
                throw new BadInputException(file + ": an evalscope perf file without " + EvalscopePerf.SUMMARY
                        + " beside it");
            }
            return EvalscopePerf.read(List.of(dir), nowMillis);
        }
        ForeignFile f = ForeignFile.read(file);
        Foreign run = recognised(f, forced, nowMillis);
        if (run != null) return run;
        throw f.error("", "not a result runs import recognises (vLLM bench serve's JSON has mean_ttft_ms and backend, "
                + "AIPerf's profile_export.jsonl a metadata.request_start_ns per line and its profile_export_aiperf.json an "
                + "input_config, GuideLLM's report benchmarks of type generative_benchmark, a Benchmark Report version "
                + "0.2 and results; evalscope perf's is a folder with " + EvalscopePerf.SUMMARY + "); --format names one");
    }

    /** The file read as the format forced, or the one its content shows; null when none. */
    private static Foreign recognised(ForeignFile f, ForeignFormat forced, long nowMillis) {
        if ((forced == ForeignFormat.AIPERF && f.path.toString().endsWith(".jsonl"))
                || (forced == null && f.path.toString().endsWith(".jsonl"))) {
            if (forced == null && !AiperfExport.recognises(AiperfExport.firstLine(f))) return null;
            return AiperfExport.read(f, nowMillis);
        }
        JsonNode root = f.json();
        if (forced == ForeignFormat.VLLM_BENCH_SERVE || (forced == null && VllmBenchServe.recognises(root))) {
            return VllmBenchServe.read(f, root, nowMillis);
        }
        if (forced == ForeignFormat.BR_V0_2 || (forced == null && BenchmarkReport.recognises(root))) {
            return BenchmarkReport.read(f, root, nowMillis);
        }
        if (forced == ForeignFormat.GUIDELLM || (forced == null && GuidellmReport.recognises(root))) {
            return GuidellmReport.read(f, root, nowMillis);
        }
        if (forced == ForeignFormat.AIPERF || (forced == null && AiperfExport.recognisesAggregate(root))) {
            if (!AiperfExport.recognisesAggregate(root)) {
                throw f.error("/input_config", "missing: not AIPerf's " + AiperfExport.AGGREGATE + " or records");
            }
            return AiperfExport.readAggregate(f, root, nowMillis);
        }
        return null;
    }

    private static Foreign check(ForeignFormat forced, ForeignFormat found, Path where, Foreign run) {
        if (forced != null && forced != found) {
            throw new BadInputException(where + ": --format " + forced.flag() + ", but this is " + found.tool()
                    + "'s output");
        }
        return run;
    }

    /** A run read again: the files it was read from and the stored run already imported from them. */
    public record Duplicate(Foreign run, String file, String storedAs) {}

    /**
     * The first of {@code runs} whose files (by their SHA-256 sums, all of them) are already a stored run's, or
     * null: importing the same files again would store the same run twice. The same files read twice in one import
     * (a file named twice, or also found in a folder named) are bad input naming both.
     */
    public static Duplicate firstDuplicate(io.unibench.store.RunStore store, List<Foreign> runs)
            throws java.sql.SQLException {
        Map<java.util.Set<String>, String> read = new java.util.HashMap<>();
        for (Foreign f : runs) {
            List<String> sums = f.files().values().stream().map(String::valueOf).toList();
            String first = f.files().keySet().iterator().next();
            String twice = read.putIfAbsent(new java.util.HashSet<>(sums), first);
            if (twice != null) throw new BadInputException(first + ": the same files as " + twice + ", read twice");
            String id = store.importedAs(sums);
            if (id != null) return new Duplicate(f, f.files().keySet().iterator().next(), id);
        }
        return null;
    }

    /** The run as it is stored: the source's arguments (secrets masked) as configuration, the source in the environment. */
    public static ImportedRun toStored(Foreign f, List<String> tags, String name) {
        JsonNode args = f.args() == null ? null : masked(f.args().deepCopy());
        String model = args == null ? null : text(args, "/model_id", "/model", "/stack/0/standardized/model/name",
                "/load/native/config/server/model_name");
        String url = args == null ? null : text(args, "/url", "/base_url", "/load/native/config/server/base_url");
        if (url != null) url = Secrets.maskUserInfo(url);
        ObjectNode config = ForeignFile.MAPPER.createObjectNode();
        config.put("imported_from", f.format().flag());
        if (args != null) config.set("source_args", args);
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("source_tool", f.format().tool());
        env.put("source_version", f.version() == null ? "not recorded in its files" : f.version());
        env.put("source_files", f.files());
        if (hasRows(f)) env.put(ImportedRun.NOT_MEASURED_FIELDS, ForeignPoints.STAND_IN_FIELDS);
        env.put("not_measured", String.join(", ", lacks(f)) + " (absent, never zero)");
        // ended: the last point's end where the source gives its duration
        long ended = f.startedAtMillis();
        for (ImportedRun.Point p : f.points()) {
            if (p.summary() != null && p.summary().get(Summary.TEST_DURATION) instanceof Number d
                    && Double.isFinite(d.doubleValue()) && d.doubleValue() > 0) {
                ended = Math.max(ended, p.startedAtMillis() + Math.round(d.doubleValue() * 1e3));
            }
        }
        return new ImportedRun(new RunStart(name, tags, model, url, config, env), f.startedAtMillis(), ended,
                f.points());
    }

    /**
     * What the run did not measure or keep: the format's list, and with per-request rows the fields its rows hold
     * stand-ins for ({@link ImportedRun#NOT_MEASURED_FIELDS}).
     */
    public static List<String> lacks(Foreign f) {
        if (!hasRows(f)) return f.lacks();
        List<String> lacks = new ArrayList<>(f.lacks());
        lacks.add(ForeignPoints.STAND_IN_LACKS);
        return lacks;
    }

    private static boolean hasRows(Foreign f) {
        return f.points().stream().anyMatch(p -> !p.requests().isEmpty());
    }

    private static String text(JsonNode args, String... keys) {
        for (String k : keys) if (args.at(k).isTextual()) return args.at(k).asText();
        return null;
    }

    /** Keys, credential headers and URL user info masked before anything reaches the store. */
    private static JsonNode masked(JsonNode n) {
        if (n instanceof ObjectNode o) {
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            for (String k : names) {
                JsonNode v = o.get(k);
                if (k.equals("headers") && v instanceof ObjectNode h) {
                    h.properties().forEach(e -> {
                        if (e.getValue().isTextual()) e.setValue(ForeignFile.MAPPER.getNodeFactory()
                                .textNode(Secrets.headerValue(e.getKey(), e.getValue().asText())));
                    });
                } else if (v.isTextual() && SECRET_ARG.matcher(k).find()) {
                    o.put(k, Secrets.mask(v.asText()));
                } else if (v.isTextual()) {
                    o.put(k, Secrets.redact(v.asText()));
                } else {
                    masked(v);
                }
            }
        } else if (n.isArray()) {
            n.forEach(ResultImport::masked);
        }
        return n;
    }

    /** An argument holding a credential ({@code api_key}, {@code wandb_api_key}, a secret, a password). */
    private static final java.util.regex.Pattern SECRET_ARG =
            java.util.regex.Pattern.compile("(?i)(key|secret|password|passwd|authorization|cookie)$");
}
