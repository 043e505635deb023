package io.unibench.schedule;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** A webhook endpoint on 127.0.0.1 for tests: records every request and answers from a script (then the last answer). */
public final class WebhookReceiver implements AutoCloseable {
    public record Received(String path, String query, Map<String, String> headers, String body) {}

    public record Answer(int status, String body) {}

    private final HttpServer server;
    public final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<Answer> script = new ArrayList<>();

    public WebhookReceiver(Answer... answers) throws IOException {
        script.addAll(List.of(answers));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            ex.getRequestHeaders().forEach((k, v) -> headers.put(k, v.getFirst()));
            received.add(new Received(ex.getRequestURI().getRawPath(), ex.getRequestURI().getRawQuery(), headers,
                    new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            Answer a;
            synchronized (script) {
                a = script.size() > 1 ? script.removeFirst() : script.getFirst();
            }
            byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(a.status(), out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
