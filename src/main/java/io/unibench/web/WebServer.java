package io.unibench.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.http.staticfiles.Location;
import io.unibench.BadInputException;
import io.unibench.schedule.RoundLauncher;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code unibench serve}: Jetty (through Javalin) on virtual threads, the REST API, the pages and their assets,
 * all over one open run store. Handlers are plain blocking code; the store serialises its own calls, and a
 * download of a run's requests reads through a connection of its own so a long export blocks no page.
 */
public final class WebServer implements AutoCloseable {
    /** Largest request body accepted (the login form, scenario documents): 1 MiB. */
    static final long MAX_BODY_BYTES = 1 << 20;
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final Javalin app;
    private final RunQueue queue;
    private final List<Route> routes;
    private final SchedulePages schedules;
    private final RoundLauncher rounds;
    private final GroupMerger merger; // sharded runs merged once their last shard ended

    private WebServer(Javalin app, RunQueue queue, List<Route> routes, SchedulePages schedules, RoundLauncher rounds,
                      GroupMerger merger) {
        this.app = app;
        this.queue = queue;
        this.routes = routes;
        this.schedules = schedules;
        this.rounds = rounds;
        this.merger = merger;
    }

    /** Starts listening; {@code config.port() == 0} takes a free port ({@link #port()}). */
    public static WebServer start(WebConfig config, RunStore store, StoreLocation location, RunService service,
                                  String version, PrintWriter log) throws java.sql.SQLException {
        Auth auth = new Auth(config.token(), config.https(), System::currentTimeMillis);
        RequestGuard guard = new RequestGuard(WebConfig.loopback(config.host()), config.host(), config.publicUrl());
        ServiceMetrics metrics = new ServiceMetrics(System.currentTimeMillis(), () -> {
            try {
                return store.count();
            } catch (SQLException e) {
                return -1;
            }
        });
        RunQueue queue = new RunQueue(store, location, service.launcher(), service.maxConcurrentRuns(), log);
        RunsApi api = new RunsApi(store, location, queue);
        RunControl control = new RunControl(store, api, queue, service);
        Pages pages = new Pages(store, api, auth);
        List<Route> routes = new ArrayList<>();
        routes.add(Route.api("get", "/healthz", "Liveness: 200 and {\"status\": \"ok\"} while the service runs.",
                "application/json", ctx -> json(ctx, Map.of("status", "ok"))));
        routes.add(Route.api("get", "/metrics", "The service's own metrics, Prometheus text format.",
                "text/plain", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                        .result(metrics.render(System.currentTimeMillis()))));
        routes.addAll(api.routes());
        routes.addAll(control.routes());
        routes.addAll(new RunImports(store, api).routes());
        routes.add(new LiveStream(store, api, queue).route());
        routes.add(Route.api("get", "/api/openapi.json", "This document.", "application/json",
                ctx -> json(ctx, OpenApi.document(routes, version, auth.required()))));
        routes.add(Route.page("get", "/api", ctx -> ctx.html(Html.render("api.jte",
                OpenApi.reference(OpenApi.document(routes, version, auth.required()), auth.required())))));
        routes.add(Route.page("get", "/favicon.ico", ctx -> ctx.contentType("image/svg+xml")
                .header("Cache-Control", "max-age=86400").result(Pages.favicon())));
        routes.addAll(pages.routes());
        SchedulePages schedules = SchedulePages.open(location, store, service);
        routes.addAll(schedules.routes());

        Javalin app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.concurrency.useVirtualThreads = true;
            cfg.http.maxRequestSize = MAX_BODY_BYTES;
            // the runs page's import form: one result file, as large as the import API takes (RunImports)
            cfg.jetty.multipartConfig.maxFileSize(RunImports.MAX_UPLOAD_BYTES, io.javalin.config.SizeUnit.BYTES);
            cfg.jetty.multipartConfig.maxTotalRequestSize(RunImports.MAX_UPLOAD_BYTES + (1 << 16),
                    io.javalin.config.SizeUnit.BYTES);
            cfg.jetty.host = config.host();
            cfg.jetty.port = config.port();
            cfg.staticFiles.add(sf -> {
                sf.hostedPath = "/static";
                sf.directory = "/io/unibench/web/static";
                sf.location = Location.CLASSPATH;
            });
            cfg.staticFiles.enableWebjars();
            cfg.requestLogger.http((ctx, millis) -> metrics.record(ctx.method().name(), routeOf(ctx),
                    ctx.status().getCode(), millis));
            cfg.routes.before(ctx -> {
                guard.check(ctx);
                if (open(ctx.path()) || auth.allows(ctx)) return;
                if (ctx.path().startsWith("/api/") || ctx.path().equals("/metrics")) {
                    ctx.header("WWW-Authenticate", "Bearer");
                    throw new ApiError(401, "this service needs its token: Authorization: Bearer …");
                }
                ctx.redirect("/login");
                ctx.skipRemainingHandlers();
            });
            for (Route r : routes) cfg.routes.addEndpoint(new io.javalin.router.Endpoint(
                    HandlerType.findOrCreate(r.method().toUpperCase(java.util.Locale.ROOT)), r.path(), r.handler()));
            cfg.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status(), e.getMessage(), e.link()));
            cfg.routes.exception(ScenarioDocument.Invalid.class, RunControl::invalid);
            cfg.routes.exception(BadInputException.class, (e, ctx) -> error(ctx, 400, e.getMessage()));
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(), e.getMessage()));
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                log.println("unibench serve: " + ctx.method() + " " + ctx.path() + ": "
                        + StoreLocation.mask(String.valueOf(e)));
                error(ctx, 500, "internal error (logged by the service)");
            });
        });
        app.start();
        control.requeueAdopted();
        return new WebServer(app, queue, List.copyOf(routes), schedules,
                new QueuedRoundLauncher(store, queue, service), new GroupMerger(location, log));
    }

    /** Paths served without the token: health, the login form, the icon and the static assets (no data in them). */
    private static boolean open(String path) {
        return path.equals("/healthz") || path.equals("/login") || path.equals("/favicon.ico") || path.startsWith("/static/")
                || path.startsWith("/webjars/");
    }

    /** A browser on a page route (not the API, metrics or an SSE stream): it asked for HTML. */
    private static boolean wantsPage(Context ctx) {
        String accept = ctx.header("Accept");
        return accept != null && accept.contains("text/html") && !ctx.path().startsWith("/api/")
                && !ctx.path().equals("/metrics");
    }

    /** The route template matched ({@code /api/runs/{id}}), or "unmatched": bounded label values for metrics. */
    private static String routeOf(Context ctx) {
        try {
            String p = ctx.endpoint().path;
            return p.isEmpty() || p.equals("*") ? "unmatched" : p;
        } catch (RuntimeException none) {
            return ctx.path().startsWith("/static/") || ctx.path().startsWith("/webjars/") ? "static" : "unmatched";
        }
    }

    static void json(Context ctx, Object value) throws Exception {
        ctx.contentType("application/json").result(JSON.writeValueAsBytes(value));
    }

    static void error(Context ctx, int status, String message) {
        error(ctx, status, message, null);
    }

    /** The refusal as JSON ({@code error}, and {@code link} when given) or, to a browser, as a page linking it. */
    static void error(Context ctx, int status, String message, String link) {
        String text = message == null ? "error" : message;
        dropUnreadBody(ctx);
        try {
            ctx.status(status);
            if (wantsPage(ctx)) ctx.html(Html.render("error.jte", new Pages.ErrorModel(status, text, link)));
            else json(ctx, link == null ? Map.of("error", text) : Map.of("error", text, "link", link));
        } catch (Exception e) {
            ctx.status(500).result("{\"error\":\"internal error\"}");
        }
    }

    /**
     * Reads and drops what is left of a refused request's body (at most {@link #MAX_BODY_BYTES}) before the answer: a
     * refusal made before the body was read (a cross-site upload's 403) left it unread, and a server that closes a
     * connection with bytes unread sends a reset, which can reach the client before it read the answer (the JDK's
     * "header parser received no bytes" in WebImportTest under a loaded suite). Beyond the bound the connection is cut
     * as before: a refusal does not read a large upload.
     */
    private static void dropUnreadBody(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared == 0 || declared > MAX_BODY_BYTES) return;
        try {
            java.io.InputStream in = ctx.req().getInputStream();
            long left = MAX_BODY_BYTES;
            byte[] sink = new byte[8192];
            for (int n; left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0; ) left -= n;
        } catch (Exception e) {
            // the body was taken another way (a form, multipart) or the client went: nothing left to drop
        }
    }

    public int port() {
        return app.port();
    }

    /** The service's scheduler: the schedule pages' and API's Run now hand it their round. */
    public void attach(io.unibench.schedule.ScheduleService scheduler) {
        schedules.attach(scheduler);
    }

    /** How the service's scheduler runs a round: as a run of this server's queue, behind the runs queued before it. */
    public RoundLauncher rounds() {
        return rounds;
    }

    List<Route> routes() {
        return routes;
    }

    /** Stops running runs (they end interrupted, their reports written; queued ones wait for the next start). */
    @Override
    public void close() {
        merger.close();
        queue.close();
        app.stop();
        schedules.close();
    }
}
