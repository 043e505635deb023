package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP proxy in front of the simulator that keeps every POST it forwards (path, headers, JSON body);
 * other requests (the server-metrics scrape's GET /metrics) are forwarded and not kept,
 * so a test sees exactly what unibench put on the wire and still gets the simulator's real (streamed) replies.
 */
final class CapturingProxy implements AutoCloseable {
    record Captured(String path, Map<String, String> headers, JsonNode body) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Headers the proxy does not pass on: its own connection's, and those the JDK client sets itself. */
    private static final java.util.Set<String> HOP_BY_HOP = java.util.Set.of("host", "connection", "content-length",
            "content-type", "transfer-encoding", "expect", "upgrade", "keep-alive", "accept-encoding", "user-agent");
    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI target;
    private final List<Captured> requests = new CopyOnWriteArrayList<>();

    CapturingProxy(String targetBaseUrl) throws IOException {
        this.target = URI.create(targetBaseUrl);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", this::forward);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The requests forwarded so far, in arrival order. */
    List<Captured> requests() {
        return List.copyOf(requests);
    }

    private void forwardGet(HttpExchange ex) throws IOException {
        try {
            HttpResponse<byte[]> reply = client.send(HttpRequest.newBuilder(target.resolve(ex.getRequestURI())).GET()
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
            ex.sendResponseHeaders(reply.statusCode(), reply.body().length == 0 ? -1 : reply.body().length);
            ex.getResponseBody().write(reply.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ex.sendResponseHeaders(502, -1);
        } finally {
            ex.close();
        }
    }

    void clear() {
        requests.clear();
    }

    private void forward(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("POST")) {
            forwardGet(ex);
            return;
        }
        byte[] body = ex.getRequestBody().readAllBytes();
        Map<String, String> headers = new TreeMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        requests.add(new Captured(ex.getRequestURI().toString(), headers, JSON.readTree(body)));
        HttpRequest.Builder forwarded = HttpRequest.newBuilder(target.resolve(ex.getRequestURI()))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        // the simulator reads some headers (anthropic-version, fault injection): pass on all the JDK lets through
        headers.forEach((name, value) -> {
            if (!HOP_BY_HOP.contains(name)) forwarded.header(name, value);
        });
        HttpRequest request = forwarded.build();
        HttpResponse<InputStream> reply;
        try {
            reply = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        reply.headers().firstValue("content-type").ifPresent(v -> ex.getResponseHeaders().set("Content-Type", v));
        ex.sendResponseHeaders(reply.statusCode(), 0);
        try (InputStream in = reply.body(); OutputStream out = ex.getResponseBody()) {
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
                out.flush(); // one SSE event at a time, as the simulator sent it
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.close();
        client.close();
    }
}
