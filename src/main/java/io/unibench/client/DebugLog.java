package io.unibench.client;

import java.io.PrintStream;
import java.util.Map;

/**
 * {@code --debug}: request bodies and response chunks on stderr, secrets masked. Response chunks and bodies are
 * logged whole (the last chunk of a stream carries the usage and timings a debugging user looks for); request
 * bodies are cut at {@link #MAX_REQUEST_TEXT} characters, since a long prompt would bury everything else.
 */
final class DebugLog {

    private static final int MAX_REQUEST_TEXT = 800;

    private final boolean enabled;
    private final PrintStream out;

    DebugLog(boolean enabled, PrintStream out) {
        this.enabled = enabled;
        this.out = out;
    }

    boolean enabled() {
        return enabled;
    }

    void request(String requestId, String url, Map<String, String> headers, byte[] body) {
        if (!enabled) {
            return;
        }
        StringBuilder h = new StringBuilder();
        headers.forEach((name, value) -> h.append(' ').append(name).append('=')
                .append(Secrets.headerValue(name, value)));
        String text = new String(body, 0, Math.min(body.length, MAX_REQUEST_TEXT * 4),
                java.nio.charset.StandardCharsets.UTF_8);
        line(requestId, "POST " + url + " headers:" + h, null);
        line(requestId, "request body", truncate(text, body.length));
    }

    void response(String requestId, String what, String text) {
        if (enabled) {
            line(requestId, what, text);
        }
    }

    private void line(String requestId, String what, String text) {
        String body = text == null ? "" : ": " + Secrets.redact(text.replace('\n', ' ').replace('\r', ' '));
        out.println("[unibench debug] " + requestId + " " + Secrets.redact(what) + body);
    }

    private static String truncate(String s, int bytes) {
        return s.length() <= MAX_REQUEST_TEXT ? s : s.substring(0, MAX_REQUEST_TEXT) + "...(" + bytes + " bytes)";
    }
}
