package io.unibench.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental server-sent-events parser (the WHATWG event-stream format), fed with byte chunks as they arrive.
 *
 * <p>Bytes of the current line are buffered until its end, and only the {@code data} field is decoded, once per
 * event; so a UTF-8 character or a CRLF split between two chunks needs no special case beyond remembering a
 * trailing CR, and the parser allocates nothing per event (a String per event only for a {@link Listener}). An event
 * that lies whole in one array as {@code data:…\n\n} (what servers send) is handed over in place, without either
 * copy; with a {@link Claimer}, an event as {@code event:…\ndata:…\n\n} may be taken whole in place, framing
 * included. Lines end in LF, CRLF or CR. {@code data:} values
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

    /**
     * Receives the data of each event as {@link BytesListener} does, and where it lies when the event is whole in
     * place: then {@code buf[framingStart, offset)} are the event's lines before its data value ({@code event:}
     * lines and the {@code data:} field name with its space if any, each line ended by LF), and
     * {@code buf[offset + length]} and the byte after it the LF LF that end the event; {@code framingStart} is -1 for
     * an event read line by line.
     */
    @FunctionalInterface
    public interface FramedListener {
        void onData(byte[] buf, int framingStart, int offset, int length);
    }

    /**
     * Optional: recognises a whole event in place, so that the parser need not search for its line ends. Called at
     * the first byte of each event, it either takes the event — only if {@code buf[from, from + n)} is the whole
     * event, its blank line included, as lines ended by LF that the line-by-line path reads as one event (e.g. the
     * exact bytes of an earlier event that reached a {@link FramedListener} with its framing, with another string
     * in the data), all before {@code limit} — and returns {@code n}, or changes nothing and returns -1; the parser
     * then reads the event itself and hands it to the listener.
     */
    @FunctionalInterface
    public interface Claimer {
        int claim(byte[] buf, int from, int limit);
    }

    /** An event (or line) larger than this is treated as a broken stream rather than buffered without bound. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final long LF_WORD = 0x0A0A0A0A0A0A0A0AL;
    private static final long CR_WORD = 0x0D0D0D0D0D0D0D0DL;
    /** Little-endian: the first byte in memory is the lowest byte of the word. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final FramedListener listener;
    private final Claimer claimer;
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
        this((buf, framingStart, offset, length) -> listener.onData(buf, offset, length), null, maxEventBytes);
    }

    /** With a {@link Claimer} asked first at the start of each event; may be null. */
    public SseParser(FramedListener listener, Claimer claimer) {
        this(listener, claimer, DEFAULT_MAX_EVENT_BYTES);
    }

    public SseParser(FramedListener listener, Claimer claimer, int maxEventBytes) {
        this.listener = listener;
        this.claimer = claimer;
        this.maxEventBytes = maxEventBytes;
    }

    /** True when {@code buf[at]} and {@code buf[at + 1]}, both before {@code limit}, are the LF LF that end an event. */
    public static boolean endsEvent(byte[] buf, int at, int limit) {
        return at + 1 < limit && buf[at] == LF && buf[at + 1] == LF;
    }

    /** Parses {@code length} bytes of {@code bytes} from {@code offset}. */
    public void feed(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        int eventStart = -1; // the start of the event whose event: lines were just skipped in place
        while (i < end) {
            if (lineLength == 0 && !afterCr && !hasData) {
                if (claimer != null && eventStart < 0) {
                    // an event the slow path would reject as too long is never claimed
                    int claimed = claimer.claim(bytes, i, (int) Math.min(end, (long) i + maxEventBytes));
                    if (claimed >= 0) {
                        i += claimed;
                        continue;
                    }
                }
                int next = wholeDataEvent(bytes, eventStart >= 0 ? eventStart : i, i, end);
                if (next >= 0) {
                    eventStart = -1;
                    i = next;
                    continue;
                }
                next = skippedEventLine(bytes, i, end);
                if (next >= 0) {
                    if (eventStart < 0) eventStart = i;
                    i = next;
                    continue;
                }
            }
            eventStart = -1;
            int lineEnd = lineEnd(bytes, i, end);
            if (lineEnd > i) {
                appendLine(bytes, i, lineEnd - i);
            }
            if (lineEnd == end) {
                return;
            }
            i = endOfLine(bytes[lineEnd], lineEnd) + 1;
        }
    }

    /**
     * The common case, without copying: at {@code i} starts a whole {@code data:} line ending in LF and followed by
     * the blank LF line that ends the event, all inside this buffer (the event began at {@code eventStart}, before
     * event lines skipped in place, or at {@code i}). Dispatches its value straight from {@code bytes} and returns
     * the index after the blank line; -1 (nothing consumed) for anything else, which the line-by-line path then
     * handles with the same result.
     */
    private int wholeDataEvent(byte[] bytes, int eventStart, int i, int end) {
        if (end - i < 7 || bytes[i] != 'd' || bytes[i + 1] != 'a' || bytes[i + 2] != 't' || bytes[i + 3] != 'a'
                || bytes[i + 4] != ':') {
            return -1;
        }
        int valueStart = bytes[i + 5] == ' ' ? i + 6 : i + 5;
        int lf = lineEnd(bytes, valueStart, end);
        if (!endsEvent(bytes, lf, end) || lf - i > maxEventBytes) {
            return -1;
        }
        listener.onData(bytes, eventStart, valueStart, lf - valueStart);
        return lf + 2;
    }

    /**
     * An {@code event:} line ending in LF inside this buffer, at the start of an event (the Responses API and
     * Anthropic name every event so): skipped in place, as the line-by-line path would ignore it, so that the
     * {@code data:} line after it still takes the fast path. Returns the index after it, or -1.
     */
    private static int skippedEventLine(byte[] bytes, int i, int end) {
        if (end - i < 7 || bytes[i] != 'e' || bytes[i + 1] != 'v' || bytes[i + 2] != 'e' || bytes[i + 3] != 'n'
                || bytes[i + 4] != 't' || bytes[i + 5] != ':') {
            return -1;
        }
        int lf = lineEnd(bytes, i + 6, end);
        return lf < end && bytes[lf] == LF ? lf + 1 : -1;
    }

    /**
     * Index of the first CR or LF in {@code bytes[from, end)}, or {@code end}. Eight bytes per step (the classic
     * "has a zero byte" bit trick on the word XOR the terminator); the lowest flagged byte is always a real match.
     */
    static int lineEnd(byte[] bytes, int from, int end) {
        int i = from;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i);
            long found = zeroBytes(word ^ LF_WORD) | zeroBytes(word ^ CR_WORD);
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        while (i < end && bytes[i] != LF && bytes[i] != CR) {
            i++;
        }
        return i;
    }

    /** High bit set in the bytes of {@code v} that are zero (plus, at most, bytes above a zero byte). */
    private static long zeroBytes(long v) {
        return (v - 0x0101010101010101L) & ~v & 0x8080808080808080L;
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
        listener.onData(data, -1, 0, length);
    }

    /** The stream cannot be an event stream (e.g. an unbounded line). */
    public static final class SseException extends RuntimeException {
        public SseException(String message) {
            super(message, null, false, false);
        }
    }
}
