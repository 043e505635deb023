package io.unibench.web;

import static io.unibench.web.Route.param;
import static io.unibench.web.Route.required;

import io.javalin.http.Context;
import io.unibench.BadInputException;
import io.unibench.store.RunComparison;
import io.unibench.store.RunExport;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The REST API over the run history: list, detail, exports, delete, compare. */
final class RunsApi {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;
    private static final List<String> STATUSES = RunRow.STATUSES;

    private final RunStore store;
    private final StoreLocation location;
    private final RunQueue queue;

    RunsApi(RunStore store, StoreLocation location, RunQueue queue) {
        this.store = store;
        this.location = location;
        this.queue = queue;
    }

    List<Route> routes() {
        return List.of(
                Route.api("get", "/api/runs", "Stored runs, newest first, a page at a time, with headline figures "
                        + "(success %, TTFT p95, latency p95, output tok/s of the last point).", "application/json",
                        this::list,
                        param("model", "model name contains (case-insensitive)"),
                        param("url", "target URL contains"), param("name", "run name contains"),
                        param("tag", "carries this tag (repeatable)"),
                        param("status", String.join(", ", STATUSES)),
                        param("since", "started at or after: YYYY-MM-DD, ISO instant or age (7d, 12h)"),
                        param("until", "started before (same forms)"),
                        param("limit", "page size, 1 … " + MAX_LIMIT + " (default " + DEFAULT_LIMIT + ")"),
                        param("cursor", "the previous page's \"next\"")),
                Route.api("get", "/api/runs/{id}", "One run: status, masked configuration, environment, every "
                        + "point's summary, percentiles, workload, errors, per-trace and per-turn tables; while queued "
                        + "its queue {position, reason}; for a run of several providers (one stored run per provider) "
                        + "linked_runs (the created run: the other providers' runs, as listed) or part_of (their "
                        + "created run's id); a sharded run's merge (group:G) also run_group, partial, partial_reasons and its "
                        + "shards.",
                        "application/json", this::detail),
                Route.api("get", "/api/runs/{id}/requests", "Every stored request, streamed from the store.",
                        "application/x-ndjson", this::requests, param("format", "jsonl (default) or csv")),
                Route.api("delete", "/api/runs/{id}", "Deletes a run that is not queued or running, with its requests "
                        + "and what belongs to it: a run of several providers with its linked runs (a linked run alone "
                        + "is deleted alone); a sharded run's merge (group:G) with its shards' runs and registrations, "
                        + "or with keep_shards=true only the merge, which is then merged again. Answers {deleted: "
                        + "[ids, the run first], released_group: G or null, shards_kept}.",
                        "application/json", this::delete,
                        param("keep_shards", "true: deleting group:G keeps its shards' runs (default false)")),
                Route.api("get", "/api/compare", "Runs B (repeat b for more) against the baseline A, points matched "
                        + "by scenario and level: per level and metric A, B, Δ, Δ%, the 95% interval of Δ and the "
                        + "verdict from the runs' requests (what `runs compare` prints).",
                        "application/json", this::compare, required("a", "run id"), required("b", "run id"),
                        param("force", "true: verdicts even where the runs' workload fingerprints differ, each "
                                + "marked \"forced; not comparable: …\" (default: refused, with the reason)")));
    }

    /** A run id from the path (full or a unique prefix): 404 when no run has it. */
    String resolve(String idOrPrefix) throws SQLException {
        try {
            return store.resolveId(idOrPrefix);
        } catch (BadInputException e) {
            throw new ApiError(e.getMessage().contains("ambiguous") ? 400 : 404, "run '" + idOrPrefix + "': "
                    + (e.getMessage().contains("ambiguous") ? "ambiguous, give more of the id" : "not found"));
        }
    }

    /** Why a queued run waits (its place and what runs), or null when it does not wait. */
    String queueReason(String runId) {
        RunQueue.Waiting w = queue.waiting(runId);
        return w == null ? null : "position " + w.position() + "; " + w.reason();
    }

