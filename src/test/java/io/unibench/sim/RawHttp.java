package io.unibench.sim;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP/1.1 client on a raw socket for tests: keep-alive across requests, chunked bodies decoded by hand,
 * and the arrival time of every SSE event taken as soon as its bytes are read (no client library in between).
 */
final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(20_000); // bounds every read: a hung server fails the test instead of hanging it
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    record Event(String data, long arrivalNanos) {}

    record Response(int status, Map<String, String> headers, String body, List<Event> events, long sentNanos) {}

    /** Sends a request; returns once its head is written. */
    long send(String method, String path, String json) throws IOException {
        return send(method, path, json, Map.of());
    }

    /** Sends a request with extra headers; returns once its head is written. */
    long send(String method, String path, String json, Map<String, String> headers) throws IOException {
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        StringBuilder extra = new StringBuilder();
        headers.forEach((k, v) -> extra.append(k).append(": ").append(v).append("\r\n"));
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra
                + (json == null ? "" : "Content-Type: application/json\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n";
        long sent = System.nanoTime();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return sent;
    }

    Response exchange(String method, String path, String json) throws IOException {
        long sent = send(method, path, json);
        return read(sent, Integer.MAX_VALUE);
    }

    Response exchange(String method, String path, String json, Map<String, String> headers) throws IOException {
        long sent = send(method, path, json, headers);
        return read(sent, Integer.MAX_VALUE);
    }

    /** Reads one response; with {@code maxEvents} it stops after that many SSE events (leaving the rest unread). */
    Response read(long sentNanos, int maxEvents) throws IOException {
        String statusLine = line();
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<Event> events = new ArrayList<>();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            StringBuilder pendingSse = new StringBuilder();
            while (events.size() < maxEvents) {
                int size = Integer.parseInt(line().trim(), 16);
                if (size == 0) {
                    line(); // end of trailers
                    break;
                }
                byte[] chunk = in.readNBytes(size);
                long arrival = System.nanoTime();
                line(); // CRLF after the chunk
                body.write(chunk);
                pendingSse.append(new String(chunk, StandardCharsets.UTF_8));
                int end;
                while ((end = pendingSse.indexOf("\n\n")) >= 0) {
                    String frame = pendingSse.substring(0, end);
                    pendingSse.delete(0, end + 2);
                    if (frame.startsWith("data: ")) events.add(new Event(frame.substring(6), arrival));
                }
            }
        } else {
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            body.write(in.readNBytes(length));
        }
        return new Response(status, headers, body.toString(StandardCharsets.UTF_8), events, sentNanos);
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new IOException("connection closed by the server");
            if (c != '\r') sb.append((char) c);
        }
        return sb.toString();
    }

    @Override public void close() throws IOException {
        socket.close();
    }
}
