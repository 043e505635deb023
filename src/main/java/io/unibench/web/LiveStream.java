package io.unibench.web;

import io.javalin.http.Context;
import io.unibench.engine.live.RunFinished;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code GET /api/runs/{id}/events}: a run's live events as {@code text/event-stream}, ending with the run. First a
 * {@code status} event (the stored status; for a queued run its place and why it waits, repeated while it waits),
 * then the hub's events from the run's current state on ({@code point_started}, {@code snapshot} once a second,
 * {@code point_finished}), last {@code run_finished}; a provider's run linked to a created run of several providers
 * streams that run's events (it is one session). A run that has already ended gets its {@code status} and
 * {@code run_finished} at once. Each subscriber has its own bounded queue in the hub: a slow browser loses
 * snapshots, never the run's measurements.
 */
final class LiveStream {
    /** How often a waiting stream re-checks the queue (and finds a browser that left): a status line or a comment. */
    static final long KEEPALIVE_MILLIS = 2000;

    private final RunStore store;
    private final RunsApi api;
    private final RunQueue queue;

    LiveStream(RunStore store, RunsApi api, RunQueue queue) {
        this.store = store;
        this.api = api;
        this.queue = queue;
    }

    Route route() {
        return Route.api("get", "/api/runs/{id}/events", "The run's live events (text/event-stream, one JSON object "
                + "per event): status, point_started, snapshot (once a second), point_finished, run_finished (last; "
                + "the stream ends with it). A provider's run linked to a created run of several providers streams "
                + "the whole run's.", "text/event-stream", this::events);
    }

    private void events(Context ctx) throws Exception {
        String id = api.resolve(ctx.pathParam("id"));
        ctx.res().setContentType("text/event-stream; charset=utf-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        ctx.res().setHeader("X-Accel-Buffering", "no"); // a reverse proxy must not buffer the stream
        Writer out = new Writer(ctx.res().getOutputStream());
        RunQueue.Entry entry = queue.active(api.serviceRun(id)); // a linked provider's run streams its service run's
        out.send("status", status(id));
        if (entry == null) {
            RunRow row = store.run(id).row();
            Map<String, Object> end = EventJson.runFinished(switch (row.status()) {
                case RunRow.FINISHED, RunRow.FAILED -> row.status();
                default -> "stopped"; // cancelled, interrupted
            }, row.statusReason());
            end.put("run_status", row.status());
            out.send("run_finished", end);
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        try (AutoCloseable ignored = entry.events().subscribe(e -> {
            Map<String, Object> data = EventJson.of(e);
            if (e instanceof RunFinished) data.put("run_status", storedStatus(id));
            if (!out.send(EventJson.name(e), data) || e instanceof RunFinished) done.countDown();
        })) {
            while (!done.await(KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS)) {
                boolean alive = queue.waiting(id) != null ? out.send("status", status(id)) : out.comment("alive");
                // a hub closed without a run_finished (cannot happen today) must not hold the stream open
                if (!alive || queue.active(entry.runId()) == null) break;
            }
        }
    }

    /** The stored status once the queue has stored the run's end (it publishes run_finished after that). */
    private String storedStatus(String id) {
        try {
            return store.run(id).row().status();
        } catch (java.sql.SQLException e) {
            return null;
        }
    }

    private Map<String, Object> status(String id) throws java.sql.SQLException {
        RunRow row = store.run(id).row();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", row.status());
        RunQueue.Waiting w = queue.waiting(id);
        if (w != null) {
            m.put("position", w.position());
            m.put("reason", w.reason());
        } else if (row.statusReason() != null) {
            m.put("reason", row.statusReason());
        }
        return m;
    }

    /** One stream's writes, from the hub's delivery thread and the request's own: one at a time, each flushed. */
    private static final class Writer {
        private final OutputStream out;
        private final ReentrantLock lock = new ReentrantLock();
        private boolean broken;

        Writer(OutputStream out) {
            this.out = out;
        }

        boolean send(String event, Map<String, Object> data) {
            try {
                return write("event: " + event + "\ndata: " + WebServer.JSON.writeValueAsString(data) + "\n\n");
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        boolean comment(String text) {
            return write(": " + text + "\n\n");
        }

        /** False once the browser has gone (a write failed): the stream ends. */
        private boolean write(String text) {
            lock.lock();
            try {
                if (broken) return false;
                out.write(text.getBytes(StandardCharsets.UTF_8));
                out.flush();
                return true;
            } catch (IOException e) {
                broken = true;
                return false;
            } finally {
                lock.unlock();
            }
        }
    }
}