    /**
     * The service run a stored run belongs to: itself, or for a provider after the first of a several-provider run
     * the queued run it is linked to, whose queue entry, live events and cancel it shares.
     */
    String serviceRun(String runId) throws SQLException {
        String parent = store.parentRun(runId);
        return parent != null ? parent : runId;
    }

    /** The runs of one service run of several providers this run belongs to (see {@link RunLinks}). */
    RunLinks links(String runId) throws SQLException {
        String parent = store.parentRun(runId);
        return new RunLinks(parent, parent != null ? List.of() : store.linkedRuns(runId));
    }

    StoredRun load(String idOrPrefix) throws SQLException {
        return store.run(resolve(idOrPrefix));
    }

    /** The shards of a sharded run's merge, or null for any other run. */
    ShardsView shards(String runId) throws SQLException {
        return ShardsView.of(io.unibench.store.MergedRuns.group(location, runId));
    }

    /** One page of runs and the headlines of its runs; {@code next} is null on the last page. */
    record Page(List<RunRow> rows, Map<String, RunViews.Headline> headlines, String next) {}

    Page page(Context ctx) throws SQLException {
        RunFilter f = filter(ctx);
        List<RunRow> rows = store.list(new RunFilter(f.model(), f.url(), f.name(), f.tags(), f.since(), f.until(),
                f.status(), f.limit() + 1, f.after()));
        String next = null;
        if (rows.size() > f.limit()) {
            rows = rows.subList(0, f.limit());
            RunRow last = rows.getLast();
            next = Base64.getUrlEncoder().withoutPadding().encodeToString(
                    (last.startedAt() + ":" + last.runId()).getBytes(StandardCharsets.UTF_8));
        }
        return new Page(rows, headlines(rows), next);
    }

    Map<String, RunViews.Headline> headlines(List<RunRow> rows) throws SQLException {
        Map<String, StoredPoint> last = store.lastPoints(rows.stream().map(RunRow::runId).toList());
        Map<String, RunViews.Headline> out = new LinkedHashMap<>();
        for (RunRow r : rows) out.put(r.runId(), RunViews.Headline.of(r, last.get(r.runId())));
        return out;
    }

    private void list(Context ctx) throws Exception {
        Page page = page(ctx);
        List<Map<String, Object>> runs = new ArrayList<>();
        for (RunRow r : page.rows()) runs.add(RunViews.listEntry(r, page.headlines().get(r.runId())));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runs", runs);
        m.put("next", page.next());
        WebServer.json(ctx, m);
    }

    static RunFilter filter(Context ctx) {
        String status = blankToNull(ctx.queryParam("status"));
        if (status != null && !STATUSES.contains(status)) {
            throw ApiError.badRequest("status '" + status + "': one of " + String.join(", ", STATUSES));
        }
        int limit = DEFAULT_LIMIT;
        String l = blankToNull(ctx.queryParam("limit"));
        if (l != null) {
            try {
                limit = Integer.parseInt(l);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) throw ApiError.badRequest("limit '" + l + "': 1 … " + MAX_LIMIT);
        }
        long now = System.currentTimeMillis();
        return new RunFilter(blankToNull(ctx.queryParam("model")), blankToNull(ctx.queryParam("url")),
                blankToNull(ctx.queryParam("name")),
                ctx.queryParams("tag").stream().filter(t -> !t.isBlank()).toList(),
                RunFilter.when("since", blankToNull(ctx.queryParam("since")), now),
                RunFilter.when("until", blankToNull(ctx.queryParam("until")), now), status, limit,
                cursor(blankToNull(ctx.queryParam("cursor"))));
    }

