package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.engine.live.RunFinished;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A run whose executor dies of an {@link Error} (the OutOfMemoryError of a run too large for the heap): it ends
 * {@code failed} at once with the reason, and can be deleted; one whose end could not even be stored (its executor
 * died while reporting) can still be cancelled, then deleted. Before, such a run stayed {@code running} for good:
 * cancel said 409, delete said 409, its page polled until the service restarted.
 */
class RunExecutorDeathTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private static final String DOC = """
            name: dies
            provider: {name: p, base_url: sim, model: m}
            concurrency: {levels: [1], requests_per_level: 1}
            scenarios:
              - {name: qa, type: chat, prompt: hi}
            """;

    /** A service whose every run's executor throws what {@code death} makes. */
    private WebServer serve(RunStore store, StoreLocation location, Supplier<Throwable> death, StringWriter log)
            throws Exception {
        RunLauncher launcher = new RunLauncher() {
            @Override
            public RunFinished run(Launch launch) throws Exception {
                Throwable t = death.get();
                if (t instanceof Error e) throw e;
                throw (Exception) t;
            }

            @Override
            public String testConnection(io.unibench.scenario.BenchConfig config) {
                return "ok";
            }
        };
        return WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location,
                new RunService(launcher, 1, java.util.Map.of()), "test", new PrintWriter(log, true));
    }

    private String create(WebServer server) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base(server) + "/api/runs"))
                .header("Content-Type", "application/yaml").POST(HttpRequest.BodyPublishers.ofString(DOC)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String id = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("id").asText();
        // its live stream ends once the queue let go of the run
        http.send(HttpRequest.newBuilder(URI.create(base(server) + "/api/runs/" + id + "/events"))
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofLines()).body().toList();
        return id;
    }

    private static String base(WebServer server) {
        return "http://127.0.0.1:" + server.port();
    }

    private HttpResponse<String> send(WebServer server, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base(server) + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anOutOfMemoryErrorEndsTheRunFailedWithItsReasonAndItCanBeDeleted() throws Exception {
        StoreLocation location = StoreLocation.sqlite(dir.resolve("oom.db"));
        StringWriter log = new StringWriter();
        try (RunStore store = RunStore.open(location);
             WebServer server = serve(store, location, () -> new OutOfMemoryError("Java heap space"), log)) {
            String id = create(server);
            RunRow row = store.run(id).row();
            assertThat(row.status()).as(log.toString()).isEqualTo(RunRow.FAILED);
            assertThat(row.statusReason()).contains("OutOfMemoryError").contains("Java heap space");
            assertThat(send(server, "DELETE", "/api/runs/" + id).statusCode()).isBetween(200, 204);
        }
    }

    /** An Error whose message cannot even be read: the executor dies while reporting, the end is never stored. */
    private static final class Unreportable extends Error {
        @Override
        public String getMessage() {
            throw new IllegalStateException("no message either");
        }
    }

    @Test
    void aRunWhoseEndWasNeverStoredCanStillBeCancelledAndDeleted() throws Exception {
        StoreLocation location = StoreLocation.sqlite(dir.resolve("orphan.db"));
        StringWriter log = new StringWriter();
        try (RunStore store = RunStore.open(location);
             WebServer server = serve(store, location, Unreportable::new, log)) {
            String id = create(server);
            assertThat(store.run(id).row().status()).isEqualTo(RunRow.RUNNING); // what the store was left saying
            HttpResponse<String> cancel = send(server, "POST", "/api/runs/" + id + "/cancel");
            assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(202);
            assertThat(store.run(id).row().status()).isEqualTo(RunRow.CANCELLED);
            assertThat(store.run(id).row().statusReason()).contains("executor");
            assertThat(send(server, "DELETE", "/api/runs/" + id).statusCode()).isBetween(200, 204);
        }
    }
}
