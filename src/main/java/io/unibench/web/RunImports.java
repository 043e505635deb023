package io.unibench.web;

import static io.unibench.web.Route.param;
import static io.unibench.web.Route.required;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.unibench.BadInputException;
import io.unibench.importer.Foreign;
import io.unibench.importer.ForeignFormat;
import io.unibench.importer.ResultImport;
import io.unibench.importer.Uploads;
import io.unibench.store.ImportedRun;
import io.unibench.store.Owner;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The platform's side of {@code runs import} and {@code runs export --format br-v0.2}: a result file, the files of
 * one folder or a zip of a folder uploaded (the API's raw or multipart body, the runs page's form; {@link Uploads})
 * is read as the command reads it — recognised by content, a bad file one
 * located line (400) and nothing stored — and a run downloads as a Benchmark Report v0.2. Writes pass the same
 * same-origin rule and token as every write ({@link RequestGuard}, {@link Auth}: the server's before-handler).
 */
final class RunImports {
    /** The largest file the platform takes (a larger one: {@code unibench runs import} on the machine). */
    static final long MAX_UPLOAD_BYTES = 16L << 20;

    private final RunStore store;
    private final RunsApi api;
    private final Owner owner = Owner.current();

    RunImports(RunStore store, RunsApi api) {
        this.store = store;
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.api("post", "/api/runs/import", "Imports another tool's results (what `unibench runs import "
                        + "PATH` reads): the body is one file as it is — vLLM bench serve JSON, AIPerf "
                        + "profile_export.jsonl or profile_export_aiperf.json, a GuideLLM report, a Benchmark Report "
                        + "v0.2, or a zip of a folder (an evalscope perf output folder) — or multipart/form-data with "
                        + "several `file` parts, the files of one folder (an evalscope perf point folder's "
                        + "benchmark_summary.json, benchmark_percentile.json, benchmark_args.json, benchmark_data.db); "
                        + "at most " + (MAX_UPLOAD_BYTES >> 20) + " MiB in all, a zip expanding to at most "
                        + (Uploads.MAX_EXPANDED_BYTES >> 20) + " MiB in " + Uploads.MAX_ENTRIES + " entries. Answers "
                        + "{runs: [{id, tool, version, points, requests, not_measured}]}; a bad file 400 with its "
                        + "located line, nothing stored; files already imported (by their SHA-256) 409 naming the "
                        + "run they are stored as ({error, run, link}), nothing stored, unless again=true.",
                        "application/json", this::importApi,
                        param("file", "the body's file name (its extension tells .jsonl and .yaml); required unless "
                                + "the body is multipart"),
                        param("format", "read as this format (" + formats() + "); default: recognised by content"),
                        param("tag", "a tag for the imported run (repeatable)"), param("name", "the run's name"),
                        param("again", "true: store the run even when its files were imported before (default: 409)"))
                        .with(201, List.of("application/octet-stream", "application/zip", "application/json",
                                "multipart/form-data")),
                Route.page("post", "/runs/import", this::importForm),
                Route.api("get", "/api/runs/{id}/export", "The run's last point as llm-d's Benchmark Report v0.2 "
                        + "(what `unibench runs export RUN --format br-v0.2` writes), as a download.",
                        "application/json", this::export, param("format", "br-v0.2 (the default; the only one yet)")));
    }

    static String formats() {
        return String.join(", ", java.util.Arrays.stream(ForeignFormat.values()).map(ForeignFormat::flag).toList());
    }

    private void importApi(Context ctx) throws Exception {
        List<Uploads.Part> parts;
        if (ctx.isMultipartFormData()) {
            parts = parts(ctx);
        } else {
            String file = ctx.queryParam("file");
            if (file == null || file.isBlank()) throw ApiError.badRequest("file: missing, the uploaded file's name");
            try (InputStream in = ctx.bodyInputStream()) {
                parts = List.of(new Uploads.Part(file, bounded(in, file, 0)));
            }
        }
        List<Map<String, Object>> stored = store(parts, ctx.queryParam("format"), ctx.queryParams("tag"),
                ctx.queryParam("name"), "true".equals(ctx.queryParam("again")));
        ctx.status(201);
        WebServer.json(ctx, Map.of("runs", stored));
    }

    /**
     * The runs page's form (multipart: its files — chosen files or a chosen folder — format, tag): to the imported
     * run's page, or the located line.
     */
    private void importForm(Context ctx) throws Exception {
        List<Uploads.Part> parts = parts(ctx);
        String tag = ctx.formParam("tag");
        String name = ctx.formParam("name");
        List<Map<String, Object>> stored = store(parts, ctx.formParam("format"),
                tag == null || tag.isBlank() ? List.of() : List.of(tag.strip()),
                name == null || name.isBlank() ? null : name.strip(), "true".equals(ctx.formParam("again")));
        ctx.redirect("/runs/" + stored.getFirst().get("id"), io.javalin.http.HttpStatus.SEE_OTHER);
    }

    /** A multipart upload's {@code file} parts (a form's empty file input sends one without a name: skipped). */
    private static List<Uploads.Part> parts(Context ctx) throws IOException {
        List<Uploads.Part> parts = new ArrayList<>();
        long total = 0;
        for (UploadedFile upload : ctx.uploadedFiles("file")) {
            if (upload.filename() == null || upload.filename().isBlank()) continue;
            byte[] bytes;
            try (InputStream in = upload.content()) {
                bytes = bounded(in, upload.filename(), total);
            }
            total += bytes.length;
            parts.add(new Uploads.Part(upload.filename(), bytes));
        }
        if (parts.isEmpty()) throw ApiError.badRequest("file: choose a result file, several files or a folder to import");
        return parts;
    }

    /** An upload's bytes; 413 when they and the {@code before} bytes already taken pass {@link #MAX_UPLOAD_BYTES}. */
    private static byte[] bounded(InputStream in, String file, long before) throws IOException {
        byte[] bytes = in.readNBytes((int) (MAX_UPLOAD_BYTES - before) + 1);
        if (before + bytes.length > MAX_UPLOAD_BYTES) {
            throw new ApiError(413, (before > 0 ? "the uploaded files" : shown(file)) + ": larger than "
                    + (MAX_UPLOAD_BYTES >> 20) + " MiB, the most the platform takes; import it with unibench runs "
                    + "import on the machine");
        }
        if (bytes.length == 0) throw ApiError.badRequest(shown(file) + ": empty file");
        return bytes;
    }

    /** Reads every run of the upload first, then stores each (one transaction each): a bad file stores nothing. */
    private List<Map<String, Object>> store(List<Uploads.Part> parts, String format, List<String> tags, String name,
                                            boolean again) throws Exception {
        ForeignFormat forced = format == null || format.isBlank() ? null : ForeignFormat.of(format);
        List<Foreign> runs = Uploads.read(parts, forced, System.currentTimeMillis());
        ResultImport.Duplicate dup = again ? null : ResultImport.firstDuplicate(store, runs);
        if (dup != null) {
            throw new ApiError(409, shown(dup.file()) + ": already imported as run " + dup.storedAs()
                    + "; again=true to store another copy", "/runs/" + dup.storedAs());
        }
        List<ImportedRun> toStore = new ArrayList<>();
        for (Foreign f : runs) toStore.add(ResultImport.toStored(f, tags, name));
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            String id = store.storeImported(toStore.get(i), owner);
            Foreign f = runs.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("tool", f.format().tool());
            m.put("version", f.version());
            m.put("points", f.points().size());
            m.put("requests", toStore.get(i).points().stream().mapToLong(p -> p.requests().size()).sum());
            m.put("not_measured", ResultImport.lacks(f));
            out.add(m);
        }
        return out;
    }

    private void export(Context ctx) throws Exception {
        String format = ctx.queryParam("format") == null ? "br-v0.2" : ctx.queryParam("format");
        if (!"br-v0.2".equals(format)) throw ApiError.badRequest("format '" + format + "': br-v0.2");
        StoredRun run = api.load(ctx.pathParam("id"));
        Map<String, Object> doc;
        try {
            doc = io.unibench.importer.BenchmarkReport.export(run);
        } catch (BadInputException e) {
            throw new ApiError(409, e.getMessage());
        }
        ctx.header("Content-Disposition", "attachment; filename=\"" + run.runId() + "-br-v0.2.json\"");
        WebServer.json(ctx, doc);
    }

    /** The name an error shows for an upload: the file's own name, never a path of the service. */
    private static String shown(String file) {
        String n = file.replace('\\', '/');
        return n.substring(n.lastIndexOf('/') + 1);
    }
}
