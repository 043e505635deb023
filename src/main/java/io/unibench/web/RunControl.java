package io.unibench.web;

import static io.unibench.web.Route.param;

import io.javalin.http.Context;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The API that changes runs: create (validated, then queued), cancel, validate only, test a connection. */
final class RunControl {
    private final RunStore store;
    private final RunsApi api;
    private final RunQueue queue;
    private final RunService service;
    private final Owner owner = Owner.current();

    RunControl(RunStore store, RunsApi api, RunQueue queue, RunService service) {
        this.store = store;
        this.api = api;
        this.queue = queue;
        this.service = service;
    }

    List<Route> routes() {
        return List.of(
                Route.api("post", "/api/runs", "Creates a run from a scenario document (the schema of `unibench run "
                        + "--config`) or a run spec (`perf --dry-run`'s document, told apart by its spec_version; "
                        + "schema run-spec.schema.json; its outputs.root and history are the service's) sent as "
                        + "application/json or application/yaml. Validated before it is queued: "
                        + "400 with {error, problems: [{path (JSON pointer), line (YAML only), message}]}; a literal "
                        + "API key or credential header is refused (name the service's variable in api_key_env, or a "
                        + "spec's api_key.variable); the key variables and run limits apply to both, to every target of a spec. "
                        + "A spec of several targets or workloads runs each target × workload after the other, the "
                        + "first into the created run, each other into a run linked to it (linked_runs); a shard's "
                        + "spec is refused at /shard (run it with `unibench run FILE --run-group G`). "
                        + "201 with {id, status: \"queued\"}.", "application/json", this::create,
                        param("tag", "a tag for the run (repeatable)")).with(201, Route.SCENARIO_DOCUMENT),
                Route.api("post", "/api/runs/{id}/cancel", "Cancels a queued run (it never starts) or a running one "
                        + "(it stops; what ran is kept), with every provider's run of it: 202 with {id, status}; 409 "
                        + "when it has already ended.",
                        "application/json", this::cancel).with(202, List.of()),
                Route.api("post", "/api/scenarios/validate", "Validates a scenario document as POST /api/runs "
                        + "would, without queueing anything: 200 with {valid: true, name, levels, scenarios; "
                        + "request_rate (its rates) or sla_auto_tune (its variable) when the document has one} or 400 "
                        + "with its problems.", "application/json", this::validate).with(200, Route.SCENARIO_DOCUMENT),
                Route.api("post", "/api/connection-test", "Sends the document's one-token probe to its provider "
                        + "through the benchmark's client, as a run does before its first level: 200 with {ok, "
                        + "message}.", "application/json", this::testConnection).with(200, Route.SCENARIO_DOCUMENT));
    }

    private ScenarioDocument document(Context ctx) {
        return ScenarioDocument.parse(ctx.contentType(), ctx.bodyAsBytes(), service);
    }

    /** The body as a run spec when it is one ({@code spec_version}), else null (a scenario document). */
    private SpecDocument spec(Context ctx) {
        var tree = SpecDocument.specTree(ctx.contentType(), ctx.bodyAsBytes());
        return tree == null ? null : SpecDocument.parse(tree, service);
    }

    private void create(Context ctx) throws Exception {
        List<String> tags = ctx.queryParams("tag").stream().map(String::strip).filter(t -> !t.isEmpty()).toList();
        SpecDocument spec = spec(ctx);
        String id;
        if (spec != null) {
            var t = spec.spec().targets().getFirst();
            id = store.createRun(new RunStart(spec.spec().name(), tags, t.model(), t.historyUrl(), spec.tree(),
                    Map.of()), owner, System.currentTimeMillis(), RunRow.QUEUED);
            queue.submit(id, spec.spec(), spec.tree());
        } else {
            ScenarioDocument doc = document(ctx);
            var p = doc.config().providers().getFirst();
            id = store.createRun(new RunStart(doc.config().name(), tags, p.model(), p.historyUrl(), doc.tree(), Map.of()),
                    owner, System.currentTimeMillis(), RunRow.QUEUED);
            queue.submit(id, doc.config(), doc.tree());
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("status", RunRow.QUEUED);
        ctx.status(201).header("Location", "/api/runs/" + id);
        WebServer.json(ctx, m);
    }

    private void cancel(Context ctx) throws Exception {
        StoredRun run = api.load(ctx.pathParam("id"));
        if (!queue.cancel(api.serviceRun(run.runId()))) {
            throw new ApiError(409, "run " + run.runId() + " is " + store.run(run.runId()).row().status()
                    + "; only a queued or running run can be cancelled");
        }
        ctx.status(202);
        WebServer.json(ctx, Map.of("id", run.runId(), "status", store.run(run.runId()).row().status()));
    }

    private void validate(Context ctx) throws Exception {
        SpecDocument spec = spec(ctx);
        if (spec != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("valid", true);
            m.put("name", spec.spec().name());
            m.put("points", spec.spec().points().stream().map(p -> p.label()).toList());
            if (!spec.spec().sla().isEmpty()) m.put("sla_auto_tune", spec.spec().sla().getFirst().variable().name());
            WebServer.json(ctx, m);
            return;
        }
        ScenarioDocument doc = document(ctx);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("valid", true);
        m.put("name", doc.config().name());
        m.put("levels", doc.config().concurrency().levels());
        var loads = doc.config().loads(); // what replaces the concurrency levels, when something does
        if (loads.requestRate() != null) m.put("request_rate", loads.requestRate().levels());
        if (loads.sla() != null) m.put("sla_auto_tune", loads.sla().variable());
        m.put("scenarios", doc.config().scenarios().stream().map(s -> s.name()).toList());
        m.put("load", io.unibench.scenario.LoadsText.lines(doc.config())); // what will run, as run --config --check says
        WebServer.json(ctx, m);
    }

    private void testConnection(Context ctx) throws Exception {
        ScenarioDocument doc = document(ctx);
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            m.put("ok", true);
            m.put("message", service.launcher().testConnection(doc.config()));
        } catch (io.unibench.BadInputException e) {
            m.put("ok", false);
            m.put("message", io.unibench.Secrets.redact(io.unibench.engine.ConnectionTest.forPage(e.getMessage())));
        }
        WebServer.json(ctx, m);
    }

    static void invalid(ScenarioDocument.Invalid e, Context ctx) {
        try {
            ctx.status(400);
            WebServer.json(ctx, e.body());
        } catch (Exception ex) {
            WebServer.error(ctx, 400, e.getMessage());
        }
    }

    /** Unused runs of a gone service: queued again, in their order (their document is their stored configuration). */
    void requeueAdopted() throws SQLException {
        for (String id : store.adoptQueued(owner, System.currentTimeMillis())) {
            StoredRun run = store.run(id);
            try {
                if (io.unibench.engine.spec.RunSpecJson.isSpec(run.config())) {
                    SpecDocument d = SpecDocument.parse((com.fasterxml.jackson.databind.node.ObjectNode) run.config(), service);
                    queue.submit(id, d.spec(), d.tree());
                    continue;
                }
                byte[] doc = WebServer.JSON.writeValueAsBytes(run.config());
                ScenarioDocument d = ScenarioDocument.parse("application/json", doc, service);
                queue.submit(id, d.config(), d.tree());
            } catch (ScenarioDocument.Invalid | com.fasterxml.jackson.core.JsonProcessingException e) {
                store.endActive(id, RunRow.FAILED, "no longer valid when the service restarted: " + e.getMessage(),
                        System.currentTimeMillis());
            }
        }
    }
}
