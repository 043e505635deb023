package io.unibench.client;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * HTTP/1.1 response framing for the client (RFC 9112): the status line, the four headers the client acts on
 * ({@code Content-Type}, {@code Content-Length}, {@code Transfer-Encoding}, {@code Connection}), and the body —
 * chunked, {@code Content-Length} or until the connection closes — handed on as ranges of the read buffer, without
 * a copy or an object per part. It replaces Netty's {@code HttpResponseDecoder}, whose header objects, content
 * slices and pipeline hops were ≈ 10% of the client's CPU per streamed request (bench/README.md).
 *
 * <p>One response at a time: {@link #expectResponse()} arms it for the next one, and bytes that arrive when no
 * response is expected (after the end of one, before the next request) are a protocol error — the connection's
 * state is then unknown. Interim 1xx responses (100 Continue, 103 Early Hints) are skipped; 204 and 304 have no
 * body. Only ASCII is read from the head; header values the client does not use are not decoded.
 *
 * <p>Not thread-safe: one decoder per connection, fed on its event loop.
 */
final class ResponseDecoder {

    /** Receives one response's parts, in order: a head, body ranges (maybe none), an end. */
    interface Listener {
        /** The final status line and headers arrived; {@code contentType} is {@code ""} when absent. */
        void onHead(int status, String contentType, boolean keepAlive);

        /** {@code length} body bytes of {@code buf} from {@code index}, valid only during the call. */
        void onBody(ByteBuf buf, int index, int length);

        /** The body is complete (the framing says so, or the connection closed for a close-delimited body). */
        void onEnd();
    }

    /** The bytes are not an HTTP/1.1 response the client can read; the message says why. */
    static final class MalformedResponseException extends RuntimeException {
        MalformedResponseException(String message) {
            super(message, null, false, false);
        }
    }

    /** Largest status line plus headers (or trailers) accepted. */
    static final int MAX_HEAD_BYTES = 64 * 1024;
    /** Largest chunk-size line (size, extensions) accepted. */
    private static final int MAX_CHUNK_LINE_BYTES = 4 * 1024;

    private enum State { IDLE, HEAD, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILERS, UNTIL_CLOSE }

    private final Listener listener;
    private State state = State.IDLE;
    /** Bytes of the head, chunk-size line or trailers seen so far (they may span reads). */
    private byte[] line = new byte[512];
    private int lineLength;
    /** Body bytes left: of the Content-Length body, or of the current chunk. */
    private long remaining;

    ResponseDecoder(Listener listener) {
        this.listener = listener;
    }

    /** The next bytes are a new response (a request was just sent on the connection). */
    void expectResponse() {
        state = State.HEAD;
        lineLength = 0;
    }

    /** True when the response in progress is one whose end is the connection's close. */
    boolean endsAtClose() {
        return state == State.UNTIL_CLOSE;
    }

    /** The connection closed: a close-delimited body ends here ({@link Listener#onEnd}); anything else is cut. */
    void inputClosed() {
        if (state == State.UNTIL_CLOSE) {
            state = State.IDLE;
            listener.onEnd();
        }
    }

    /**
     * Decodes every readable byte of {@code buf} (the reader index is left as it is).
     *
     * @throws MalformedResponseException when the bytes break HTTP/1.1 framing; the decoder is then {@code IDLE}
     */
    void feed(ByteBuf buf) {
        int i = buf.readerIndex();
        int end = buf.writerIndex();
        try {
            while (i < end) {
                i = switch (state) {
                    case IDLE -> throw new MalformedResponseException("bytes arrived when no response was expected");
                    case HEAD -> head(buf, i, end);
                    case FIXED_BODY -> fixedBody(buf, i, end);
                    case CHUNK_SIZE -> chunkSize(buf, i, end);
                    case CHUNK_DATA -> chunkData(buf, i, end);
                    case CHUNK_DATA_END -> chunkDataEnd(buf, i, end);
                    case TRAILERS -> trailers(buf, i, end);
                    case UNTIL_CLOSE -> body(buf, i, end - i);
                };
            }
        } catch (MalformedResponseException e) {
            state = State.IDLE;
            throw e;
        }
    }

    // ---- head ----

    private int head(ByteBuf buf, int from, int end) {
        int before = lineLength;
        int n = Math.min(end - from, MAX_HEAD_BYTES - before);
        if (n == 0) {
            throw new MalformedResponseException("response head larger than " + MAX_HEAD_BYTES + " bytes");
        }
        append(buf, from, n, MAX_HEAD_BYTES, "response head");
        // from three bytes back: a blank line may straddle two reads
        int headEnd = blankLineEnd(line, Math.max(0, before - 3), lineLength);
        if (headEnd < 0) {
            return from + n;
        }
        Head head = headParser.parse(line, headEnd);
        lineLength = 0;
        int after = from + (headEnd - before);
        if (head.status() < 200) {
            if (head.status() == 101) {
                throw new MalformedResponseException("unexpected 101 Switching Protocols");
            }
            return after; // interim response: the final one follows
        }
        listener.onHead(head.status(), head.contentType(), head.keepAlive());
        if (head.status() == 204 || head.status() == 304) {
            end();
        } else if (head.chunked()) {
            state = State.CHUNK_SIZE;
        } else if (head.contentLength() >= 0) {
            remaining = head.contentLength();
            state = State.FIXED_BODY;
            if (remaining == 0) end();
        } else {
            state = State.UNTIL_CLOSE;
        }
        return after;
    }

    /** Index after the LF of the first blank line (LF LF or LF CR LF) in {@code b[from, end)}, or -1. */
    static int blankLineEnd(byte[] b, int from, int end) {
        for (int i = from; i < end; i++) {
            if (b[i] != '\n' || i == 0) continue;
            if (b[i - 1] == '\n' || (b[i - 1] == '\r' && i >= 2 && b[i - 2] == '\n')) {
                return i + 1;
            }
        }
        return -1;
    }

    private void append(ByteBuf buf, int from, int length, int max, String what) {
        if (lineLength + length > max) {
            throw new MalformedResponseException(what + " larger than " + max + " bytes");
        }
        if (lineLength + length > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + length, line.length * 2));
        }
        buf.getBytes(from, line, lineLength, length);
        lineLength += length;
    }

    // ---- bodies ----

    private int fixedBody(ByteBuf buf, int from, int end) {
        int n = (int) Math.min(remaining, end - from);
        body(buf, from, n);
        remaining -= n;
        if (remaining == 0) end();
        return from + n;
    }

    private int chunkSize(ByteBuf buf, int from, int end) {
        int lf = buf.indexOf(from, end, (byte) '\n');
        append(buf, from, (lf < 0 ? end : lf) - from, MAX_CHUNK_LINE_BYTES, "chunk-size line");
        if (lf < 0) {
            return end;
        }
        long size = parseChunkSize();
        lineLength = 0;
        if (size == 0) {
            state = State.TRAILERS;
        } else {
            remaining = size;
            state = State.CHUNK_DATA;
        }
        return lf + 1;
    }

    /** Hex digits, then optional whitespace, {@code ;extensions} (ignored) and the CR before the LF. */
    private long parseChunkSize() {
        int n = lineLength;
        if (n > 0 && line[n - 1] == '\r') n--;
        long size = 0;
        int i = 0;
        for (; i < n; i++) {
            int digit = Character.digit(line[i], 16);
            if (digit < 0) break;
            if (size > (Long.MAX_VALUE >> 4)) {
                throw new MalformedResponseException("chunk size too large");
            }
            size = size << 4 | digit;
        }
        boolean restOk = i > 0 && (i == n || line[i] == ';' || line[i] == ' ' || line[i] == '\t');
        if (!restOk) {
            throw new MalformedResponseException("invalid chunk size line \"" + printable(line, n) + "\"");
        }
        return size;
    }

    private int chunkData(ByteBuf buf, int from, int end) {
        int n = (int) Math.min(remaining, end - from);
        body(buf, from, n);
        remaining -= n;
        if (remaining == 0) {
            state = State.CHUNK_DATA_END;
        }
        return from + n;
    }

    /** The CRLF (or bare LF) after a chunk's data. */
    private int chunkDataEnd(ByteBuf buf, int from, int end) {
        byte b = buf.getByte(from);
        if (b == '\n') {
            lineLength = 0;
            state = State.CHUNK_SIZE;
        } else if (b == '\r' && lineLength == 0) {
            lineLength = 1;
        } else {
            throw new MalformedResponseException("chunk data longer than its size");
        }
        return from + 1;
    }

    /** Trailer fields (ignored), each up to its LF, until the blank line that ends the response. */
    private int trailers(ByteBuf buf, int from, int end) {
        int i = from;
        while (i < end) {
            int lf = buf.indexOf(i, end, (byte) '\n');
            append(buf, i, (lf < 0 ? end : lf) - i, MAX_HEAD_BYTES, "trailer field");
            if (lf < 0) {
                return end;
            }
            boolean blank = lineLength == 0 || (lineLength == 1 && line[0] == '\r');
            lineLength = 0;
            i = lf + 1;
            if (blank) {
                end();
                return i;
            }
        }
        return end;
    }

    private int body(ByteBuf buf, int from, int length) {
        if (length > 0) {
            listener.onBody(buf, from, length);
        }
        return from + length;
    }

    private void end() {
        state = State.IDLE;
        listener.onEnd();
    }

    private static String printable(byte[] bytes, int length) {
        String s = new String(bytes, 0, Math.min(length, 64), StandardCharsets.ISO_8859_1);
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }

    /** What the client needs from a status line and its headers. */
    record Head(int status, String contentType, boolean keepAlive, boolean chunked, long contentLength) {}

    private final HeadParser headParser = new HeadParser();

    /**
     * Reads a head straight from its bytes: header names are matched without a String each (only the
     * Content-Type value becomes one, reused while it repeats), since this runs once per response.
     */
    static final class HeadParser {
        private static final byte[] CONTENT_TYPE = ascii("content-type");
        private static final byte[] CONTENT_LENGTH = ascii("content-length");
        private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
        private static final byte[] CONNECTION = ascii("connection");
        private static final byte[] CHUNKED = ascii("chunked");
        private static final byte[] CLOSE = ascii("close");
        private static final byte[] KEEP_ALIVE = ascii("keep-alive");

        private byte[] lastContentType = new byte[0];
        private String lastContentTypeText = "";

        /** Parses {@code b[0, length)}: a status line, header lines, the blank line. */
        Head parse(byte[] b, int length) {
            int eol = lineEnd(b, 0, length);
            int statusEnd = trimCr(b, 0, eol);
            if (statusEnd < 12 || !startsWith(b, "HTTP/1.") || !digit(b[7]) || b[8] != ' ' || !digit(b[9])
                    || !digit(b[10]) || !digit(b[11]) || (statusEnd > 12 && b[12] != ' ')) {
                throw new MalformedResponseException("invalid status line \"" + printable(b, statusEnd) + "\"");
            }
            boolean http10 = b[7] == '0';
            int status = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
            String contentType = "";
            boolean hasTransferEncoding = false;
            boolean chunked = false;
            long contentLength = -1;
            int connection = 0; // -1 close, 1 keep-alive
            for (int start = eol + 1; start < length; start = eol + 1) {
                eol = lineEnd(b, start, length);
                int end = trimCr(b, start, eol);
                if (end == start || b[start] == ' ' || b[start] == '\t') {
                    continue; // the blank line, or obsolete line folding (no folded value is needed)
                }
                int colon = indexOf(b, start, end, (byte) ':');
                if (colon <= start) {
                    throw new MalformedResponseException("invalid header line \""
                            + printable(Arrays.copyOfRange(b, start, end), end - start) + "\"");
                }
                int vs = colon + 1;
                int ve = end;
                while (vs < ve && (b[vs] == ' ' || b[vs] == '\t')) vs++;
                while (ve > vs && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) ve--;
                if (nameIs(b, start, colon, CONTENT_TYPE)) {
                    contentType = contentType(b, vs, ve);
                } else if (nameIs(b, start, colon, CONTENT_LENGTH)) {
                    contentLength = contentLength(b, vs, ve, contentLength);
                } else if (nameIs(b, start, colon, TRANSFER_ENCODING)) {
                    hasTransferEncoding = true;
                    // the last coding of the last field decides
                    int lastComma = lastIndexOf(b, vs, ve, (byte) ',');
                    chunked = tokenIs(b, lastComma < 0 ? vs : lastComma + 1, ve, CHUNKED);
                } else if (nameIs(b, start, colon, CONNECTION)) {
                    for (int t = vs; t <= ve; ) {
                        int comma = indexOf(b, t, ve, (byte) ',');
                        int te = comma < 0 ? ve : comma;
                        if (tokenIs(b, t, te, CLOSE)) connection = -1;
                        else if (tokenIs(b, t, te, KEEP_ALIVE) && connection == 0) connection = 1;
                        t = te + 1;
                    }
                }
            }
            if (hasTransferEncoding) {
                contentLength = -1; // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3)
            }
            boolean keepAlive = connection != 0 ? connection > 0 : !http10;
            boolean bodyless = status < 200 || status == 204 || status == 304;
            if (!bodyless && !chunked && contentLength < 0) {
                keepAlive = false; // the body ends with the connection
            }
            return new Head(status, contentType, keepAlive, chunked, contentLength);
        }

        private String contentType(byte[] b, int from, int to) {
            if (!Arrays.equals(b, from, to, lastContentType, 0, lastContentType.length)) {
                lastContentType = Arrays.copyOfRange(b, from, to);
                lastContentTypeText = new String(lastContentType, StandardCharsets.ISO_8859_1);
            }
            return lastContentTypeText;
        }

        /** One Content-Length field (maybe a list of equal values), consistent with those seen before. */
        private static long contentLength(byte[] b, int from, int to, long before) {
            long result = before;
            for (int t = from; t <= to; ) {
                int comma = indexOf(b, t, to, (byte) ',');
                int te = comma < 0 ? to : comma;
                int ds = t;
                int de = te;
                while (ds < de && b[ds] == ' ') ds++;
                while (de > ds && b[de - 1] == ' ') de--;
                if (de == ds || de - ds > 18) throw invalidLength(b, from, to);
                long n = 0;
                for (int i = ds; i < de; i++) {
                    if (!digit(b[i])) throw invalidLength(b, from, to);
                    n = n * 10 + (b[i] - '0');
                }
                if (result >= 0 && n != result) {
                    throw new MalformedResponseException("conflicting Content-Length values " + result + " and " + n);
                }
                result = n;
                t = te + 1;
            }
            return result;
        }

        private static MalformedResponseException invalidLength(byte[] b, int from, int to) {
            return new MalformedResponseException("invalid Content-Length \""
                    + printable(Arrays.copyOfRange(b, from, to), to - from) + "\"");
        }

        /** Case-insensitive name match; {@code lower} is lower-case ASCII. */
        private static boolean nameIs(byte[] b, int from, int to, byte[] lower) {
            if (to - from != lower.length) return false;
            for (int i = 0; i < lower.length; i++) {
                int c = b[from + i];
                if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
                if (c != lower[i]) return false;
            }
            return true;
        }

        /** {@code b[from, to)}, without surrounding spaces, equals {@code lower} ignoring case. */
        private static boolean tokenIs(byte[] b, int from, int to, byte[] lower) {
            while (from < to && (b[from] == ' ' || b[from] == '\t')) from++;
            while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) to--;
            return nameIs(b, from, to, lower);
        }

        private static int lineEnd(byte[] b, int from, int length) {
            int lf = indexOf(b, from, length, (byte) '\n');
            return lf < 0 ? length : lf;
        }

        private static int trimCr(byte[] b, int from, int eol) {
            return eol > from && b[eol - 1] == '\r' ? eol - 1 : eol;
        }

        private static int indexOf(byte[] b, int from, int to, byte value) {
            for (int i = from; i < to; i++) {
                if (b[i] == value) return i;
            }
            return -1;
        }

        private static int lastIndexOf(byte[] b, int from, int to, byte value) {
            for (int i = to - 1; i >= from; i--) {
                if (b[i] == value) return i;
            }
            return -1;
        }

        private static boolean startsWith(byte[] b, String prefix) {
            for (int i = 0; i < prefix.length(); i++) {
                if (b[i] != prefix.charAt(i)) return false;
            }
            return true;
        }

        private static boolean digit(byte c) {
            return c >= '0' && c <= '9';
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
