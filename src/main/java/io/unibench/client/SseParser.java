package io.unibench.client;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental server-sent-events parser (the WHATWG event-stream format), fed with byte chunks as they arrive.
 *
 * <p>Bytes of the current line are buffered until its end, and only the {@code data} field is decoded, once per
 * event; so a UTF-8 character or a CRLF split between two chunks needs no special case beyond remembering a
 * trailing CR, and the parser allocates nothing per event (a String per event only for a {@link Listener}). Lines end in LF, CRLF or CR. {@code data:} values
 * lose one leading space and several of them are joined with "\n"; {@code event}, {@code id}, {@code retry},
 * unknown fields and comment lines (starting with ':') are ignored; an event is dispatched on a blank line, and
 * {@link #finish()} dispatches a last event that lacks its blank line.
 *
 * <p>Not thread-safe: one parser per response, used on one thread.
 */
public final class SseParser {

    /** Receives the data of each event. */
    @FunctionalInterface
    public interface Listener {
        void onData(String data);
    }

    /**
     * Receives the data of each event as UTF-8 bytes, without a String per event (the client's hot path):
     * {@code length} bytes of {@code buf} from {@code offset}, valid only during the call.
     */
    @FunctionalInterface
    public interface BytesListener {
        void onData(byte[] buf, int offset, int length);
    }

    /** An event (or line) larger than this is treated as a broken stream rather than buffered without bound. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private final BytesListener listener;
    private final int maxEventBytes;

    private byte[] line = new byte[256];
    private int lineLength;
    private byte[] data = new byte[256];
    private int dataLength;
    private boolean hasData;
    /** The previous chunk ended in CR: a LF starting the next chunk belongs to that line end. */
    private boolean afterCr;

    public SseParser(Listener listener) {
        this(listener, DEFAULT_MAX_EVENT_BYTES);
    }

    public SseParser(Listener listener, int maxEventBytes) {
        this((buf, offset, length) -> listener.onData(new String(buf, offset, length, StandardCharsets.UTF_8)),
                maxEventBytes);
    }

    public SseParser(BytesListener listener) {
        this(listener, DEFAULT_MAX_EVENT_BYTES);
    }

    public SseParser(BytesListener listener, int maxEventBytes) {
        this.listener = listener;
        this.maxEventBytes = maxEventBytes;
    }

    /** Parses the readable bytes of {@code buf} without consuming them (the reader index is left unchanged). */
    public void feed(ByteBuf buf) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        if (buf.hasArray()) {
            feed(buf.array(), buf.arrayOffset() + start, end - start);
            return;
        }
        int i = start;
        while (i < end) {
            int eol = buf.forEachByte(i, end - i, b -> b != LF && b != CR);
            int lineEnd = eol < 0 ? end : eol;
            if (lineEnd > i) {
                appendLine(buf, i, lineEnd - i);
            }
            if (eol < 0) {
                return;
            }
            i = endOfLine(buf.getByte(eol), eol) + 1;
        }
    }

    /** Parses {@code length} bytes of {@code bytes} from {@code offset}. */
    public void feed(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            int lineEnd = i;
            while (lineEnd < end && bytes[lineEnd] != LF && bytes[lineEnd] != CR) {
                lineEnd++;
            }
            if (lineEnd > i) {
                appendLine(bytes, i, lineEnd - i);
            }
            if (lineEnd == end) {
                return;
            }
            i = endOfLine(bytes[lineEnd], lineEnd) + 1;
        }
    }

    public void feed(byte[] bytes) {
        feed(bytes, 0, bytes.length);
    }

    /** End of stream: a pending line and a pending event without their terminators are processed. */
    public void finish() {
        if (lineLength > 0) {
            processLine();
        }
        dispatch();
        afterCr = false;
    }

    /** Handles a CR or LF at {@code index}; returns that index (the caller continues after it). */
    private int endOfLine(byte terminator, int index) {
        if (terminator == LF && afterCr && lineLength == 0) {
            // second half of a CRLF: the line already ended at the CR
            afterCr = false;
            return index;
        }
        processLine();
        afterCr = terminator == CR;
        return index;
    }

    private void appendLine(byte[] src, int from, int len) {
        afterCr = false;
        ensureLine(len);
        System.arraycopy(src, from, line, lineLength, len);
        lineLength += len;
    }

    private void appendLine(ByteBuf src, int from, int len) {
        afterCr = false;
        ensureLine(len);
        src.getBytes(from, line, lineLength, len);
        lineLength += len;
    }

    private void ensureLine(int more) {
        int needed = lineLength + more;
        if (needed > maxEventBytes) {
            throw new SseException("SSE line longer than " + maxEventBytes + " bytes");
        }
        if (needed > line.length) {
            line = Arrays.copyOf(line, Math.max(needed, line.length * 2));
        }
    }

    private void processLine() {
        int len = lineLength;
        lineLength = 0;
        if (len == 0) {
            dispatch();
            return;
        }
        if (line[0] == ':') {
            return; // comment, e.g. a keep-alive ping
        }
        int colon = 0;
        while (colon < len && line[colon] != ':') {
            colon++;
        }
        if (!isData(colon)) {
            return; // event, id, retry and unknown fields do not change what we measure
        }
        int valueStart = Math.min(colon + 1, len);
        if (valueStart < len && line[valueStart] == ' ') {
            valueStart++;
        }
        appendData(valueStart, len);
    }

    private boolean isData(int nameLength) {
        return nameLength == 4 && line[0] == 'd' && line[1] == 'a' && line[2] == 't' && line[3] == 'a';
    }

    private void appendData(int from, int to) {
        int needed = dataLength + (hasData ? 1 : 0) + (to - from);
        if (needed > maxEventBytes) {
            throw new SseException("SSE event larger than " + maxEventBytes + " bytes");
        }
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
        }
        if (hasData) {
            data[dataLength++] = LF;
        }
        System.arraycopy(line, from, data, dataLength, to - from);
        dataLength += to - from;
        hasData = true;
    }

    private void dispatch() {
        if (!hasData) {
            return;
        }
        int length = dataLength;
        dataLength = 0;
        hasData = false;
        listener.onData(data, 0, length);
    }

    /** The stream cannot be an event stream (e.g. an unbounded line). */
    public static final class SseException extends RuntimeException {
        public SseException(String message) {
            super(message, null, false, false);
        }
    }
}
