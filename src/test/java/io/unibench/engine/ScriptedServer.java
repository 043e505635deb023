package io.unibench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A tiny OpenAI-compatible chat server on a loopback ephemeral port whose replies a test scripts: it records every
 * request body it received (what the benchmark really sent), and answers each one as the {@link Script} says —
 * a streamed reply with given text and usage, or an HTTP error. A script may block to hold a reply back.
 */
public final class ScriptedServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How to answer one request. */
    public record Reply(int status, String content, int promptTokens, int completionTokens, Integer cachedTokens) {
        public static Reply ok(String content, int prompt, int completion, Integer cached) {
            return new Reply(200, content, prompt, completion, cached);
        }

        /** A reply without a usage chunk (as servers that ignore stream_options send it). */
        public static Reply withoutUsage(String content) {
            return new Reply(200, content, -1, -1, null);
        }

        public static Reply error(int status) {
            return new Reply(status, null, 0, 0, null);
        }
    }

    @FunctionalInterface
    public interface Script {
        Reply answer(JsonNode body) throws Exception;
    }

    private final HttpServer server;
    public final List<JsonNode> received = new CopyOnWriteArrayList<>();

    public ScriptedServer(Script script) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            try (exchange) {
                JsonNode body = JSON.readTree(exchange.getRequestBody());
                received.add(body);
                respond(exchange, script.answer(body));
            } catch (Exception e) {
                // the client went away or the test closed the server
            }
        });
        server.start();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
    }

    /** The user messages' contents and the assistant messages' contents of a received body, in order. */
    public static List<String> contents(JsonNode body) {
        return java.util.stream.StreamSupport.stream(body.get("messages").spliterator(), false)
                .map(m -> m.get("role").asText() + ":" + m.get("content").asText()).toList();
    }

    private static void respond(HttpExchange exchange, Reply reply) throws IOException {
        if (reply.status() != 200) {
            byte[] bytes = "{\"error\":{\"message\":\"scripted failure\"}}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        ObjectNode chunk = JSON.createObjectNode();
        chunk.put("id", "x").put("object", "chat.completion.chunk");
        chunk.putArray("choices").addObject().put("index", 0).putObject("delta").put("content", reply.content());
        event(out, chunk.toString());
        ObjectNode finish = JSON.createObjectNode();
        finish.putArray("choices").addObject().put("index", 0).put("finish_reason", "stop").putObject("delta");
        event(out, finish.toString());
        if (reply.promptTokens() < 0) {
            event(out, "[DONE]");
            return;
        }
        ObjectNode usage = JSON.createObjectNode();
        usage.putArray("choices");
        ObjectNode u = usage.putObject("usage");
        u.put("prompt_tokens", reply.promptTokens()).put("completion_tokens", reply.completionTokens())
                .put("total_tokens", reply.promptTokens() + reply.completionTokens());
        if (reply.cachedTokens() != null) u.putObject("prompt_tokens_details").put("cached_tokens", reply.cachedTokens());
        event(out, usage.toString());
        event(out, "[DONE]");
    }

    private static void event(OutputStream out, String data) throws IOException {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