    private static RunFilter.Cursor cursor(String value) {
        if (value == null) return null;
        try {
            String text = new String(Base64.getUrlDecoder().decode(value), StandardCharsets.UTF_8);
            int colon = text.indexOf(':');
            return new RunFilter.Cursor(Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw ApiError.badRequest("cursor '" + value + "': not a cursor this service gave");
        }
    }

    private void detail(Context ctx) throws Exception {
        StoredRun run = load(ctx.pathParam("id"));
        Map<String, Object> m = RunViews.detail(run, headlines(List.of(run.row())).get(run.runId()));
        RunQueue.Waiting w = queue.waiting(run.runId());
        if (w != null) m.put("queue", Map.of("position", w.position(), "reason", w.reason()));
        RunLinks links = links(run.runId());
        if (links.partOf() != null) m.put("part_of", links.partOf());
        if (!links.linked().isEmpty()) {
            Map<String, RunViews.Headline> h = headlines(links.linked());
            m.put("linked_runs", links.linked().stream().map(r -> RunViews.listEntry(r, h.get(r.runId()))).toList());
        }
        ShardsView shards = shards(run.runId());
        if (shards != null) m.putAll(shards.toMap());
        WebServer.json(ctx, m);
    }

    /** Streams through a connection of its own: a download of a million rows holds no lock the pages need. */
    private void requests(Context ctx) throws Exception {
        String format = ctx.queryParam("format") == null ? "jsonl" : ctx.queryParam("format");
        if (!format.equals("jsonl") && !format.equals("csv")) {
            throw ApiError.badRequest("format '" + format + "': jsonl or csv");
        }
        StoredRun run = load(ctx.pathParam("id"));
        ctx.header("Content-Disposition", "attachment; filename=\"" + run.runId() + "-requests." + format + "\"");
        ctx.contentType(format.equals("csv") ? "text/csv; charset=utf-8" : "application/x-ndjson");
        try (RunStore reader = RunStore.open(location)) {
            OutputStream out = ctx.outputStream();
            if (format.equals("csv")) {
                RunExport.requestsCsv(reader, run, new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8),
                        1 << 16));
            } else {
                RunExport.requestsJsonl(reader, run, out);
            }
        }
    }

    private void delete(Context ctx) throws Exception {
        StoredRun run = load(ctx.pathParam("id"));
        String keep = ctx.queryParam("keep_shards");
        if (keep != null && !keep.equals("true") && !keep.equals("false")) {
            throw ApiError.badRequest("keep_shards '" + keep + "': true or false");
        }
        RunStore.Deletion d;
        try {
            d = store.deleteRun(run.runId(), "true".equals(keep));
        } catch (IllegalStateException active) {
            throw new ApiError(409, active.getMessage() + " (POST /api/runs/" + run.runId() + "/cancel)");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("deleted", d.runIds());
        m.put("released_group", d.releasedGroup());
        m.put("shards_kept", d.releasedGroup() != null && d.shardsKept());
        WebServer.json(ctx, m);
    }

    /** Runs {@code b} (one or more) against the baseline {@code a}. */
    RunComparison.Result comparison(String a, List<String> b) throws SQLException {
        return comparison(a, b, false);
    }

    /** The same, with {@code force}: verdicts even where the runs' workload fingerprints differ (marked). */
    RunComparison.Result comparison(String a, List<String> b, boolean force) throws SQLException {
        List<String> others = b == null ? List.of() : b.stream().filter(x -> x != null && !x.isBlank()).toList();
        if (a == null || a.isBlank() || others.isEmpty()) {
            throw ApiError.badRequest("compare needs a baseline and at least one other run: ?a=ID&b=ID[&b=ID…]");
        }
        StoredRun base = load(a);
        List<StoredRun> runs = new ArrayList<>();
        for (String id : others) {
            StoredRun r = load(id);
            if (r.runId().equals(base.runId()) || runs.stream().anyMatch(x -> x.runId().equals(r.runId()))) {
                throw ApiError.badRequest("compare: run " + r.runId() + " is named twice");
            }
            runs.add(r);
        }
        return RunComparison.compare(store, base, runs, force);
    }

    private void compare(Context ctx) throws Exception {
        WebServer.json(ctx, comparison(ctx.queryParam("a"), ctx.queryParams("b"),
                "true".equals(ctx.queryParam("force"))).toMap());
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
