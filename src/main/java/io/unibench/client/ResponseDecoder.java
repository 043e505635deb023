package io.unibench.client;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;

/**
 * HTTP/1.1 response framing for the client (RFC 9112): the status line, the four headers the client acts on
 * ({@code Content-Type}, {@code Content-Length}, {@code Transfer-Encoding}, {@code Connection}), and the body —
 * chunked, {@code Content-Length} or until the connection closes — handed on as ranges of an array, without an
 * object per part. A read is copied once, into an array ({@link ByteBufArrays}); everything after works on arrays.
 * It replaces Netty's {@code HttpResponseDecoder}, whose header objects, content slices and pipeline hops were
 * ≈ 10% of the client's CPU per streamed request (bench/HISTORY.md).
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
        /**
         * The final status line and headers arrived; {@code contentType} is {@code ""} when absent, {@code retryAfter}
         * (a refusal's {@code Retry-After}) {@code null}.
         */
        void onHead(int status, String contentType, boolean keepAlive, String retryAfter);

        /** {@code length} body bytes of {@code bytes} from {@code offset}, valid only during the call. */
        void onBody(byte[] bytes, int offset, int length);

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
    /** Bytes of a read copied at a time while looking for the end of the head (heads are usually smaller). */
    private static final int HEAD_STEP_BYTES = 512;
    /** Largest chunk-size line (size, extensions) accepted. */
    private static final int MAX_CHUNK_LINE_BYTES = 4 * 1024;

    private enum State { IDLE, HEAD, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILERS, UNTIL_CLOSE }

    private final Listener listener;
    private final ResponseHead.Parser headParser = new ResponseHead.Parser();
    private State state = State.IDLE;
    /** Bytes of the head, chunk-size line or trailers seen so far (they may span reads). */
    private byte[] line = new byte[512];
    private int lineLength;
    /** Body bytes left: of the Content-Length body, or of the current chunk. */
    private long remaining;
    private final ByteBufArrays.Sink arrays = this::feed;

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
        ByteBufArrays.forEachPiece(buf, buf.readerIndex(), buf.readableBytes(), arrays);
    }

    /**
     * Decodes {@code length} bytes of {@code bytes} from {@code offset}.
     *
     * @throws MalformedResponseException when the bytes break HTTP/1.1 framing; the decoder is then {@code IDLE}
     */
    void feed(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        try {
            while (i < end) {
                i = switch (state) {
                    case IDLE -> throw new MalformedResponseException("bytes arrived when no response was expected");
                    case HEAD -> head(bytes, i, end);
                    case FIXED_BODY -> fixedBody(bytes, i, end);
                    case CHUNK_SIZE -> chunkSize(bytes, i, end);
                    case CHUNK_DATA -> chunkData(bytes, i, end);
                    case CHUNK_DATA_END -> chunkDataEnd(bytes, i, end);
                    case TRAILERS -> trailers(bytes, i, end);
                    case UNTIL_CLOSE -> body(bytes, i, end - i);
                };
            }
        } catch (MalformedResponseException e) {
            state = State.IDLE;
            throw e;
        }
    }

    // ---- head ----

    private int head(byte[] bytes, int from, int end) {
        int headEnd = -1;
        int i = from;
        // copied in small steps: the read usually goes on with the body, which must not grow this buffer
        while (headEnd < 0) {
            if (i == end) {
                return end;
            }
            int n = Math.min(Math.min(end - i, HEAD_STEP_BYTES), MAX_HEAD_BYTES - lineLength);
            if (n == 0) {
                throw new MalformedResponseException("response head larger than " + MAX_HEAD_BYTES + " bytes");
            }
            int before = lineLength;
            append(bytes, i, n, MAX_HEAD_BYTES, "response head");
            // from three bytes back: a blank line may straddle two steps or two reads
            headEnd = blankLineEnd(line, Math.max(0, before - 3), lineLength);
            i += n;
        }
        int after = i - (lineLength - headEnd);
        ResponseHead head = headParser.parse(line, headEnd);
        lineLength = 0;
        if (head.status() < 200) {
            if (head.status() == 101) {
                throw new MalformedResponseException("unexpected 101 Switching Protocols");
            }
            return after; // interim response: the final one follows
        }
        listener.onHead(head.status(), head.contentType(), head.keepAlive(), head.retryAfter());
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

    private void append(byte[] bytes, int from, int length, int max, String what) {
        if (lineLength + length > max) {
            throw new MalformedResponseException(what + " larger than " + max + " bytes");
        }
        if (lineLength + length > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + length, line.length * 2));
        }
        System.arraycopy(bytes, from, line, lineLength, length);
        lineLength += length;
    }

    // ---- bodies ----

    private int fixedBody(byte[] bytes, int from, int end) {
        int n = (int) Math.min(remaining, end - from);
        body(bytes, from, n);
        remaining -= n;
        if (remaining == 0) end();
        return from + n;
    }

    private int chunkSize(byte[] bytes, int from, int end) {
        int lf = indexOfLf(bytes, from, end);
        long size;
        if (lf >= 0 && lineLength == 0 && lf - from <= MAX_CHUNK_LINE_BYTES) {
            size = parseChunkSize(bytes, from, lf - from); // the usual case: the whole line is in this read
        } else {
            append(bytes, from, (lf < 0 ? end : lf) - from, MAX_CHUNK_LINE_BYTES, "chunk-size line");
            if (lf < 0) {
                return end;
            }
            size = parseChunkSize(line, 0, lineLength);
            lineLength = 0;
        }
        if (size == 0) {
            state = State.TRAILERS;
        } else {
            remaining = size;
            state = State.CHUNK_DATA;
        }
        return lf + 1;
    }

    private static int indexOfLf(byte[] bytes, int from, int end) {
        for (int i = from; i < end; i++) {
            if (bytes[i] == '\n') return i;
        }
        return -1;
    }

    /** {@code b[from, from + length)}: hex digits, then optional whitespace, {@code ;extensions} (ignored), a CR. */
    private static long parseChunkSize(byte[] b, int from, int length) {
        int n = from + length;
        if (n > from && b[n - 1] == '\r') n--;
        long size = 0;
        int i = from;
        for (; i < n; i++) {
            int digit = Character.digit(b[i], 16);
            if (digit < 0) break;
            if (size > (Long.MAX_VALUE >> 4)) {
                throw new MalformedResponseException("chunk size too large");
            }
            size = size << 4 | digit;
        }
        boolean restOk = i > from && (i == n || b[i] == ';' || b[i] == ' ' || b[i] == '\t');
        if (!restOk) {
            throw new MalformedResponseException("invalid chunk size line \""
                    + ResponseHead.printable(Arrays.copyOfRange(b, from, n), n - from) + "\"");
        }
        return size;
    }

    private int chunkData(byte[] bytes, int from, int end) {
        int n = (int) Math.min(remaining, end - from);
        body(bytes, from, n);
        remaining -= n;
        if (remaining == 0) {
            state = State.CHUNK_DATA_END;
        }
        return from + n;
    }

    /** The CRLF (or bare LF) after a chunk's data. */
    private int chunkDataEnd(byte[] bytes, int from, int end) {
        byte b = bytes[from];
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
    private int trailers(byte[] bytes, int from, int end) {
        int i = from;
        while (i < end) {
            int lf = indexOfLf(bytes, i, end);
            append(bytes, i, (lf < 0 ? end : lf) - i, MAX_HEAD_BYTES, "trailer field");
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

    private int body(byte[] bytes, int from, int length) {
        if (length > 0) {
            listener.onBody(bytes, from, length);
        }
        return from + length;
    }

    private void end() {
        state = State.IDLE;
        listener.onEnd();
    }

}
