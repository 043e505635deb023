package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The request line and headers of every request, encoded once per client: only {@code X-Request-Id} and
 * {@code Content-Length} differ between requests, so {@link #encode} copies two prepared byte runs around them
 * and the body into one buffer. Netty's request encoder validated and encoded the same headers again for every
 * request (12% of the event loops against a fast server).
 *
 * <p>The headers are the ones {@code HttpHeaders.set} used to produce, in the same order: {@code host,
 * content-type, accept, user-agent}, then {@code X-Request-Id}, then the configured headers (each replacing a
 * header of the same name, case-insensitively, ours included), then {@code content-length}; a configured
 * {@code Content-Length} or {@code Transfer-Encoding} never reaches the wire (framing is ours). The configured
 * headers may hold secrets (Authorization): the prepared bytes are never logged.
 *
 * <p>Immutable, thread-safe.
 */
final class RequestHead {

    private static final String REQUEST_ID = "X-Request-Id";

    /** Before {@code X-Request-Id}; index 0 for a JSON reply, 1 for a streamed one (they differ in Accept). */
    private final byte[][] beforeId = new byte[2][];
    private final byte[] afterId;
    /** A configured X-Request-Id replaces ours. */
    private final boolean idConfigured;

    RequestHead(String pathAndQuery, String host, String userAgent, Map<String, String> configured) {
        this("POST", pathAndQuery, host, userAgent, configured);
    }

    /** The head of a {@code method} request (an upper-case token: {@code GET}, {@code POST}) to {@code pathAndQuery}. */
    RequestHead(String method, String pathAndQuery, String host, String userAgent, Map<String, String> configured) {
        if (!method.matches("[A-Z]{1,16}")) throw new IllegalArgumentException("not an HTTP method: " + method);
        List<String[]> common = List.of(
                new String[] {"host", host},
                new String[] {"content-type", "application/json"},
                new String[] {"accept", null},
                new String[] {"user-agent", userAgent});
        idConfigured = containsName(configured, REQUEST_ID);
        for (int stream = 0; stream < 2; stream++) {
            StringBuilder sb = new StringBuilder(256);
            sb.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
            for (String[] h : common) {
                if (!containsName(configured, h[0])) {
                    String value = h[1] != null ? h[1] : stream == 1 ? "text/event-stream" : "application/json";
                    line(sb, h[0], value);
                }
            }
            beforeId[stream] = ascii(sb);
        }
        StringBuilder sb = new StringBuilder(256);
        List<Map.Entry<String, String>> entries = List.copyOf(configured.entrySet());
        for (int i = 0; i < entries.size(); i++) {
            String name = entries.get(i).getKey().toLowerCase(Locale.ROOT);
            boolean replacedLater = false; // two names differing only in case: the later one wins, as with set()
            for (int j = i + 1; j < entries.size(); j++) {
                replacedLater |= entries.get(j).getKey().equalsIgnoreCase(name);
            }
            if (!replacedLater && !name.equals("content-length") && !name.equals("transfer-encoding")) {
                line(sb, entries.get(i).getKey(), entries.get(i).getValue());
            }
        }
        sb.append("content-length: ");
        afterId = ascii(sb);
    }

    /**
     * The whole request (head and body) in one buffer from {@code alloc}, owned by the caller.
     *
     * @throws IllegalArgumentException when {@code requestId} holds a character a header value cannot carry
     */
    ByteBuf encode(ByteBufAllocator alloc, boolean stream, String requestId, byte[] body) {
        byte[] before = beforeId[stream ? 1 : 0];
        boolean withId = requestId != null && !idConfigured;
        if (withId) {
            checkValue(requestId);
        }
        int size = before.length + (withId ? REQUEST_ID.length() + 4 + requestId.length() : 0)
                + afterId.length + 10 + 4 + body.length;
        ByteBuf buf = alloc.directBuffer(size);
        try {
            buf.writeBytes(before);
            if (withId) {
                buf.writeCharSequence(REQUEST_ID, java.nio.charset.StandardCharsets.US_ASCII);
                buf.writeByte(':').writeByte(' ');
                for (int i = 0; i < requestId.length(); i++) {
                    buf.writeByte((byte) requestId.charAt(i));
                }
                buf.writeByte('\r').writeByte('\n');
            }
            buf.writeBytes(afterId);
            writeDecimal(buf, body.length);
            buf.writeByte('\r').writeByte('\n').writeByte('\r').writeByte('\n');
            buf.writeBytes(body);
            return buf;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    private static void writeDecimal(ByteBuf buf, int n) {
        if (n >= 10) {
            writeDecimal(buf, n / 10);
        }
        buf.writeByte('0' + n % 10);
    }

    /** What Netty's header validation refused in a value: control characters other than tab, and non-Latin-1. */
    private static void checkValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7F || c > 0xFF) {
                throw new IllegalArgumentException("invalid character in header " + REQUEST_ID + " at index " + i);
            }
        }
    }

    private static boolean containsName(Map<String, String> headers, String name) {
        for (String key : headers.keySet()) {
            if (key.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** One header line; the configured headers were validated by Netty's rules when the client was made. */
    private static void line(StringBuilder sb, String name, String value) {
        sb.append(name).append(": ").append(value).append("\r\n");
    }

    /** Chars as single bytes, as Netty's encoder writes header strings. */
    private static byte[] ascii(StringBuilder sb) {
        byte[] out = new byte[sb.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) sb.charAt(i);
        }
        return out;
    }
}
